// Issue 30 §6: a cancelled retrain's version reads "cancelled", not "failed", in the version selector
// above every screen (the API gives the status: tests/api/test_cancelled_version.py). The selector shows
// a version that is not ready with its status, disabled.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: { project: vi.fn(), datasets: vi.fn(), versions: vi.fn(), jobsWithWorkers: vi.fn() },
}))

import { api } from '../api/endpoints'
import type { ModelVersion, Project } from '../api/types'
import { current } from '../stores/project'
import ProjectShell from './ProjectShell.vue'

const A = vi.mocked(api)
const version = (id: number, n: number, status: string) =>
  ({ id, version: n, name: `v${n}`, kind: n === 1 ? 'base' : 'debugged', status, parent_id: n === 1 ? null : 1, metrics: {}, config: {} }) as unknown as ModelVersion

beforeEach(() => {
  vi.clearAllMocks()
  Object.assign(current, { pid: 0, project: null, versions: [], versionId: null, activeJobs: [], workerNotices: [] })
  A.project.mockResolvedValue({ id: 4, name: 'demo', labels: ['a', 'b'] } as unknown as Project)
  A.datasets.mockResolvedValue([])
  A.versions.mockResolvedValue([version(1, 1, 'ready'), version(2, 2, 'cancelled'), version(3, 3, 'failed')])
  A.jobsWithWorkers.mockResolvedValue({ jobs: [], workers: [] })
})

describe('the version selector', () => {
  it('says a cancelled retrain is cancelled, a failed one failed, and offers neither', async () => {
    const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })
    const w = mount(ProjectShell, { props: { pid: 4 }, global: { plugins: [router] } })
    await flushPromises()
    const options = w.findAll('[data-testid=version-select] option')
    expect(options.map((o) => o.text())).toEqual(['v1 (base)', 'v2 (cancelled)', 'v3 (failed)'])
    expect(options.map((o) => (o.element as HTMLOptionElement).disabled)).toEqual([false, true, true])
    w.unmount()
  })
})
