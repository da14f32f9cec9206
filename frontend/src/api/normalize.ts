// Readers for the API's shapes, in one place. Every list route answers the page envelope
// {items, total, offset, limit} (backend: xmd.http.pagination.Page), so there is one list shape.
import type { Explanation, Mark, Page } from './types'

type Obj = Record<string, unknown>

/** The page envelope; a bare array (what a list route answered before the envelope) reads as one page. */
export function asPage<T>(raw: unknown): Page<T> {
  if (Array.isArray(raw)) return { items: raw as T[], total: raw.length, offset: 0, limit: raw.length }
  const o = raw as Page<T>
  return { items: o.items, total: o.total, offset: o.offset, limit: o.limit }
}

/** L1 shares of signed scores: the same scale as the core's normalize_scores. */
export function sharesOf(scores: number[]): number[] {
  const sum = scores.reduce((s, x) => s + Math.abs(x), 0)
  return scores.map((x) => (sum > 0 ? Math.abs(x) / sum : 0))
}

/** word index -> mark, from the API's `marks` list (ExplanationOut.marks), for one level: the reader's
 * own marks (others' carry `mine: false` and are shown beside the text, with their names). */
export function feedbackMap(raw: unknown, level: 'instance' | 'task' = 'instance'): Record<number, Mark> {
  const out: Record<number, Mark> = {}
  for (const f of (Array.isArray(raw) ? raw : []) as Obj[]) {
    if (f.level !== level || f.mine === false) continue
    const i = Number(f.word_index)
    const a = f.action
    if (Number.isInteger(i) && (a === 'add' || a === 'remove')) out[i] = a
  }
  return out
}

export function asExplanation(raw: unknown): Explanation {
  const o = (raw ?? {}) as Obj
  const scores = (o.scores as number[]) ?? []
  const probs = (o.probs as number[]) ?? []
  const marks = o.marks
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
