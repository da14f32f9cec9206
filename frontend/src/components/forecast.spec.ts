// The Retrain screen's forecast (issue 30 §2): useForecast starts the job for the chosen version and eval sets
// and keeps the finished job; ForecastPanel draws its progress, the per-set numbers and the sentence from props.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({
  api: { forecastJob: vi.fn(), job: vi.fn(), metrics: vi.fn(), cancelJob: vi.fn() },
}))

import { api } from '../api/endpoints'
import * as fx from '../testing/fixtures'
import { defineComponent, h } from 'vue'
import { useForecast } from '../composables/useForecast'
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

/** The panel wired to the composable as RetrainView wires it. */
function wired(props: { versionId: number | null; evalIds: number[]; canRun: boolean }) {
  return defineComponent({
    setup() {
      const fc = useForecast(() => 1)
      const start = () => fc.start({ version_id: props.versionId ?? undefined, eval_dataset_ids: props.evalIds })
      return () =>
        h(ForecastPanel, {
          job: fc.job.value,
          done: fc.done.value,
          error: fc.error.value,
          evalIds: props.evalIds,
          canRun: props.canRun,
          onStart: start,
          onCancel: fc.cancel,
        })
    },
  })
}

describe('ForecastPanel', () => {
  it('starts the forecast for the chosen version and eval sets and shows its result', async () => {
    A.forecastJob.mockResolvedValue(fx.job({ id: 'f1', kind: 'forecast', status: 'queued', progress: 0 }))
    A.job.mockResolvedValue(fx.job({ id: 'f1', kind: 'forecast', status: 'succeeded', progress: 100, result: RESULT }))
    const w = mount(wired({ versionId: 9, evalIds: [6], canRun: true }))
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

  it('names the first 20 erased words and counts the rest', () => {
    const many = { forecast: { ...RESULT.forecast, words: Array.from({ length: 25 }, (_, i) => `w${i}`) } }
    const done = fx.job({ id: 'f3', kind: 'forecast', status: 'succeeded', progress: 100, result: many })
    const w = mount(ForecastPanel, { props: { job: done, done, error: '', evalIds: [6], canRun: true } })
    expect(w.text()).toContain('w19 and 5 more')
    expect(w.text()).not.toContain('w20')
  })

  it('needs an eval set and the annotator role, and says why a forecast failed', async () => {
    const base = { job: null, done: null, error: '' }
    const none = mount(ForecastPanel, { props: { ...base, evalIds: [], canRun: true } })
    expect((none.find('[data-testid=start-forecast]').element as HTMLButtonElement).disabled).toBe(true)
    expect(none.text()).toContain('Needs an eval set')
    const viewer = mount(ForecastPanel, { props: { ...base, evalIds: [6], canRun: false } })
    expect((viewer.find('[data-testid=start-forecast]').element as HTMLButtonElement).disabled).toBe(true)
    A.forecastJob.mockResolvedValue(fx.job({ id: 'f2', kind: 'forecast', status: 'queued', progress: 0 }))
    A.job.mockResolvedValue(
      fx.job({ id: 'f2', kind: 'forecast', status: 'failed', progress: 10, error: 'the feedback removes no word yet' }),
    )
    const w = mount(wired({ versionId: null, evalIds: [6], canRun: true }))
    await w.find('[data-testid=start-forecast]').trigger('click')
    await vi.waitFor(() => expect(w.find('[data-testid=forecast-failed]').exists()).toBe(true))
    expect(w.find('[data-testid=forecast-failed]').text()).toContain('removes no word')
    expect(w.find('[data-testid=forecast-result]').exists()).toBe(false)
  })

  it('shows a refused start as an error', async () => {
    A.forecastJob.mockRejectedValue(new Error('there is no feedback to forecast yet'))
    const w = mount(wired({ versionId: 9, evalIds: [6], canRun: true }))
    await w.find('[data-testid=start-forecast]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=forecast-error]').text()).toContain('no feedback to forecast')
  })
})
