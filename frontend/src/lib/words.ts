import type { FeedbackItem, Mark, WordStats } from '../api/types'

/** Likely shortcut: the server's flag only (its rule lives in one place, the core); the UI adds none. */
export function isSuspicious(w: Pick<WordStats, 'suspicious'>): boolean {
  return w.suspicious === true
}

/** "83% positive": how much of the word's occurrences carry its most frequent gold label. */
export function skewText(w: Pick<WordStats, 'label_counts' | 'skew_label' | 'skew_label_name'>, labels: string[]): string {
  const counts = w.label_counts ?? []
  const n = counts.reduce((a, b) => a + b, 0)
  if (!n || w.skew_label == null) return ''
  const name = w.skew_label_name ?? labels[w.skew_label] ?? String(w.skew_label)
  return `${Math.round((counts[w.skew_label] / n) * 100)}% ${name}`
}

/** Word key as the core's word_key (NFKC, case-folded, ’ as '); the server's is authoritative. */
export function wordKey(w: string): string {
  return w.normalize('NFKC').toLowerCase().replace(/’/g, "'")
}

/** Current task-level mark per word key (a later item wins, as in the core). */
export function taskMarks(items: Pick<FeedbackItem, 'level' | 'word' | 'action'>[]): Map<string, Mark> {
  const out = new Map<string, Mark>()
  for (const f of items) {
    if (f.level !== 'task' || !f.word) continue
    if (f.action === 'reset') out.delete(wordKey(f.word))
    else out.set(wordKey(f.word), f.action)
  }
  return out
}

/** Positions of `word` in `words` (case-insensitive), for highlighting when the API sends none. */
export function positionsOf(words: string[], word: string): number[] {
  const k = wordKey(word)
  return words.flatMap((w, i) => (wordKey(w) === k ? [i] : []))
}

/**
 * Words of a text as the core's split_words cuts them (runs of letters/digits with inner
 * apostrophes, or one punctuation character), so positions match the API's word indices.
 */
export function splitWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}\p{M}_]+(?:['’][\p{L}\p{N}\p{M}_]+)*|[^\p{L}\p{N}\p{M}_\s]/gu) ?? []
}
