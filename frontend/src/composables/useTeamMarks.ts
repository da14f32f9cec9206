// Everyone's marks on the selected example, as the reader may see them (blind mode hides the others'
// until "done"), refreshed every few seconds so that two people on one example see each other's
// clicks without reloading; and the reader's own marks' changes (`reload`) are picked up at once.
import { getCurrentInstance, onBeforeUnmount, ref, watch, type Ref } from 'vue'
import { teamApi, type ExampleMarks, type PersonMark } from '../api/team'

export const POLL_MS = 4000

export function useTeamMarks(example: Ref<{ id: number } | null>, pollMs = POLL_MS) {
  const marks = ref<ExampleMarks | null>(null)
  const error = ref('')
  const busy = ref(false)

  async function load() {
    const ex = example.value
    if (!ex) {
      marks.value = null
      return
    }
    try {
      const got = await teamApi.marks(ex.id)
      if (example.value?.id === ex.id) marks.value = got
      error.value = ''
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e)
    }
  }

  async function done() {
    const ex = example.value
    if (!ex) return
    busy.value = true
    try {
      await teamApi.done(ex.id)
      await load()
    } finally {
      busy.value = false
    }
  }

  /** The others' marks (the reader's own are on the text itself). */
  function others(): PersonMark[] {
    return (marks.value?.items ?? []).filter((m) => !m.mine)
  }

  watch(() => example.value?.id, () => void load(), { immediate: true })
  if (pollMs > 0 && getCurrentInstance()) {
    const timer = setInterval(() => void load(), pollMs)
    onBeforeUnmount(() => clearInterval(timer))
  }

  return { marks, error, busy, load, done, others }
}
