// Follow one job live: server-sent events when the browser has them, polling otherwise
// (and as a fallback when the stream breaks before the job ends).
import { onBeforeUnmount, ref, watch, type Ref } from 'vue'
import { api } from '../api/endpoints'
import type { Job, MetricPoint } from '../api/types'
import { remember } from '../stores/jobs'

export const FINISHED = new Set(['succeeded', 'failed', 'cancelled'])

export interface JobTracker {
  job: Ref<Job | null>
  points: Ref<MetricPoint[]>
  live: Ref<'sse' | 'poll' | 'idle'>
  stop: () => void
}

export function useJob(jobId: Ref<string | null>, opts: { pollMs?: number; onEnd?: (job: Job) => void } = {}): JobTracker {
  const job = ref<Job | null>(null)
  const points = ref<MetricPoint[]>([])
  const live = ref<'sse' | 'poll' | 'idle'>('idle')
  const pollMs = opts.pollMs ?? 1000
  let source: EventSource | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  let generation = 0
  let ended = false

  function addPoints(raw: unknown) {
    const list = (Array.isArray(raw) ? raw : [raw]) as MetricPoint[]
    const seen = new Set(points.value.map((p) => p.id))
    const fresh = list.filter((p) => p && typeof p.step === 'number' && !seen.has(p.id))
    if (fresh.length) points.value = [...points.value, ...fresh].sort((a, b) => a.step - b.step || a.id - b.id)
  }

  function finish(j: Job) {
    if (ended) return
    ended = true
    stop()
    opts.onEnd?.(j)
  }

  function stop() {
    generation++
    source?.close()
    source = null
    if (timer) clearTimeout(timer)
    timer = null
    live.value = 'idle'
  }

  async function poll(gen: number, id: string) {
    if (gen !== generation) return
    live.value = 'poll'
    try {
      const after = points.value.length ? points.value[points.value.length - 1].id : undefined
      const [j, ms] = await Promise.all([api.job(id), api.metrics(id, after)])
      if (gen !== generation) return
      job.value = remember(j)
      addPoints(ms)
      if (FINISHED.has(j.status)) return finish(j)
    } catch {
      /* shown in the status bar; keep trying */
    }
    if (gen === generation) timer = setTimeout(() => poll(gen, id), pollMs)
  }

  function start(id: string) {
    stop()
    ended = false
    job.value = null
    points.value = []
    const gen = generation
    if (typeof EventSource === 'undefined') return void poll(gen, id)
    const es = new EventSource(api.jobEventsUrl(id))
    source = es
    live.value = 'sse'
    es.addEventListener('job', (ev) => {
      const j = JSON.parse((ev as MessageEvent).data) as Job
      job.value = remember({ ...(job.value ?? {}), ...j })
      if (FINISHED.has(j.status)) {
        // the metrics may still be arriving: read the rest once, then stop
        // only while this job is still the one followed: a late answer must not end the next job
        void api
          .metrics(id)
          .then((ms) => gen === generation && addPoints(ms))
          .finally(() => gen === generation && finish(job.value as Job))
      }
    })
    es.addEventListener('metric', (ev) => addPoints(JSON.parse((ev as MessageEvent).data)))
    es.addEventListener('end', (ev) => {
      const data = (ev as MessageEvent).data
      if (data) {
        try {
          job.value = { ...(job.value ?? {}), ...(JSON.parse(data) as Job) }
        } catch {
          /* end without a body */
        }
      }
      es.close()
      // fetch the final row: 'end' may carry only a status
      void api
        .job(id)
        .then((j) => {
          if (gen === generation) job.value = remember(j)
        })
        .catch(() => undefined)
        .finally(() => gen === generation && job.value && finish(job.value))
    })
    es.onerror = () => {
      if (gen !== generation || ended) return
      es.close()
      source = null
      void poll(gen, id)
    }
  }

  watch(jobId, (id) => (id ? start(id) : stop()), { immediate: true })
  onBeforeUnmount(stop)
  return { job, points, live, stop }
}
