// The explanation of the selected example under the version and method shown, and the word the
// keyboard is on. Reloads by example id, so a reloaded page with the same example keeps it.
import { ref, watch, type Ref } from 'vue'
import { api } from '../api/endpoints'
import type { ExampleRow, Explanation } from '../api/types'
import { useAsync } from './useAsync'

export function useExplanation(example: Ref<ExampleRow | null>, query: () => { version_id?: number; method?: string }) {
  const exp = ref<Explanation | null>(null)
  const activeWord = ref<number | null>(null)
  const state = useAsync()

  async function load() {
    const ex = example.value
    exp.value = null
    activeWord.value = null
    state.reset()
    if (!ex) return
    const got = await state.run(() => api.explanation(ex.id, query()))
    if (!got) return
    exp.value = got.value
    activeWord.value = 0
  }

  watch(() => [example.value?.id, query().version_id, query().method], load)

  return { exp, activeWord, busy: state.busy, error: state.error, load }
}
