export function pct(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–'
  return `${(x * 100).toFixed(digits)}%`
}

export function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–'
  return x.toFixed(digits)
}

export function signed(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–'
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`
}

export function when(iso: string | null | undefined): string {
  if (!iso) return ''
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString()
}

export function labelName(labels: string[] | undefined, i: number | null | undefined): string {
  if (i === null || i === undefined) return '–'
  return labels?.[i] ?? String(i)
}
