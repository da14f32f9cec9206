import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

// Issue 31 §1: deleting a dataset that carries feedback asks first and says how many feedback entries go
// with it; nothing is deleted before the second click, and a refusal (409 under a running job) is shown.
vi.mock('../api/endpoints', () => ({
  api: { datasets: vi.fn(), deleteDataset: vi.fn(), project: vi.fn(), versions: vi.fn(), jobs: vi.fn() },
}))

import { api } from '../api/endpoints'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import * as fx from '../testing/fixtures'
import DataView from './DataView.vue'

const A = vi.mocked(api)
const datasets = [
  { id: 5, name: 'train', role: 'train', n_examples: 1200, n_feedback: 3, text_column: 'text', explained: [] },
  { id: 6, name: 'clean', role: 'eval', n_examples: 40, n_feedback: 0, text_column: 'text', explained: [] },
]
const router = () =>
  createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })

beforeEach(() => {
  vi.resetAllMocks()
  auth.me = fx.me({ id: 1, name: 'root', role: 'admin' })
  A.datasets.mockResolvedValue(datasets as never)
  Object.assign(current, { pid: 1, project: null, datasets, versions: [], versionId: null, method: '', activeJobs: [] })
})

describe('DataView: deleting a dataset', () => {
  it('says how many feedback entries go with it and deletes only on the second click', async () => {
    A.deleteDataset.mockRejectedValueOnce(new Error('dataset \'train\' cannot be deleted while 1 job(s) are unfinished'))
    const w = mount(DataView, { global: { plugins: [router()] } })
    await flushPromises()
    const row = (name: string) => w.find(`tr[data-dataset=${name}]`)
    await row('train').find('[data-testid=delete]').trigger('click')
    const note = row('train').find('[data-testid=what-goes]').text()
    expect(note).toContain('Delete dataset train: its 1,200 examples')
    expect(note).toContain('and 3 feedback entries on them (their history stays in the feedback event log)')
    expect(A.deleteDataset).not.toHaveBeenCalled()
    await row('train').find('[data-testid=confirm-delete]').trigger('click')
    await flushPromises()
    expect(A.deleteDataset).toHaveBeenCalledWith(5)
    expect(row('train').find('[role=alert]').text()).toContain('cannot be deleted while 1 job(s) are unfinished')
    await row('clean').find('[data-testid=delete]').trigger('click')
    expect(row('clean').find('[data-testid=what-goes]').text()).toContain('(no feedback is given on them)')
    w.unmount()
  })
})
