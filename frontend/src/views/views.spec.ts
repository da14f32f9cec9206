import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h, ref } from 'vue'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: {
    examples: vi.fn(),
    slices: vi.fn(),
    saveSlice: vi.fn(),
    deleteSlice: vi.fn(),
    explanation: vi.fn(),
    setFeedback: vi.fn(),
    setTaskFeedback: vi.fn(),
    previewDataset: vi.fn(),
    uploadDataset: vi.fn(),
    job: vi.fn(),
    metrics: vi.fn(),
    jobEventsUrl: vi.fn(),
  },
}))

import { api } from '../api/endpoints'
import type { Job } from '../api/types'
import DatasetUpload from '../components/DatasetUpload.vue'
import { useJob } from '../composables/useJob'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import { undoStack } from '../stores/undo'
import InstanceView from './InstanceView.vue'
import * as fx from '../testing/fixtures'

const A = vi.mocked(api)

function router() {
  return createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })
}

const rows = [
  fx.example({ id: 11, text: 'spielberg made a great film', label: 1, prediction: { label: 1, probs: [0.1, 0.9], correct: true }, n_feedback: 0 }),
  fx.example({ id: 12, text: 'dull and slow', label: 0, prediction: { label: 0, probs: [0.8, 0.2], correct: true }, n_feedback: 0 }),
]
const explanationOf = (id: number) =>
  fx.explanation({
  words: id === 11 ? ['spielberg', 'made', 'a', 'great', 'film'] : ['dull', 'and', 'slow'],
  scores: id === 11 ? [0.5, 0.1, 0.0, 0.3, 0.1] : [0.6, 0.1, 0.3],
  shares: id === 11 ? [0.5, 0.1, 0.0, 0.3, 0.1] : [0.6, 0.1, 0.3],
  probs: id === 11 ? [0.1, 0.9] : [0.8, 0.2],
  prediction: id === 11 ? 1 : 0,
  target: id === 11 ? 1 : 0,
  feedback: {},
  taskMarks: {},
  })

