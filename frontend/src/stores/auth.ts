import { reactive } from 'vue'
import { api } from '../api/endpoints'
import type { Me } from '../api/types'

const KEY = 'xmd.token'

export const auth = reactive({
  token: '' as string,
  me: null as Me | null,
})

/**
 * Take `#token=...` from the URL (how `make demo` opens the UI), keep it in localStorage and
 * strip it from the address bar so it is not left in history or screenshots.
 */
export function initAuth(loc: Location = window.location, hist: History = window.history): void {
  const m = /(?:^#|[#&?])token=([^&]+)/.exec(loc.hash)
  if (m) {
    setToken(decodeURIComponent(m[1]))
    // `xmd serve --demo` adds &project=<id>: open that project directly
    const project = /[#&?]project=(\d+)/.exec(loc.hash)?.[1]
    hist.replaceState(hist.state, '', loc.pathname + loc.search + (project ? `#/p/${project}` : '#/'))
  } else {
    auth.token = localStorage.getItem(KEY) ?? ''
  }
}

export function setToken(token: string): void {
  auth.token = token.trim()
  if (auth.token) localStorage.setItem(KEY, auth.token)
  else localStorage.removeItem(KEY)
}

/** Keep the token only if the API accepts it (the previous one stays otherwise; the error goes on). */
export async function signIn(token: string): Promise<void> {
  const previous = auth.token
  setToken(token)
  try {
    auth.me = await api.me()
  } catch (e) {
    setToken(previous)
    throw e
  }
}

export function logout(): void {
  setToken('')
  auth.me = null
}

const RANK: Record<string, number> = { viewer: 0, annotator: 1, reviewer: 2, admin: 3 }

/** Whether the signed-in user has ``role`` or a role above it (viewer < annotator < reviewer < admin). */
export function can(role: 'annotator' | 'reviewer' | 'admin'): boolean {
  const r = auth.me?.role
  if (!r) return false
  return (RANK[r] ?? -1) >= RANK[role]
}
