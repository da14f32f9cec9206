// The UI's composition root for the API client: the one module that knows both the client and the
// stores, so api/ never imports stores/ (main.ts calls this once; specs that use the real client too).
import { configureClient } from './api/client'
import { auth } from './stores/auth'
import { beginRequest, recordError } from './stores/status'

export function wireApi(): void {
  configureClient({ token: () => auth.token, begin: beginRequest, onError: recordError })
}
