import { flushPromises } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ref } from 'vue'
import { api } from '../api/endpoints'
import type { Job } from '../api/types'
import { useJob } from './useJob'

/** A stand-in for the browser's EventSource: the test fires the server's events by hand. */
class FakeSource {
  static all: FakeSource[] = []
  listeners: Record<string, ((ev: MessageEvent) => void)[]> = {}
  closed = false
  onerror: (() => void) | null = null
  constructor(public url: string) {
    FakeSource.all.push(this)
  }
  addEventListener(name: string, fn: (ev: MessageEvent) => void) {
    ;(this.listeners[name] ??= []).push(fn)
  }
  emit(name: string, data: unknown) {
    for (const fn of this.listeners[name] ?? []) fn({ data: JSON.stringify(data) } as MessageEvent)
  }
  close() {
    this.closed = true
  }
}

function deferred<T>() {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((res) => (resolve = res))
  return { promise, resolve }
}

const job = (id: string, status: string) => ({ id, status, kind: 'retrain', progress: 100 }) as unknown as Job

afterEach(() => {
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
  FakeSource.all = []
})

describe('useJob', () => {
  it('a job shown before a new one, ending late, does not end the new one', async () => {
    vi.stubGlobal('EventSource', FakeSource)
    const late = deferred<never[]>()
    vi.spyOn(api, 'metrics').mockImplementationOnce(() => late.promise).mockResolvedValue([])
    const ended: string[] = []
    const id = ref<string | null>('old')
    useJob(id, { onEnd: (j) => ended.push(j.id) })
    FakeSource.all[0].emit('job', job('old', 'succeeded')) // its last metrics are still being read
    id.value = 'new'
    await flushPromises()
    late.resolve([])
    await flushPromises()
    expect(ended).toEqual([]) // the old job's late answer ended nothing
    FakeSource.all[1].emit('job', job('new', 'succeeded'))
    await flushPromises()
    expect(ended).toEqual(['new'])
  })

  it("a stream that ends reads the job's final row and ends once", async () => {
    vi.stubGlobal('EventSource', FakeSource)
    vi.spyOn(api, 'job').mockResolvedValue(job('a', 'failed'))
    const ended: string[] = []
    const t = useJob(ref('a'), { onEnd: (j) => ended.push(`${j.id}:${j.status}`) })
    FakeSource.all[0].emit('end', { status: 'failed' })
    await flushPromises()
    expect(ended).toEqual(['a:failed'])
    expect(t.job.value?.status).toBe('failed')
  })
})
