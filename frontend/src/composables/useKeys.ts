// Window-level shortcuts for a screen, ignored while the person types in a form field.
import { onBeforeUnmount, onMounted } from 'vue'

export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el || !el.tagName) return false
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.isContentEditable
}

export function useKeys(handler: (e: KeyboardEvent) => void): void {
  const listener = (e: KeyboardEvent) => {
    if (isTyping(e.target) || e.altKey || e.metaKey) return
    handler(e)
  }
  onMounted(() => window.addEventListener('keydown', listener))
  onBeforeUnmount(() => window.removeEventListener('keydown', listener))
}

export function debounce<A extends unknown[]>(fn: (...a: A) => void, ms: number): (...a: A) => void {
  let t: ReturnType<typeof setTimeout> | null = null
  return (...a: A) => {
    if (t) clearTimeout(t)
    t = setTimeout(() => fn(...a), ms)
  }
}
