// Durations as a person reads them: "45 s", "3 min 20 s", "1 h 05 min".
export function duration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds)) return '—'
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) {
    const rest = s % 60
    return `${Math.floor(s / 60)} min${rest ? ` ${rest} s` : ''}`
  }
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`
}

/** Seconds since an ISO time (a job's start) at ``now`` (ms). */
export function since(iso: string | null | undefined, now: number): number | null {
  if (!iso) return null
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : iso + 'Z')
  return Number.isFinite(t) ? Math.max(0, (now - t) / 1000) : null
}
