// The forecast job of the Retrain screen (issue 30 §2): start it, follow it live like any job, keep the
// finished job so its result can be shown. The screen's ForecastPanel draws it from props.
import { ref } from 'vue'
import { api } from '../api/endpoints'
import type { ForecastParams, Job } from '../api/types'
import { cancel as cancelJob } from '../stores/jobs'
import { useJob } from './useJob'

export function useForecast(pid: () => number) {
  const jobId = ref<string | null>(null)
  const error = ref('')
  const done = ref<Job | null>(null)
  const { job } = useJob(jobId, { onEnd: (j) => (done.value = j) })

  async function start(body: ForecastParams) {
    error.value = ''
    done.value = null
    try {
      jobId.value = (await api.forecastJob(pid(), body)).id
    } catch (e) {
      error.value = (e as Error).message
    }
  }

  async function cancel() {
    if (jobId.value) await cancelJob(jobId.value)
  }

  return { job, done, error, start, cancel }
}
