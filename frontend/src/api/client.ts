// The HTTP layer of the UI. It imports nothing from the stores: the app hands it the token and where
// to report requests and errors at start-up (configureClient, called by main.ts through wire.ts).

/** A failed request, as the status bar lists it. */
export interface RequestFailure {
  method: string
  path: string
  status: number
  message: string
}

export interface ClientConfig {
  /** the bearer token to send now ('' for none) */
  token: () => string
  /** a request starts; the returned function is called once when it settles */
  begin: (label: string) => () => void
  /** a request failed and the caller did not ask to show it inline (`quiet`) */
  onError: (failure: RequestFailure) => void
}

const config: ClientConfig = {
  token: () => '',
  begin: () => () => undefined,
  onError: () => undefined,
}

/** Set what the client needs from the app (token, pending-request and error sinks). */
export function configureClient(c: Partial<ClientConfig>): void {
  Object.assign(config, c)
}

/** The token requests send now: for the routes that take it as a query parameter (EventSource). */
export function currentToken(): string {
  return config.token()
}

export class ApiError extends Error {
  constructor(
    public status: number,
    message: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>

export function withQuery(path: string, query?: Query): string {
  if (!query) return path
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue
    q.set(k, String(v))
  }
  const s = q.toString()
  return s ? `${path}?${s}` : path
}

/** The API's `{"detail": ...}` as one readable line (FastAPI validation errors are lists). */
export function detailText(body: unknown, fallback: string): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const d = (body as { detail: unknown }).detail
    if (typeof d === 'string') return d
    if (Array.isArray(d)) {
      return d
        .map((x) => {
          const loc = Array.isArray(x?.loc) ? x.loc.filter((p: unknown) => p !== 'body').join('.') : ''
          return loc ? `${loc}: ${x?.msg ?? ''}` : String(x?.msg ?? JSON.stringify(x))
        })
        .join('; ')
    }
    return JSON.stringify(d)
  }
  return fallback
}

interface Options {
  query?: Query
  json?: unknown
  form?: FormData
  /** don't show in the status bar's error list (the caller shows it inline) */
  quiet?: boolean
}

export async function request<T>(method: string, path: string, opts: Options = {}): Promise<T> {
  const url = withQuery(path, opts.query)
  const headers: Record<string, string> = { Accept: 'application/json' }
  const token = config.token()
  if (token) headers.Authorization = `Bearer ${token}`
  let body: BodyInit | undefined
  if (opts.form) body = opts.form
  else if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = JSON.stringify(opts.json)
  }
  const done = config.begin(`${method} ${path}`)
  try {
    let res: Response
    try {
      res = await fetch(url, { method, headers, body })
    } catch (e) {
      throw new ApiError(0, `the API cannot be reached (${(e as Error).message})`)
    }
    if (!res.ok) {
      let parsed: unknown = null
      try {
        parsed = await res.json()
      } catch {
        /* not JSON: use the status text */
      }
      throw new ApiError(res.status, detailText(parsed, `${res.status} ${res.statusText}`))
    }
    if (res.status === 204) return undefined as T
    const text = await res.text()
    return (text ? JSON.parse(text) : undefined) as T
  } catch (e) {
    const err = e instanceof ApiError ? e : new ApiError(0, (e as Error).message)
    if (!opts.quiet) config.onError({ method, path, status: err.status, message: err.message })
    throw err
  } finally {
    done()
  }
}

export const http = {
  get: <T>(path: string, query?: Query, o: Options = {}) => request<T>('GET', path, { ...o, query }),
  post: <T>(path: string, json?: unknown, o: Options = {}) => request<T>('POST', path, { ...o, json }),
  put: <T>(path: string, json?: unknown, o: Options = {}) => request<T>('PUT', path, { ...o, json }),
  del: <T>(path: string, o: Options = {}) => request<T>('DELETE', path, o),
  form: <T>(path: string, form: FormData, o: Options = {}) => request<T>('POST', path, { ...o, form }),
}
