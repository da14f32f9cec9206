// The open project: its datasets, versions and the version/method the explanation screens show.
import { computed, reactive } from 'vue'
import { api } from '../api/endpoints'
import type { Dataset, Job, ModelVersion, Project, WorkerNotice } from '../api/types'

export const METHODS = ['grad_x_input', 'integrated_gradients', 'saliency', 'occlusion'] as const

export const current = reactive({
  pid: 0,
  project: null as Project | null,
  datasets: [] as Dataset[],
  versions: [] as ModelVersion[],
  versionId: null as number | null,
  method: '' as string,
  error: '',
  /** queued or running jobs of the project (polled by the project shell) */
  activeJobs: [] as Job[],
  /** embedded workers of `xmd serve` that died lately and their restarts (shown above the jobs) */
  workerNotices: [] as WorkerNotice[],
  /** bumped when a job of the project ends: screens that show stored results reload */
  dataVersion: 0,
})

export const labels = computed(() => current.project?.labels ?? [])
export const trainSets = computed(() => current.datasets.filter((d) => d.role === 'train'))
export const evalSets = computed(() => current.datasets.filter((d) => d.role === 'eval'))
export const readyVersions = computed(() => current.versions.filter((v) => v.status === 'ready'))
export const selectedVersion = computed(() => current.versions.find((v) => v.id === current.versionId) ?? null)

/** Query parameters every explanation route takes. */
export function viewQuery(): { version_id?: number; method?: string } {
  return { version_id: current.versionId ?? undefined, method: current.method || undefined }
}

export function versionLabel(v: ModelVersion | null | undefined): string {
  if (!v) return '–'
  const name = v.name && v.name !== `v${v.version}` && v.name !== 'base' ? ` · ${v.name}` : ''
  return `v${v.version}${name}${v.kind === 'base' ? ' (base)' : ''}`
}

// Bumped by every write of the project from a response (setProject), so that a load that started
// earlier does not put back the older project it fetched (e.g. over a base model just recorded).
let projectWrites = 0

/** The project as a write (rename, base model) answered it. */
export function setProject(p: Project): void {
  projectWrites++
  current.project = p
}

export async function loadProject(pid: number): Promise<void> {
  const writes = projectWrites
  if (current.pid !== pid) {
    current.pid = pid
    current.project = null
    current.datasets = []
    current.versions = []
    current.versionId = null
  }
  current.error = ''
  try {
    const [p, ds] = await Promise.all([api.project(pid), api.datasets(pid)])
    current.datasets = ds
    await refreshVersions()
    // last: the screens render once everything they read is there; a write meanwhile is newer
    if (projectWrites === writes || current.project?.id !== p.id) current.project = p
  } catch (e) {
    current.error = (e as Error).message
  }
}

/** Poll the project's jobs; when one ends, refresh versions and tell the screens to reload. */
export async function pollJobs(): Promise<void> {
  const pid = current.pid
  const { jobs, workers } = await api.jobsWithWorkers(pid, true)
  if (pid !== current.pid) return
  current.workerNotices = workers
  const active = jobs.filter((j) => j.status === 'queued' || j.status === 'running')
  const ended = current.activeJobs.some((j) => !active.some((a) => a.id === j.id))
  current.activeJobs = active
  if (ended) {
    current.dataVersion++
    await refreshVersions()
  }
}

export async function refreshDatasets(): Promise<void> {
  current.datasets = await api.datasets(current.pid)
}

export async function refreshVersions(): Promise<void> {
  const vs = await api.versions(current.pid)
  current.versions = [...vs].sort((a, b) => a.version - b.version)
  if (!current.versions.some((v) => v.id === current.versionId)) {
    const ready = current.versions.filter((v) => v.status === 'ready')
    current.versionId = ready.length ? ready[ready.length - 1].id : (current.versions[0]?.id ?? null)
  }
}
