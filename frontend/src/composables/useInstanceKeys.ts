// The instance screen's keys: ↑/↓ (j/k) example, ←/→ word, a/r/0 add/remove/reset, u or Ctrl+Z undo.
import type { Ref } from 'vue'
import type { Action } from '../api/types'
import { useKeys } from './useKeys'

export interface InstanceKeyActions {
  activeWord: Ref<number | null>
  moveExample: (delta: number) => void
  moveWord: (delta: number) => void
  act: (index: number, action: Action) => void
  undo: () => void
}

export function useInstanceKeys(k: InstanceKeyActions): void {
  useKeys((e) => {
    const key = e.key
    if ((e.ctrlKey && key.toLowerCase() === 'z') || (!e.ctrlKey && key === 'u')) {
      e.preventDefault()
      return k.undo()
    }
    if (e.ctrlKey) return
    if (key === 'ArrowDown' || key === 'j') {
      e.preventDefault()
      k.moveExample(1)
    } else if (key === 'ArrowUp' || key === 'k') {
      e.preventDefault()
      k.moveExample(-1)
    } else if (key === 'ArrowRight') {
      e.preventDefault()
      k.moveWord(1)
    } else if (key === 'ArrowLeft') {
      e.preventDefault()
      k.moveWord(-1)
    } else if ((key === 'a' || key === 'r' || key === '0') && k.activeWord.value !== null) {
      e.preventDefault()
      k.act(k.activeWord.value, key === 'a' ? 'add' : key === 'r' ? 'remove' : 'reset')
    }
  })
}
