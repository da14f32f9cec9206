import { reactive } from 'vue'
import { api } from '../api/endpoints'
import type { Job } from '../api/types'

// Every job row the UI has seen, by id: the progress panel, the recent-jobs tables and the cancel button
// all read the job from here, so one screen never shows "running" while another says "queued 0 %".
export const jobs = reactive(new Map<string, Job>())

/** Keep the newest state of a job (a stream's partial update is merged into what is known). */
export function remember(job: Job): Job {
  const known = jobs.get(job.id)
  const merged = known ? { ...known, ...job } : job
  jobs.set(job.id, merged)
  return merged
}

/** The stored state of a job, else the row given (a list read before the store heard of it). */
export function latest(job: Job): Job {
  return jobs.get(job.id) ?? job
}

/** Ask a job to stop; the answer (``cancel_requested``) shows "cancelling…" everywhere at once. */
export async function cancel(jobId: string): Promise<Job> {
  const known = jobs.get(jobId)
  if (known) jobs.set(jobId, { ...known, cancel_requested: true })
  return remember(await api.cancelJob(jobId))
}