describe('InstanceView', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    undoStack.splice(0)
    auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
    Object.assign(current, {
      pid: 1,
      project: { id: 1, name: 'demo', labels: ['negative', 'positive'] },
      datasets: [{ id: 5, name: 'train', role: 'train', n_examples: 2 }],
      versions: [{ id: 9, version: 1, name: 'base', kind: 'base', status: 'ready', parent_id: null, metrics: {} }],
      versionId: 9,
      method: '',
    })
    A.examples.mockResolvedValue({ items: rows, total: 2, offset: 0, limit: 20 })
    A.explanation.mockImplementation(async (id: number) => explanationOf(id))
    A.setFeedback.mockResolvedValue({})
    A.slices.mockResolvedValue([])
  })
  afterEach(() => {
    document.body.innerHTML = ''
  })

  async function mountView() {
    const r = router()
    const w = mount(InstanceView, { global: { plugins: [r] }, attachTo: document.body })
    await flushPromises()
    return w
  }

  it('lists correctly predicted examples by default and explains the first', async () => {
    const w = await mountView()
    expect(A.examples).toHaveBeenCalledWith(5, expect.objectContaining({ correctness: 'correct', offset: 0, limit: 20, version_id: 9 }))
    expect(w.findAll('[data-testid=example-list] li')).toHaveLength(2)
    expect(A.explanation).toHaveBeenCalledWith(11, { version_id: 9, method: undefined })
    expect(w.find('[data-testid=gold]').text()).toBe('positive')
    expect(w.find('[data-testid=prediction]').text()).toBe('positive')
    expect(w.findAll('.attributed button.w').map((b) => b.text())).toEqual(['spielberg', 'made', 'a', 'great', 'film'])
    w.unmount()
  })

  it('removes a word by click, shows the mark, and undoes it with u', async () => {
    const w = await mountView()
    await w.findAll('.attributed button.w')[0].trigger('click')
    await w.find('.word-popup button.remove').trigger('click')
    await flushPromises()
    expect(A.setFeedback).toHaveBeenCalledWith(11, 0, 'remove')
    const first = w.findAll('.attributed button.w')[0]
    expect(first.classes()).toContain('m-remove')
    expect(first.find('.mark').text()).toBe('✕')

    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'u' }))
    await flushPromises()
    expect(A.setFeedback).toHaveBeenLastCalledWith(11, 0, 'reset')
    expect(w.findAll('.attributed button.w')[0].classes()).toContain('m-none')
    w.unmount()
  })

  it('is driven by the keyboard: arrows move, a/r/0 act', async () => {
    const w = await mountView()
    const key = (k: string) => window.dispatchEvent(new KeyboardEvent('keydown', { key: k }))
    key('ArrowRight')
    key('ArrowRight')
    key('ArrowRight')
    await flushPromises()
    key('a')
    await flushPromises()
    expect(A.setFeedback).toHaveBeenLastCalledWith(11, 3, 'add')
    expect(w.findAll('.attributed button.w')[3].classes()).toContain('m-add')
    key('0')
    await flushPromises()
    expect(A.setFeedback).toHaveBeenLastCalledWith(11, 3, 'reset')
    key('ArrowDown')
    await flushPromises()
    expect(A.explanation).toHaveBeenLastCalledWith(12, expect.anything())
    expect(w.findAll('.attributed button.w').map((b) => b.text())).toEqual(['dull', 'and', 'slow'])
    w.unmount()
  })

  it('puts the mark back and says so when the API refuses', async () => {
    A.setFeedback.mockRejectedValueOnce(new Error('this needs the annotator role'))
    const w = await mountView()
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'r' }))
    await flushPromises()
    expect(w.findAll('.attributed button.w')[0].classes()).toContain('m-none')
    expect(w.find('[data-testid=note]').text()).toContain('not saved: this needs the annotator role')
    expect(undoStack).toHaveLength(0)
    w.unmount()
  })

  it('asks for the filters it shows and resets paging', async () => {
    const w = await mountView()
    await w.find('[data-testid=filter-correctness]').setValue('incorrect')
    await flushPromises()
    expect(A.examples).toHaveBeenLastCalledWith(5, expect.objectContaining({ correctness: 'incorrect', offset: 0 }))
    w.unmount()
  })

  it('sends the search text as a regular expression when asked', async () => {
    vi.useFakeTimers()
    try {
      const w = await mountView()
      await w.find('#ie-search').setValue('spiel.*g')
      await w.find('[data-testid=filter-regex]').setValue(true)
      await vi.advanceTimersByTimeAsync(400)
      await flushPromises()
      expect(A.examples).toHaveBeenLastCalledWith(5, expect.objectContaining({ regex: 'spiel.*g', search: undefined }))
      await w.find('[data-testid=filter-regex]').setValue(false)
      await flushPromises()
      expect(A.examples).toHaveBeenLastCalledWith(5, expect.objectContaining({ search: 'spiel.*g', regex: undefined }))
      w.unmount()
    } finally {
      vi.useRealTimers()
    }
  })

  it('saves the filters as a slice, applies a saved one and deletes it', async () => {
    const saved = { name: 'wrong-neg', dataset_id: 5, filters: { correctness: 'incorrect' as const, label: 0, has_feedback: false, regex: 'dull|slow' } }
    A.slices.mockResolvedValueOnce([]).mockResolvedValue([{ name: 'mine', dataset_id: 5, filters: { correctness: 'correct' as const } }, saved])
    A.saveSlice.mockResolvedValue({ name: 'mine', dataset_id: 5, filters: {} })
    A.deleteSlice.mockResolvedValue(undefined)
    const w = await mountView()
    expect(A.slices).toHaveBeenCalledWith(1)
    expect(w.findAll('[data-testid=slice-select] option').map((o) => o.text())).toEqual(['(none saved)'])
    expect(w.find('[data-testid=slice-delete]').attributes('disabled')).toBeDefined()

    // save: the dataset and the filters that differ from the route's defaults
    await w.find('[data-testid=slice-name]').setValue(' mine ')
    await w.find('[data-testid=slice-save]').trigger('click')
    await flushPromises()
    expect(A.saveSlice).toHaveBeenCalledWith(1, { name: 'mine', dataset_id: 5, filters: { correctness: 'correct' } })
    expect(w.find('[data-testid=slice-note]').text()).toBe('saved slice “mine”')
    const select = w.find('[data-testid=slice-select]')
    expect(select.findAll('option').map((o) => o.text())).toEqual(['(none)', 'mine', 'wrong-neg'])
    // the filters are those of "mine" now
    expect((select.element as HTMLSelectElement).value).toBe('mine')

    // apply another: the filter bar takes its values and the list is asked for them
    await select.setValue('wrong-neg')
    await flushPromises()
    expect((w.find('[data-testid=filter-correctness]').element as HTMLSelectElement).value).toBe('incorrect')
    expect((w.find('#ie-search').element as HTMLInputElement).value).toBe('dull|slow')
    expect((w.find('[data-testid=filter-regex]').element as HTMLInputElement).checked).toBe(true)
    expect(A.examples).toHaveBeenLastCalledWith(5, expect.objectContaining({ correctness: 'incorrect', label: 0, has_feedback: 'false', regex: 'dull|slow', offset: 0 }))
    expect((select.element as HTMLSelectElement).value).toBe('wrong-neg')

    // changing a filter leaves the slice (the picker says so)
    await w.find('[data-testid=filter-correctness]').setValue('all')
    await flushPromises()
    expect((select.element as HTMLSelectElement).value).toBe('')
    await select.setValue('wrong-neg')
    await flushPromises()

    // delete the slice the filters are set to
    await w.find('[data-testid=slice-delete]').trigger('click')
    await flushPromises()
    expect(A.deleteSlice).toHaveBeenCalledWith(1, 'wrong-neg')
    expect(select.findAll('option').map((o) => o.text())).toEqual(['(none)', 'mine'])
    expect(w.find('[data-testid=slice-note]').text()).toContain('deleted slice “wrong-neg”')
    w.unmount()
  })

  it('shows why a slice was not saved, and offers viewers only the picker', async () => {
    A.saveSlice.mockRejectedValue(new Error("unknown slice filter(s) ['x']"))
    const w = await mountView()
    await w.find('[data-testid=slice-name]').setValue('bad')
    await w.find('[data-testid=slice-save]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=slice-note]').text()).toBe("slice not saved: unknown slice filter(s) ['x']")
    w.unmount()
    auth.me = fx.me({ id: 2, name: 'vic', role: 'viewer' })
    const v = await mountView()
    expect(v.find('[data-testid=slice-select]').exists()).toBe(true)
    expect(v.find('[data-testid=slice-save]').exists()).toBe(false)
    expect(v.find('[data-testid=slice-delete]').exists()).toBe(false)
    v.unmount()
  })
})

