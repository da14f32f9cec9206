// Session undo for feedback clicks: each entry knows what the word had before, so undo restores
// it exactly (a reset when there was nothing), through the same API the click used.
import { reactive } from 'vue'
import { api } from '../api/endpoints'
import type { Action, Mark, Scope } from '../api/types'

export type UndoEntry =
  | {
      kind: 'instance'
      exampleId: number
      /** the id every screen shows (the example's id in its file, `train-7`) */
      exampleRef: string
      wordIndex: number
      word: string
      before: Mark | null
      after: Action
    }
  | { kind: 'task'; pid: number; word: string; label: number | null; scope: Scope; before: Mark | null; after: Action }

export const undoStack = reactive<UndoEntry[]>([])

// Feedback writes and undos run one after another, in the order they were asked for: a quick
// "a" then "u" must undo that add, and two clicks on a word must reach the API in order.
let chain: Promise<unknown> = Promise.resolve()
export function serial<T>(fn: () => Promise<T>): Promise<T> {
  const run = chain.then(fn, fn)
  chain = run.catch(() => undefined)
  return run
}

export function pushUndo(e: UndoEntry): void {
  undoStack.push(e)
  if (undoStack.length > 200) undoStack.shift()
}

/** Revert the latest click; returns the entry (for the view to refresh what it shows) or null. */
export function undoLast(): Promise<UndoEntry | null> {
  return serial(undoNow)
}

async function undoNow(): Promise<UndoEntry | null> {
  const e = undoStack.pop()
  if (!e) return null
  const action: Action = e.before ?? 'reset'
  try {
    if (e.kind === 'instance') await api.setFeedback(e.exampleId, e.wordIndex, action)
    else await api.setTaskFeedback(e.pid, { word: e.word, action, label: e.label, scope: e.scope })
  } catch (err) {
    undoStack.push(e)
    throw err
  }
  return e
}

export function describeUndo(e: UndoEntry): string {
  const where = e.kind === 'instance' ? `in example ${e.exampleRef}` : `across the task (${e.scope})`
  return `${e.after} “${e.word}” ${where}`
}
