import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: {
    feedback: vi.fn(),
    feedbackEvents: vi.fn(),
    setFeedback: vi.fn(),
    setTaskFeedback: vi.fn(),
    exportFeedback: vi.fn(),
    importFeedback: vi.fn(),
    jobs: vi.fn(),
    retrainJob: vi.fn(),
    job: vi.fn(),
    metrics: vi.fn(),
    cancelJob: vi.fn(),
    versions: vi.fn(),
    pushJob: vi.fn(),
    downloadLink: vi.fn(),
  },
}))

import { api } from '../api/endpoints'
import type { FeedbackItem } from '../api/types'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import DeployView from './DeployView.vue'
import FeedbackView from './FeedbackView.vue'
import RetrainView from './RetrainView.vue'
import * as fx from '../testing/fixtures'
import { schemaDefaults } from '../api/defaults'

const A = vi.mocked(api)
const router = () =>
  createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })

beforeEach(() => {
  vi.clearAllMocks()
  auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
  Object.assign(current, {
    pid: 1,
    project: { id: 1, name: 'demo', labels: ['negative', 'positive'] },
    datasets: [
      { id: 5, name: 'train', role: 'train', n_examples: 100 },
      { id: 6, name: 'anti', role: 'eval', n_examples: 30 },
    ],
    versions: [{ id: 9, version: 1, name: 'base', kind: 'base', status: 'ready', parent_id: null, metrics: {} }],
    versionId: 9,
    method: '',
    activeJobs: [],
  })
})

describe('FeedbackView', () => {
  it('groups feedback by word with who and when, and resets one item', async () => {
    A.feedback.mockResolvedValue({
      items: [
        fx.feedback({ id: 1, level: 'instance', example_id: 4, example_ext_id: 'train-3', word_index: 0, word: 'spielberg', action: 'remove', updated_by: 'ann', updated_at: '2026-01-01T10:00:00Z' }),
        fx.feedback({ id: 2, level: 'task', word: 'spielberg', scope: 'all', label: null, action: 'remove', updated_by: 'bob', updated_at: '2026-01-01T11:00:00Z' }),
        fx.feedback({ id: 3, level: 'instance', example_id: 7, word_index: 2, word: 'superb', action: 'add', updated_by: 'ann', updated_at: '2026-01-01T12:00:00Z' }),
      ],
      total: 3,
      offset: 0,
      limit: 200,
    })
    A.setTaskFeedback.mockResolvedValue({})
    const w = mount(FeedbackView, { global: { plugins: [router()] } })
    await flushPromises()
    const rows = w.findAll('[data-testid=feedback-by-word] tbody tr')
    expect(rows).toHaveLength(3)
    expect(rows[0].text()).toContain('spielberg')
    // the id the example has in its file (what the export and every other screen show), not the database id
    expect(rows[0].text()).toContain('example train-3, word 0')
    expect(rows[1].text()).toContain('all examples (all predictions)')
    expect(rows[1].text()).toContain('bob')
    expect(rows[2].text()).toContain('superb')
    await rows[1].find('button').trigger('click')
    await flushPromises()
    expect(A.setTaskFeedback).toHaveBeenCalledWith(1, { word: 'spielberg', action: 'reset', label: null, scope: 'all' })
    expect(A.feedback).toHaveBeenCalledTimes(2)
  })

  it('shows the history newest first and pages back with before_id', async () => {
    A.feedback.mockResolvedValue({ items: [], total: 0, offset: 0, limit: 200 })
    const ev = (id: number): FeedbackItem => fx.feedback({ id, level: 'instance', example_id: 4, word_index: 0, word: `w${id}`, action: 'remove', user: 'ann', created_at: '2026-01-01T10:00:00Z' })
    const newest = Array.from({ length: 100 }, (_, i) => ev(250 - i)) // 250 … 151
    A.feedbackEvents.mockResolvedValueOnce(newest).mockResolvedValueOnce([ev(150), ev(149)])
    const w = mount(FeedbackView, { global: { plugins: [router()] } })
    await flushPromises()
    await w.find('[role=tab]:nth-child(3)').trigger('click')
    await flushPromises()
    expect(A.feedbackEvents).toHaveBeenCalledTimes(1)
    expect(A.feedbackEvents).toHaveBeenLastCalledWith(1, { order: 'desc', limit: 100, before_id: undefined })
    let rows = w.findAll('[data-testid=feedback-history] tbody tr')
    expect(rows).toHaveLength(100)
    expect(rows[0].text()).toContain('w250')
    expect(rows[99].text()).toContain('w151')
    await w.find('[data-testid=history-older]').trigger('click')
    await flushPromises()
    expect(A.feedbackEvents).toHaveBeenLastCalledWith(1, { order: 'desc', limit: 100, before_id: 151 })
    rows = w.findAll('[data-testid=feedback-history] tbody tr')
    expect(rows).toHaveLength(102)
    expect(rows[101].text()).toContain('w149')
    // a short page is the oldest one
    expect(w.find('[data-testid=history-older]').exists()).toBe(false)
    expect(w.find('[data-testid=history-count]').text()).toBe('latest 102 event(s)')
  })

  it('shows why an import was refused', async () => {
    A.feedback.mockResolvedValue({ items: [], total: 0, offset: 0, limit: 200 })
    A.importFeedback.mockRejectedValue(new Error('not a feedback file: instance'))
    const w = mount(FeedbackView, { global: { plugins: [router()] } })
    await flushPromises()
    const input = w.find('#fb-file')
    const file = new File(['{"instance": 3}'], 'fb.json', { type: 'application/json' })
    Object.defineProperty(input.element, 'files', { value: [file] })
    await input.trigger('change')
    // FileReader answers in a later task, not a microtask
    await vi.waitFor(() => expect(A.importFeedback).toHaveBeenCalledWith(1, 5, { instance: 3 }))
    await flushPromises()
    expect(w.find('[role=alert]').text()).toBe('not a feedback file: instance')
  })
})

