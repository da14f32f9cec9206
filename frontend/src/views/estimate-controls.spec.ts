// The Retrain screen's estimate with controls (issue 30 §5): the wait until the new version is ready and the
// wait until its controls, which follow it as jobs of their own, are done.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: {
    feedback: vi.fn(),
    jobs: vi.fn(),
    retrainJob: vi.fn(),
    retrainEstimate: vi.fn(),
    job: vi.fn(),
    metrics: vi.fn(),
    cancelJob: vi.fn(),
    versions: vi.fn(),
  },
}))

import { api } from '../api/endpoints'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import * as fx from '../testing/fixtures'
import RetrainView from './RetrainView.vue'

const A = vi.mocked(api)
const router = () =>
  createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })

beforeEach(() => {
  vi.clearAllMocks()
  auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
  Object.assign(current, {
    pid: 1,
    project: { id: 1, name: 'demo', labels: ['negative', 'positive'] },
    datasets: [{ id: 5, name: 'train', role: 'train', n_examples: 100 }],
    versions: [{ id: 9, version: 1, name: 'base', kind: 'base', status: 'ready', parent_id: null, metrics: {} }],
    versionId: 9,
    method: '',
    activeJobs: [],
  })
  A.jobs.mockResolvedValue([])
  A.feedback.mockResolvedValue({ items: [], total: 2, offset: 0, limit: 1 })
  A.metrics.mockResolvedValue([])
})

describe('RetrainView estimate with controls', () => {
  it('says when the new version is ready and when its controls are done', async () => {
    A.retrainEstimate.mockResolvedValue({
      phases: [], expected_s: 380, measured_before: true, rates_from: 'retrain',
      controls_s: 300, until_controls_s: 680, control_runs: 2,
    } as never) // prettier-ignore
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    await vi.waitFor(() => expect(w.find('[data-testid=estimate-controls]').exists()).toBe(true), { timeout: 2000 })
    const text = w.find('[data-testid=estimate-controls]').text().replace(/\s+/g, ' ')
    expect(text).toContain('the new version is ready after about 6 min 20 s')
    expect(text).toContain('the 2 control jobs follow it (about 5 min more: all done after about 11 min 20 s)')
    w.unmount()
  })

  it('says nothing of controls without them', async () => {
    A.retrainEstimate.mockResolvedValue({ phases: [], expected_s: 380, measured_before: true, control_runs: 0 } as never)
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('Expected duration'), { timeout: 2000 })
    expect(w.find('[data-testid=estimate-controls]').exists()).toBe(false)
    w.unmount()
  })
})
