import { reactive } from 'vue'

// Pending requests and recent errors, shown by the status bar (like LIT's).
export interface RequestError {
  id: number
  at: Date
  method: string
  path: string
  status: number
  message: string
}

export const status = reactive({
  pending: 0,
  pendingLabels: [] as string[],
  errors: [] as RequestError[],
})

let nextId = 1

export function beginRequest(label: string): () => void {
  status.pending++
  status.pendingLabels.push(label)
  let done = false
  return () => {
    if (done) return
    done = true
    status.pending--
    const i = status.pendingLabels.indexOf(label)
    if (i >= 0) status.pendingLabels.splice(i, 1)
  }
}

export function recordError(e: Omit<RequestError, 'id' | 'at'>): void {
  status.errors.unshift({ ...e, id: nextId++, at: new Date() })
  // Keep the bar cheap: only the latest errors matter to a person.
  if (status.errors.length > 50) status.errors.length = 50
}

export function clearErrors(): void {
  status.errors.splice(0)
}
