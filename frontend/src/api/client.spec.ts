import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { auth, initAuth, setToken, signIn } from '../stores/auth'
import { clearErrors, status } from '../stores/status'
import { ApiError, detailText, http, withQuery } from './client'
import { api } from './endpoints'
import { wireApi } from '../wire'

beforeAll(wireApi)

function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

describe('api client', () => {
  beforeEach(() => {
    setToken('secret-1')
    clearErrors()
  })
  afterEach(() => vi.unstubAllGlobals())

  it('drops empty query values', () => {
    expect(withQuery('/x', { a: 1, b: '', c: null, d: undefined, e: false })).toBe('/x?a=1&e=false')
  })

  it('sends the bearer token and counts the request as pending until it settles', async () => {
    let resolve!: (r: Response) => void
    const fetchMock = vi.fn(() => new Promise<Response>((r) => (resolve = r)))
    vi.stubGlobal('fetch', fetchMock)
    const p = http.get<{ ok: boolean }>('/api/me')
    expect(status.pending).toBe(1)
    resolve(reply(200, { ok: true }))
    expect(await p).toEqual({ ok: true })
    expect(status.pending).toBe(0)
    const init = (fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1]
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer secret-1')
  })

  it('turns {"detail": ...} into an ApiError and records it for the status bar', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => reply(422, { detail: 'labels must not be empty' })))
    await expect(http.post('/api/projects', {})).rejects.toMatchObject({ status: 422, message: 'labels must not be empty' })
    expect(status.errors[0]).toMatchObject({ method: 'POST', path: '/api/projects', status: 422 })
  })

  it('does not record errors of quiet requests (shown inline instead)', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => reply(409, { detail: 'exists' })))
    await expect(http.post('/api/x', {}, { quiet: true })).rejects.toBeInstanceOf(ApiError)
    expect(status.errors).toHaveLength(0)
  })

  it('builds event links with the token as a query parameter (EventSource cannot send headers)', () => {
    expect(api.jobEventsUrl('j1')).toBe('/api/jobs/j1/events?token=secret-1')
    setToken('a b/c')
    expect(api.jobEventsUrl('j1')).toBe('/api/jobs/j1/events?token=a+b%2Fc')
  })

  it('asks the server for a signed download link with the bearer header, not a token in a URL', async () => {
    const fetchMock = vi.fn(async () => reply(200, { url: '/api/versions/9/download?link=1.2.ab', expires_at: 'x' }))
    vi.stubGlobal('fetch', fetchMock)
    await expect(api.downloadLink(9)).resolves.toMatchObject({ url: '/api/versions/9/download?link=1.2.ab' })
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit]
    expect(url).toBe('/api/versions/9/download-link')
    expect(init.method).toBe('POST')
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer secret-1')
  })

  it('asks for the feedback history newest first and manages saved slices', async () => {
    const fetchMock = vi.fn(async () => reply(200, []))
    vi.stubGlobal('fetch', fetchMock)
    await api.feedbackEvents(3, { order: 'desc', limit: 100, before_id: 42 })
    await api.slices(3)
    await api.saveSlice(3, { name: 'wrong', dataset_id: 5, filters: { correctness: 'incorrect' } })
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 204 }))
    await api.deleteSlice(3, 'a/b c')
    const calls = fetchMock.mock.calls as unknown as [string, RequestInit][]
    expect(calls.map(([url, init]) => `${init.method} ${url}`)).toEqual([
      'GET /api/projects/3/feedback/events?order=desc&limit=100&before_id=42',
      'GET /api/projects/3/slices',
      'POST /api/projects/3/slices',
      'DELETE /api/projects/3/slices/a%2Fb%20c',
    ])
    expect(JSON.parse(String(calls[2][1].body))).toEqual({ name: 'wrong', dataset_id: 5, filters: { correctness: 'incorrect' } })
  })

  it('reads FastAPI validation errors as one line', () => {
    const body = { detail: [{ loc: ['body', 'lam'], msg: 'must be >= 0' }, { loc: ['query', 'limit'], msg: 'too big' }] }
    expect(detailText(body, 'x')).toBe('lam: must be >= 0; query.limit: too big')
    expect(detailText('oops', 'fallback')).toBe('fallback')
  })
})

describe('auth', () => {
  it('takes the token from the URL fragment, keeps it and strips it from the address bar', () => {
    localStorage.clear()
    const replaceState = vi.fn()
    initAuth(
      { hash: '#token=abc%2Fdef', pathname: '/', search: '' } as Location,
      { state: null, replaceState } as unknown as History,
    )
    expect(auth.token).toBe('abc/def')
    expect(localStorage.getItem('xmd.token')).toBe('abc/def')
    expect(replaceState).toHaveBeenCalledWith(null, '', '/#/')
  })

  it('opens the project the demo link names', () => {
    const replaceState = vi.fn()
    initAuth(
      { hash: '#token=t1&project=7', pathname: '/', search: '' } as Location,
      { state: null, replaceState } as unknown as History,
    )
    expect(auth.token).toBe('t1')
    expect(replaceState).toHaveBeenCalledWith(null, '', '/#/p/7')
  })

  it('signs in with a token the API accepts and keeps the previous one when it refuses', async () => {
    setToken('old')
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) =>
      new Headers(init.headers).get('Authorization') === 'Bearer good' ? reply(200, { id: 3, name: 'ann', role: 'admin', created_at: 'x' }) : reply(401, { detail: 'invalid or revoked token' }),
    )
    vi.stubGlobal('fetch', fetchMock)
    await expect(signIn('bad')).rejects.toMatchObject({ status: 401, message: 'invalid or revoked token' })
    expect(auth.token).toBe('old')
    await signIn('good')
    expect(auth.token).toBe('good')
    expect(auth.me?.name).toBe('ann')
    vi.unstubAllGlobals()
  })

  it('falls back to the stored token', () => {
    localStorage.setItem('xmd.token', 'stored')
    initAuth({ hash: '#/p/1', pathname: '/', search: '' } as Location, { state: null, replaceState: vi.fn() } as unknown as History)
    expect(auth.token).toBe('stored')
  })
})
