// The task screen's selected word: the examples that contain it (paged, filtered by gold label and
// prediction scope), task feedback on the word, feedback on single occurrences, and opened explanations.
import { computed, reactive, ref, watch } from 'vue'
import { api } from '../api/endpoints'
import type { Action, ExampleRow, Explanation, Mark, Page, Scope, WordStats } from '../api/types'
import { exampleRef } from '../lib/format'
import { pushUndo, serial } from '../stores/undo'
import { useAsync } from './useAsync'

export const WORD_EXAMPLES_LIMIT = 10

export interface WordExamplesSource {
  pid: () => number
  word: () => WordStats | null
  query: () => { version_id?: number; method?: string }
  /** the word's current task mark (what an undo of a task click restores) */
  mark: () => Mark | null
  labels: () => string[]
  /** task feedback was written (`click`: the reader's own, as sent): the view reloads the ranking */
  changed: (click?: TaskClick) => void
}

/** A task click as sent: the reader's own entry on the word for one label and scope. */
export interface TaskClick {
  action: Action
  label: number | null
  scope: Scope
}

export function useWordExamples(src: WordExamplesSource) {
  const scope = ref<Scope>('all')
  const label = ref<'' | number>('')
  const offset = ref(0)
  // The API filters by gold label and by prediction scope (`correctness`, from the stored predictions
  // under the version shown) and counts the filtered set in `total`.
  const page = ref<Page<ExampleRow>>({ items: [], total: null, offset: 0, limit: WORD_EXAMPLES_LIMIT })
  const list = useAsync()
  const note = ref('')
  const busy = ref(false)
  const open = reactive<Record<number, Explanation | 'loading' | undefined>>({})
  const localMarks = reactive<Record<number, Mark | null>>({})

  async function load() {
    const word = src.word()
    if (!word) return
    const got = await list.run(() =>
      api.wordExamples(src.pid(), word.word, {
        offset: offset.value,
        limit: WORD_EXAMPLES_LIMIT,
        correctness: scope.value,
        label: label.value,
        ...src.query(),
      }),
    )
    if (got) page.value = got.value
  }

  // each source compared on its own: the view hands in a fresh object of the same word when the ranking is
  // read again (its marks), which must not close the open explanations nor clear the note
  watch(
    [() => src.word()?.word, scope, label, () => src.query().version_id, () => src.query().method],
    () => {
      note.value = ''
      for (const k of Object.keys(open)) delete open[Number(k)]
      for (const k of Object.keys(localMarks)) delete localMarks[Number(k)]
      if (offset.value === 0) void load()
      else offset.value = 0
    },
    { immediate: true },
  )
  watch(offset, load)

  const scopeText = computed(() =>
    scope.value === 'all' ? 'every example' : `examples the model predicts ${scope.value === 'correct' ? 'correctly' : 'wrongly'}`,
  )

  async function taskAction(action: Action) {
    const word = src.word()
    if (!word) return
    busy.value = true
    try {
      const lab = label.value === '' ? null : label.value
      const pid = src.pid()
      await serial(() => api.setTaskFeedback(pid, { word: word.word, action, label: lab, scope: scope.value }))
      pushUndo({ kind: 'task', pid, word: word.word, label: lab, scope: scope.value, before: src.mark(), after: action })
      note.value =
        action === 'reset'
          ? `Feedback on “${word.word}” taken back.`
          : `“${word.word}” marked ${action} in ${scopeText.value}${lab !== null ? ` labelled ${src.labels()[lab]}` : ''}.`
      src.changed({ action, label: lab, scope: scope.value })
      await refreshOpen()
    } catch (e) {
      note.value = `not saved: ${(e as Error).message}`
    } finally {
      busy.value = false
    }
  }

  /** Read the open explanations again: their marks come from the API (a task click reaches every
   * example that contains the word, including one opened before the click). */
  async function refreshOpen() {
    const q = src.query()
    await Promise.all(
      Object.keys(open).map(async (k) => {
        const id = Number(k)
        if (open[id] === undefined || open[id] === 'loading') return
        try {
          const fresh = await api.explanation(id, q)
          if (open[id] !== undefined) open[id] = fresh
        } catch {
          /* keep what is shown; the status bar has the error */
        }
      }),
    )
  }

  /** Feedback on the word at its positions in one example. */
  async function instanceAction(ex: ExampleRow, positions: number[], action: Action) {
    const word = src.word()
    if (!word) return
    try {
      await serial(async () => {
        for (const i of positions) await api.setFeedback(ex.id, i, action)
      })
      for (const i of positions) pushUndo({ kind: 'instance', exampleId: ex.id, exampleRef: exampleRef(ex), wordIndex: i, word: word.word, before: localMarks[ex.id] ?? null, after: action })
      localMarks[ex.id] = action === 'reset' ? null : action
      if (open[ex.id] && open[ex.id] !== 'loading') await toggle(ex, true)
    } catch (e) {
      note.value = `not saved: ${(e as Error).message}`
    }
  }

  /** Open (or close) the explanation of one example; `refresh` reads it again while open. */
  async function toggle(ex: ExampleRow, refresh = false) {
    if (open[ex.id] && !refresh) {
      delete open[ex.id]
      return
    }
    open[ex.id] = 'loading'
    try {
      open[ex.id] = await api.explanation(ex.id, src.query())
    } catch {
      delete open[ex.id]
    }
  }

  async function detailAction(ex: ExampleRow, i: number, a: Action) {
    await api.setFeedback(ex.id, i, a)
    await toggle(ex, true)
  }

  return { scope, label, offset, page, error: list.error, note, busy, open, localMarks, scopeText, taskAction, instanceAction, toggle, detailAction, refreshOpen }
}
