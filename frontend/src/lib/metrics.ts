import type { Diff, EvalMetrics, FeedbackShares, ModelVersion } from '../api/types'

export interface MetricRow {
  set: string
  metric: string
  before: number | null
  after: number | null
  delta: number | null
  /** What the metric was measured on: ``n`` of the set's ``total`` examples (fewer when the job capped it). */
  sample: string | null
}

const SHOWN = ['accuracy', 'macro_f1']

function isDiff(x: unknown): x is Diff {
  return !!x && typeof x === 'object' && 'before' in x && 'after' in x
}

function side(x: unknown): number | null {
  if (typeof x === 'number') return x
  if (isDiff(x)) return typeof x.after === 'number' ? x.after : typeof x.before === 'number' ? x.before : null
  return null
}

/** "400" for a whole set, "2,000 of 1,000,000 (capped)" for a set the job measured a sample of. */
export function sampleOf(m: Record<string, unknown>): string | null {
  const n = side(m.n)
  const total = side(m.n_total)
  if (n == null) return null
  if (total == null || total <= n) return n.toLocaleString('en')
  return `${n.toLocaleString('en')} of ${total.toLocaleString('en')} (capped)`
}

/** Flatten the compare route's {set: {metric: {before, after, delta}}} into table rows. */
export function metricRows(metrics: Record<string, Record<string, unknown>>): MetricRow[] {
  const rows: MetricRow[] = []
  for (const [set, m] of Object.entries(metrics ?? {})) {
    if (!m || typeof m !== 'object') continue
    for (const metric of SHOWN) {
      const d = m[metric]
      if (!isDiff(d)) continue
      const before = typeof d.before === 'number' ? d.before : null
      const after = typeof d.after === 'number' ? d.after : null
      const delta = typeof d.delta === 'number' ? d.delta : before !== null && after !== null ? after - before : null
      rows.push({ set, metric, before, after, delta, sample: sampleOf(m) })
    }
  }
  return rows
}

export interface ShareRow {
  method: string
  kind: 'remove' | 'add'
  before: number | null
  after: number | null
  n: number
}

/** Mean attribution share of the corrected words, per method and feedback kind, before vs after. */
export function shareRows(shares: { before: FeedbackShares | null; after: FeedbackShares | null } | null): ShareRow[] {
  if (!shares) return []
  const methods = [...new Set([...Object.keys(shares.before ?? {}), ...Object.keys(shares.after ?? {})])]
  const rows: ShareRow[] = []
  for (const method of methods) {
    for (const kind of ['remove', 'add'] as const) {
      const b = shares.before?.[method]?.[kind]
      const a = shares.after?.[method]?.[kind]
      const n = Math.max(b?.n ?? 0, a?.n ?? 0)
      if (!n) continue
      rows.push({ method, kind, before: b?.mean_share ?? null, after: a?.mean_share ?? null, n })
    }
  }
  return rows
}

export interface OneClassNote {
  set: string
  label: string
  /** the class's own F1 before / after (what to read instead of macro-F1) */
  before: number | null
  after: number | null
}

/** Eval sets whose gold labels are all one class (an anti-shortcut set often is). Their macro-F1 averages
 * that class's F1 with 0 for every other class the model predicts, so it stays at most 50 % unless every
 * prediction is that class: 0 → 49.6 % reads as "half fixed" when the class's F1 went 0 → 99 %. */
export function oneClassNotes(
  sets: Record<string, { classes: Record<string, number> }> | null | undefined,
  metrics: Record<string, Record<string, unknown>>,
): OneClassNote[] {
  const out: OneClassNote[] = []
  for (const [set, info] of Object.entries(sets ?? {})) {
    const present = Object.entries(info.classes ?? {}).filter(([, n]) => n > 0)
    if (present.length !== 1 || !metrics?.[set]) continue
    const label = present[0][0]
    const f1 = (metrics[set].per_class_f1 as Record<string, unknown> | undefined)?.[label]
    const d = isDiff(f1) ? f1 : null
    out.push({
      set,
      label,
      before: typeof d?.before === 'number' ? d.before : null,
      after: typeof d?.after === 'number' ? d.after : null,
    })
  }
  return out
}

/** A version's metrics for the versions table: its own, else those the retrain from it measured
 * before training (a base version has none of its own until it is evaluated). */
export function versionMetrics(
  v: ModelVersion,
  all: ModelVersion[],
): { metrics: Record<string, EvalMetrics>; from: ModelVersion | null } {
  const own = (v.metrics ?? {}) as Record<string, EvalMetrics>
  if (Object.keys(own).length) return { metrics: own, from: null }
  for (const child of all) {
    const before = child.parent_id === v.id ? child.retrain?.metrics_before : null
    if (before && Object.keys(before).length) return { metrics: before, from: child }
  }
  return { metrics: {}, from: null }
}