describe('RetrainView', () => {
  it('starts a retrain with the chosen λ, epochs and eval sets, and shows API errors inline', async () => {
    A.jobs.mockResolvedValue([])
    A.feedback.mockResolvedValue({ items: [], total: 2, offset: 0, limit: 1 })
    A.retrainJob.mockRejectedValueOnce(new Error('there is no feedback to train with yet'))
    A.retrainJob.mockResolvedValueOnce(fx.job({ id: 'j1', kind: 'retrain', status: 'queued', progress: 0 }))
    A.job.mockResolvedValue(fx.job({ id: 'j1', kind: 'retrain', status: 'running', progress: 25, step: 3, total_steps: 12 }))
    A.metrics.mockResolvedValue([fx.metric({ id: 1, step: 1, task_loss: 0.7, er_loss: 0.2, loss: 1.1 })])
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    expect(w.text()).toContain('2 piece(s) of feedback will be used.')
    await w.find('#rt-lam').setValue('0.5')
    await w.find('#rt-epochs').setValue('3')
    await w.find('form').trigger('submit')
    await flushPromises()
    // what the person did not touch is the server's default (from its schema), not a number of the UI's
    const D = schemaDefaults.RetrainIn
    expect(A.retrainJob).toHaveBeenCalledWith(
      1,
      expect.objectContaining({ version_id: 9, lam: 0.5, epochs: 3, eval_dataset_ids: [6], lr: D.lr, batch_size: D.batch_size, objective: D.objective }),
    )
    expect(w.find('[data-testid=retrain-error]').text()).toBe('there is no feedback to train with yet')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(w.find('[data-testid=job-status]').text()).toBe('running')
    expect(w.find('[role=progressbar]').attributes('aria-valuenow')).toBe('25')
    expect(w.findAll('path[data-series]').map((p) => p.attributes('data-series'))).toEqual(['task loss', 'total', 'ER loss'])
    w.unmount()
  })
})

describe('DeployView', () => {
  it('downloads through a short-lived signed link, with no API token in it and no fetch into memory', async () => {
    A.downloadLink.mockResolvedValue({ url: '/api/versions/9/download?link=7.99.abc', expires_at: '2026-01-01T00:00:00Z' })
    const clicked: HTMLAnchorElement[] = []
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this)
    })
    const w = mount(DeployView, { global: { plugins: [router()] } })
    await flushPromises()
    const button = w.find('button[data-testid=download]')
    expect(button.text()).toBe('Download v1 (base)')
    await button.trigger('click')
    await flushPromises()
    expect(A.downloadLink).toHaveBeenCalledWith(9)
    expect(clicked).toHaveLength(1)
    expect(clicked[0].getAttribute('href')).toBe('/api/versions/9/download?link=7.99.abc')
    expect(clicked[0].hasAttribute('download')).toBe(true)
    click.mockRestore()
  })

  it('shows why a version cannot be downloaded instead of starting a failed download', async () => {
    A.downloadLink.mockRejectedValue(new Error('the files of model version v1 are missing on the server'))
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click')
    const w = mount(DeployView, { global: { plugins: [router()] } })
    await flushPromises()
    await w.find('button[data-testid=download]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=download-error]').text()).toBe('the files of model version v1 are missing on the server')
    expect(click).not.toHaveBeenCalled()
    click.mockRestore()
  })
})