describe('DatasetUpload', () => {
  beforeEach(() => vi.clearAllMocks())

  it('previews the file, guesses the columns and shows API errors inline', async () => {
    A.previewDataset.mockResolvedValue({
      format: 'csv',
      columns: ['id', 'sentence', 'label'],
      n_rows: 2,
      rows: [
        { id: 'a', sentence: 'great film', label: 'positive' },
        { id: 'b', sentence: 'dull', label: 'negative' },
      ],
    })
    A.uploadDataset.mockRejectedValue(new Error('train.csv: label "neutral" is not one of the project labels'))
    const w = mount(DatasetUpload, { props: { preview: (f: FormData) => A.previewDataset(3, f), upload: (f: FormData) => A.uploadDataset(3, f) } })
    const input = w.find('#ds-file')
    const file = new File(['id,sentence,label\n'], 'train.csv', { type: 'text/csv' })
    Object.defineProperty(input.element, 'files', { value: [file] })
    await input.trigger('change')
    await flushPromises()
    expect(A.previewDataset).toHaveBeenCalledWith(3, expect.any(FormData))
    expect(w.find('[data-testid=preview]').text()).toContain('great film')
    expect((w.find('#ds-text').element as HTMLSelectElement).value).toBe('sentence')
    expect((w.find('#ds-label').element as HTMLSelectElement).value).toBe('label')
    expect((w.find('#ds-id').element as HTMLSelectElement).value).toBe('id')
    expect((w.find('#ds-name').element as HTMLInputElement).value).toBe('train')
    await w.find('form').trigger('submit')
    await flushPromises()
    const form = A.uploadDataset.mock.calls[0][1] as FormData
    expect(form.get('text_column')).toBe('sentence')
    expect(form.get('role')).toBe('train')
    expect(w.find('[data-testid=dataset-error]').text()).toContain('label "neutral" is not one of the project labels')
  })
})

describe('useJob', () => {
  afterEach(() => vi.useRealTimers())

  it('polls status and loss points until the job ends', async () => {
    vi.useFakeTimers()
    const statuses: Job[] = [
      fx.job({ id: 'j', kind: 'retrain', status: 'running', progress: 10 }),
      fx.job({ id: 'j', kind: 'retrain', status: 'running', progress: 60 }),
      fx.job({ id: 'j', kind: 'retrain', status: 'succeeded', progress: 100, result: { version_id: 2 } }),
    ]
    A.job.mockImplementation(async () => statuses.shift() ?? statuses[0])
    A.metrics
      .mockResolvedValueOnce([fx.metric({ id: 1, step: 1, task_loss: 0.9, er_loss: 0.4 })])
      .mockResolvedValueOnce([fx.metric({ id: 2, step: 2, task_loss: 0.7, er_loss: 0.2 })])
      .mockResolvedValue([])
    const ended = vi.fn()
    let tracker!: ReturnType<typeof useJob>
    const Host = defineComponent({
      setup() {
        tracker = useJob(ref('j'), { pollMs: 50, onEnd: ended })
        return () => h('div')
      },
    })
    const w = mount(Host)
    await flushPromises()
    expect(tracker.job.value?.progress).toBe(10)
    expect(tracker.live.value).toBe('poll')
    await vi.advanceTimersByTimeAsync(60)
    expect(tracker.job.value?.progress).toBe(60)
    expect(A.metrics).toHaveBeenLastCalledWith('j', 1)
    await vi.advanceTimersByTimeAsync(60)
    expect(tracker.job.value?.status).toBe('succeeded')
    expect(tracker.points.value.map((p) => p.step)).toEqual([1, 2])
    expect(ended).toHaveBeenCalledTimes(1)
    const calls = A.job.mock.calls.length
    await vi.advanceTimersByTimeAsync(500)
    expect(A.job.mock.calls.length).toBe(calls)
    w.unmount()
  })
})
