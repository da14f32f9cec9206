// Feedback on the words of the shown example, and undo: the mark shows at once and is put back if
// the API refuses; writes and undos go through the session undo stack in the order they were asked.
import { ref, type Ref } from 'vue'
import { api } from '../api/endpoints'
import type { Action, ExampleRow, Explanation, Mark } from '../api/types'
import { exampleRef } from '../lib/format'
import { describeUndo, pushUndo, serial, undoLast } from '../stores/undo'

export interface FeedbackTarget {
  example: Ref<ExampleRow | null>
  exp: Ref<Explanation | null>
  readonly: Ref<boolean>
  /** reload the explanation (after undoing a click that is not on the one shown) */
  reload: () => Promise<void>
}

export function useInstanceFeedback(t: FeedbackTarget) {
  /** what the last click or undo did, for the screen's live region */
  const note = ref('')

  async function act(index: number, action: Action) {
    const ex = t.example.value
    const e = t.exp.value
    if (!ex || !e || t.readonly.value) return
    const before: Mark | null = e.feedback[index] ?? null
    if (action === 'reset' && !before) return
    // optimistic: show the mark at once, put it back if the API refuses
    const fb = { ...e.feedback }
    if (action === 'reset') delete fb[index]
    else fb[index] = action
    e.feedback = fb
    try {
      await serial(async () => {
        await api.setFeedback(ex.id, index, action)
        pushUndo({ kind: 'instance', exampleId: ex.id, exampleRef: exampleRef(ex), wordIndex: index, word: e.words[index], before, after: action })
      })
      ex.n_feedback = Object.keys(fb).length
      note.value = `${action} “${e.words[index]}”`
    } catch (err) {
      const back = { ...e.feedback }
      if (before) back[index] = before
      else delete back[index]
      e.feedback = back
      note.value = `not saved: ${(err as Error).message}`
    }
  }

  async function undo() {
    try {
      const entry = await undoLast()
      if (!entry) {
        note.value = 'nothing to undo'
        return
      }
      note.value = `undone: ${describeUndo(entry)}`
      const e = t.exp.value
      if (entry.kind === 'instance' && e && t.example.value?.id === entry.exampleId) {
        const fb = { ...e.feedback }
        if (entry.before) fb[entry.wordIndex] = entry.before
        else delete fb[entry.wordIndex]
        e.feedback = fb
      } else await t.reload()
    } catch (err) {
      note.value = `undo failed: ${(err as Error).message}`
    }
  }

  return { note, act, undo }
}
