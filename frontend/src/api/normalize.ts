// Tolerant readers: the API contract is young, so accept the obvious variants of a shape
// (a bare list or {items,total}; feedback as a list or a map) in one place instead of in views.
import type { Explanation, Mark, Page } from './types'

type Obj = Record<string, unknown>

export function asPage<T>(raw: unknown, offset = 0, limit = 0): Page<T> {
  if (Array.isArray(raw)) return { items: raw as T[], total: raw.length, offset, limit: limit || raw.length }
  const o = (raw ?? {}) as Obj
  const list = ['items', 'results', 'data', 'examples', 'words', 'feedback', 'events', 'jobs', 'versions', 'points', 'metrics']
    .map((k) => o[k])
    .find(Array.isArray) as T[] | undefined
  const items = list ?? []
  const total = typeof o.total === 'number' ? o.total : typeof o.count === 'number' ? o.count : null
  return {
    items,
    total,
    offset: typeof o.offset === 'number' ? o.offset : offset,
    limit: typeof o.limit === 'number' ? o.limit : limit,
  }
}

/** L1 shares of signed scores: the same scale as the core's normalize_scores. */
export function sharesOf(scores: number[]): number[] {
  const sum = scores.reduce((s, x) => s + Math.abs(x), 0)
  return scores.map((x) => (sum > 0 ? Math.abs(x) / sum : 0))
}

/** word index -> mark, from the API's `marks` list (one level) or a {index: action} map. */
export function feedbackMap(raw: unknown, level: 'instance' | 'task' = 'instance'): Record<number, Mark> {
  const out: Record<number, Mark> = {}
  if (Array.isArray(raw)) {
    for (const f of raw as Obj[]) {
      if ((f.level ?? 'instance') !== level) continue
      const i = Number(f.word_index ?? f.index)
      const a = f.action
      if (Number.isInteger(i) && (a === 'add' || a === 'remove')) out[i] = a
    }
  } else if (raw && typeof raw === 'object' && level === 'instance') {
    for (const [k, v] of Object.entries(raw as Obj)) {
      const a = typeof v === 'string' ? v : (v as Obj | null)?.action
      if (a === 'add' || a === 'remove') out[Number(k)] = a
    }
  }
  return out
}

export function asExplanation(raw: unknown): Explanation {
  const o = ((raw as Obj)?.explanation ?? raw ?? {}) as Obj
  const scores = (o.scores as number[]) ?? []
  const probs = (o.probs as number[]) ?? []
  const marks = o.marks ?? o.feedback
  return {
    ...(o as unknown as Explanation),
    words: (o.words as string[]) ?? [],
    scores,
    shares: (o.shares as number[]) ?? sharesOf(scores),
    probs,
    // the API's own prediction (ExplanationOut.prediction) and explained class; the UI computes neither
    prediction: o.prediction as number,
    target: o.target as number,
    feedback: feedbackMap(marks, 'instance'),
    taskMarks: feedbackMap(marks, 'task'),
  }
}
