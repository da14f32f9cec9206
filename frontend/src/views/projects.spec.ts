// The project list while `xmd serve --demo` prepares the demo project (a job of no project): its phase,
// steps and time left show at once, and the project is listed, with a link, once the job has made it.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: { projects: vi.fn(), allJobs: vi.fn(), job: vi.fn(), metrics: vi.fn(), jobEventsUrl: vi.fn() },
}))

import { api } from '../api/endpoints'
import type { Project } from '../api/types'
import { auth } from '../stores/auth'
import * as fx from '../testing/fixtures'
import ProjectsView from './ProjectsView.vue'

const A = vi.mocked(api)
const DEMO = 'demo: spielberg shortcut'

function router() {
  return createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })
}

const running = fx.job({
  id: 'prep-1',
  kind: 'prepare_demo',
  status: 'running',
  project_id: null,
  progress: 15,
  started_at: new Date().toISOString(),
  phase: 'fine-tuning MiniLM',
  phase_done: 37,
  phase_total: 250,
  phase_unit: 'steps',
  eta_s: 300,
})

describe('ProjectsView and the demo preparation', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    vi.stubGlobal('EventSource', undefined) // poll, as without server-sent events
    auth.me = fx.me({ id: 1, name: 'admin', role: 'admin' })
  })

  it('shows the preparation with its phase and ETA, then the demo project', async () => {
    const demo = { id: 7, name: DEMO, labels: ['negative', 'positive'], description: '' } as unknown as Project
    A.projects.mockResolvedValueOnce([]).mockResolvedValue([demo])
    A.allJobs.mockResolvedValue([running])
    A.job.mockResolvedValueOnce(running).mockResolvedValue({
      ...running,
      status: 'succeeded',
      progress: 100,
      phase: null,
      result: { project_id: 7, project_name: DEMO, explain_job_id: 'x' },
    })
    A.metrics.mockResolvedValue([])
    const r = router()
    const w = mount(ProjectsView, { global: { plugins: [r] } })
    await flushPromises()
    expect(A.allJobs).toHaveBeenCalledWith({ kind: 'prepare_demo', limit: 1 })
    const prep = w.get('[data-testid="demo-prep"]')
    expect(prep.text()).toContain('Preparing the demo project')
    expect(prep.get('[data-testid="job-phase"]').text()).toMatch(/fine-tuning MiniLM\s+37 \/ 250 steps/)
    expect(prep.get('[data-testid="job-times"]').text()).toContain('about 5 min left')
    expect(w.text()).not.toContain('No projects yet')
    await vi.waitFor(async () => {
      await flushPromises()
      expect(w.find('[data-testid="demo-ready"]').exists()).toBe(true)
    }, { timeout: 5000 })
    expect(w.find(`[data-project="${DEMO}"]`).exists()).toBe(true)
    expect(w.get('[data-testid="demo-ready"] a').attributes('href')).toContain('/p/7')
    w.unmount()
  })

  it('says how to resume a preparation that stopped', async () => {
    A.projects.mockResolvedValue([])
    A.allJobs.mockResolvedValue([{ ...running, status: 'failed', error: 'the server stopped before the demo project was ready' }])
    const w = mount(ProjectsView, { global: { plugins: [router()] } })
    await flushPromises()
    const prep = w.get('[data-testid="demo-prep"]')
    expect(prep.text()).toContain('the server stopped before the demo project was ready')
    expect(prep.text()).toContain('Restart xmd serve --demo')
    expect(A.job).not.toHaveBeenCalled()
    w.unmount()
  })
})
