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

/** The one id every screen, note and export shows for an example: its id in its file (`train-7`),
 * never the database id (the API's routes take that one; the export and the id box take this one). */
export function exampleRef(ex: { id: number; ext_id?: string | null }): string {
  return ex.ext_id ?? String(ex.id)
}

/** What deleting a dataset takes with it, said before the second click: its examples, their explanations
 * and, when there is any, how many feedback entries (their history stays in the event log's export). */
export function datasetDeleteNote(d: { name: string; n_examples: number; n_feedback?: number }): string {
  const n = d.n_feedback ?? 0
  const feedback =
    n > 0
      ? ` and ${n.toLocaleString()} feedback ${n === 1 ? 'entry' : 'entries'} on them (their history stays in the feedback event log)`
      : ' (no feedback is given on them)'
  return `Delete dataset ${d.name}: its ${d.n_examples.toLocaleString()} examples, their explanations (out of the rankings)${feedback}.`
}
