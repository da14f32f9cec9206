import type { FeedbackItem, Mark, WordMarks, WordStats, WordTaskFeedback } from '../api/types'

/** Likely shortcut: the server's flag only (its rule lives in one place, the core); the UI adds none. */
export function isSuspicious(w: Pick<WordStats, 'suspicious'>): boolean {
  return w.suspicious === true
}

/** The server's evidence behind the flag: "q 2e-12 · 3.1× avg" (the false-discovery-controlled q-value
 * of the label skew, and the mean importance relative to an average word's). */
export function suspicionText(w: Pick<WordStats, 'q_value' | 'lean'>): string {
  const q = w.q_value
  const qs = q == null ? '–' : q >= 0.001 ? String(Number(q.toFixed(3))) : q === 0 ? '<1e-300' : q.toExponential(0)
  return `q ${qs} · ${(w.lean ?? 0).toFixed(1)}× avg`
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

/** The mark a word's task entries paint it with (entries for several labels or scopes: remove wins). */
export function entriesMark(entries: Pick<WordTaskFeedback, 'action'>[] | undefined): Mark | null {
  const actions = (entries ?? []).map((f) => f.action)
  return actions.includes('remove') ? 'remove' : actions.includes('add') ? 'add' : null
}

/** The reader's own mark on a word, what their buttons show and an undo restores: their latest entry
 * (the server lists them in the order given). */
export function ownMark(entries: Pick<WordTaskFeedback, 'action'>[] | undefined): Mark | null {
  const last = (entries ?? []).at(-1)?.action
  return last === 'add' || last === 'remove' ? last : null
}

/** "2 removed · 1 added": how many people marked the word each way, for a team's consensus page only
 * (in blind mode the counts are one's own, and the tag already says it). */
export function votesText(w: Pick<WordStats, 'votes'>, marks: WordMarks | null | undefined): string {
  const v = w.votes
  if (marks?.shown !== 'consensus' || !v) return ''
  return [v.remove ? `${v.remove} removed` : '', v.add ? `${v.add} added` : ''].filter(Boolean).join(' · ')
}

/** What the ranking's marks are, said once above the list: the policy behind them, or blind mode. */
export function marksNote(marks: WordMarks | null | undefined): string {
  if (!marks) return ''
  if (marks.shown === 'own') return 'Blind mode: only your own marks show here, the others’ and their counts do not.'
  if (marks.policy === 'union') return ''
  const rule =
    marks.policy === 'majority'
      ? `a majority${marks.people ? ` of the ${marks.people} people with feedback` : ''}`
      : marks.policy === 'at_least_k'
        ? `at least ${marks.k ?? '?'} people`
        : 'a reviewer’s decision'
  return `Marks show the team’s consensus (kept by ${rule}); yours show apart where they differ.`
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
