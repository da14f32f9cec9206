// How much of the training data a screen's ranking or list is built from (issue 15): the coverage the
// API reports under the version and method shown, the explain job filling in the rest, and "Explain all".
import { ref, watch } from 'vue'
import { api } from '../api/endpoints'
import type { Coverage, Job } from '../api/types'
import { current, pollJobs } from '../stores/project'
import { useAsync } from './useAsync'

/** The queued or running explain job for the coverage's version and method (the project's polled jobs,
 * else the one the API named when the page was read). */
export function jobFor(cov: Coverage | null | undefined): Job | null {
  if (!cov) return null
  const mine = (j: Job) =>
    j.kind === 'explain' && (j.id === cov.job_id || (j.params?.version_id === cov.version_id && j.params?.method === cov.method))
  return current.activeJobs.find(mine) ?? null
}

/** Start explaining every training set not yet fully explained under the coverage's version and method. */
export function useExplainAll(pid: () => number) {
  const state = useAsync()
  async function explainAll(cov: Coverage | null | undefined): Promise<void> {
    if (!cov) return
    await state.run(async () => {
      for (const d of cov.datasets) {
        if (d.explained < d.total) await api.explainJob(pid(), { dataset_id: d.dataset_id, version_id: cov.version_id, method: cov.method })
      }
      await pollJobs()
    })
  }
  return { explainAll, busy: state.busy, error: state.error }
}

export interface CoverageSource {
  pid: () => number
  query: () => { version_id?: number; method?: string }
  /** changes when the coverage must be read again (a job ended) */
  reloadKey: () => number
}

/** The coverage route, read again when the version, method or data change (for lists that do not carry it). */
export function useCoverage(src: CoverageSource) {
  const coverage = ref<Coverage | null>(null)
  const state = useAsync()
  async function load() {
    const got = await state.run(() => api.coverage(src.pid(), src.query()))
    coverage.value = got ? got.value : null
  }
  watch(() => [src.pid(), src.query().version_id, src.query().method, src.reloadKey()], load, { immediate: true })
  return { coverage, load }
}
