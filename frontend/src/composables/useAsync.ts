// Busy and error state of one kind of request, latest wins: a request started later makes an earlier
// one's answer stale, so a slow reply never overwrites a newer one (filters changed, next example).
import { ref, type Ref } from 'vue'

export interface AsyncState {
  busy: Ref<boolean>
  error: Ref<string>
  /** Run `fn`; its value, or null when it failed (the message is in `error`) or a later run superseded it. */
  run<T>(fn: () => Promise<T>): Promise<{ value: T } | null>
  /** Forget what is in flight (its answer will be dropped) and clear busy and error. */
  reset(): void
}

export function useAsync(): AsyncState {
  const busy = ref(false)
  const error = ref('')
  let seq = 0

  async function run<T>(fn: () => Promise<T>): Promise<{ value: T } | null> {
    const s = ++seq
    busy.value = true
    try {
      const value = await fn()
      if (s !== seq) return null
      error.value = ''
      return { value }
    } catch (e) {
      if (s === seq) error.value = (e as Error).message
      return null
    } finally {
      if (s === seq) busy.value = false
    }
  }

  function reset(): void {
    seq++
    busy.value = false
    error.value = ''
  }

  return { busy, error, run, reset }
}
