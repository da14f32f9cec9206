// The Retrain screen's forecast (issue 30 §2): the button starts the forecast job for the chosen version and
// eval sets, its progress shows while it runs, and the finished job's per-set numbers and sentence are shown.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({
  api: { forecastJob: vi.fn(), job: vi.fn(), metrics: vi.fn(), cancelJob: vi.fn() },
}))

import { api } from '../api/endpoints'
import * as fx from '../testing/fixtures'
import ForecastPanel from './ForecastPanel.vue'

const A = vi.mocked(api)
const interval = (diff: number, lo: number, hi: number) => ({ diff, ci_low: lo, ci_high: hi })
const RESULT = {
  forecast: {
    words: ['spielberg'],
    max_examples: 2000,
    version: 1,
    sets: {
      anti: {
        n: 30,
        sampled_from: 30,
        n_with_words: 12,
        n_negative_words: 12,
        positive_label: 'positive',
        fpr_words: { now: 1, erased: 0.25, random: 0.917 },
        fpr_other: { now: 0.1, erased: 0.1, random: 0.1 },
        accuracy: { now: 0.6, erased: 0.9, random: 0.63 },
        erased_vs_now: { accuracy: interval(0.3, 0.1, 0.4), fpr_words: interval(-0.75, -0.9, -0.5) },
        erased_vs_random: { accuracy: interval(0.27, 0.1, 0.4), fpr_words: interval(-0.667, -0.9, -0.4) },
        sentence: "anti: ignoring these words would move the false-positive rate of 'positive' from 1.000 to 0.250",
      },
    },
  },
}

beforeEach(() => {
  vi.clearAllMocks()
  A.metrics.mockResolvedValue([])
})

describe('ForecastPanel', () => {
  it('starts the forecast for the chosen version and eval sets and shows its result', async () => {
    A.forecastJob.mockResolvedValue(fx.job({ id: 'f1', kind: 'forecast', status: 'queued', progress: 0 }))
    A.job.mockResolvedValue(fx.job({ id: 'f1', kind: 'forecast', status: 'succeeded', progress: 100, result: RESULT }))
    const w = mount(ForecastPanel, { props: { pid: 1, versionId: 9, evalIds: [6], canRun: true } })
    await w.find('[data-testid=start-forecast]').trigger('click')
    await flushPromises()
    expect(A.forecastJob).toHaveBeenCalledWith(1, { version_id: 9, eval_dataset_ids: [6] })
    await vi.waitFor(() => expect(w.find('[data-testid=forecast-result]').exists()).toBe(true))
    const row = w.find('[data-testid=forecast-anti]').text()
    expect(row).toContain('1.000')
    expect(row).toContain('0.250')
    expect(row).toContain('0.917')
    expect(row).toContain('-0.900 to -0.500')
    expect(w.text()).toContain('Words erased: spielberg')
    expect(w.text()).toContain('ignoring these words would move')
  })

  it('names the first 20 erased words and counts the rest', async () => {
    const many = { forecast: { ...RESULT.forecast, words: Array.from({ length: 25 }, (_, i) => `w${i}`) } }
    A.forecastJob.mockResolvedValue(fx.job({ id: 'f3', kind: 'forecast', status: 'queued', progress: 0 }))
    A.job.mockResolvedValue(fx.job({ id: 'f3', kind: 'forecast', status: 'succeeded', progress: 100, result: many }))
    const w = mount(ForecastPanel, { props: { pid: 1, versionId: 9, evalIds: [6], canRun: true } })
    await w.find('[data-testid=start-forecast]').trigger('click')
    await vi.waitFor(() => expect(w.find('[data-testid=forecast-result]').exists()).toBe(true))
    expect(w.text()).toContain('w19 and 5 more')
    expect(w.text()).not.toContain('w20')
  })

  it('needs an eval set and the annotator role, and says why a forecast failed', async () => {
    const none = mount(ForecastPanel, { props: { pid: 1, versionId: 9, evalIds: [], canRun: true } })
    expect((none.find('[data-testid=start-forecast]').element as HTMLButtonElement).disabled).toBe(true)
    expect(none.text()).toContain('Needs an eval set')
    const viewer = mount(ForecastPanel, { props: { pid: 1, versionId: 9, evalIds: [6], canRun: false } })
    expect((viewer.find('[data-testid=start-forecast]').element as HTMLButtonElement).disabled).toBe(true)
    A.forecastJob.mockResolvedValue(fx.job({ id: 'f2', kind: 'forecast', status: 'queued', progress: 0 }))
    A.job.mockResolvedValue(
      fx.job({ id: 'f2', kind: 'forecast', status: 'failed', progress: 10, error: 'the feedback removes no word yet' }),
    )
    const w = mount(ForecastPanel, { props: { pid: 1, versionId: null, evalIds: [6], canRun: true } })
    await w.find('[data-testid=start-forecast]').trigger('click')
    await vi.waitFor(() => expect(w.find('[data-testid=forecast-failed]').exists()).toBe(true))
    expect(w.find('[data-testid=forecast-failed]').text()).toContain('removes no word')
    expect(w.find('[data-testid=forecast-result]').exists()).toBe(false)
  })
})
