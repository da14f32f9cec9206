import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { BaseModelIn, ControlComparison, Dataset, ImportIn, ImportOut } from '../api/types'
import { controlRows, diffCi, meanStd, metricName } from '../lib/controls'
import BaseModelSetting from './BaseModelSetting.vue'
import ControlsComparison from './ControlsComparison.vue'
import ControlsPicker from './ControlsPicker.vue'
import FeedbackImport from './FeedbackImport.vue'

const A = { importSimulated: vi.fn<(pid: number, body: ImportIn) => Promise<ImportOut>>() }
const send = (body: ImportIn) => A.importSimulated(1, body)

// The shape of Comparison.to_dict() for one eval set, numbers made up so each cell is recognisable.
function comparison(seeds = [0, 1, 2]): ControlComparison {
  const arm = (acc: number, f: number) => ({
    mean: { accuracy: acc, macro_f1: acc - 0.01, fpr_words: f, fpr_other: 0.2, 'f1:negative': 0.7, 'f1:positive': 0.72 },
    std: { accuracy: 0.01, macro_f1: 0.012, fpr_words: 0.02, fpr_other: 0.01, 'f1:negative': 0.01, 'f1:positive': 0.01 },
  })
  const d = (diff: number, lo: number, hi: number, verdict: string) => ({ diff, ci_low: lo, ci_high: hi, noise: 0.02, verdict })
  return {
    arms: ['debug', 'lambda0', 'deletion'],
    seeds,
    labels: ['negative', 'positive'],
    positive: { index: 1, label: 'positive', rule: 'given' },
    removed_words: ['spielberg'],
    sets: {
      ood: {
        n: 200,
        before: { accuracy: 0.7, macro_f1: 0.69, per_class_f1: { negative: 0.68, positive: 0.7 }, fpr_words: 0.6, fpr_other: 0.25 },
        arms: { debug: arm(0.75, 0.3), lambda0: arm(0.74, 0.5), deletion: arm(0.73, 0.55) },
        differences: {
          lambda0: { accuracy: d(0.01, -0.01, 0.03, 'within noise'), fpr_words: d(-0.2, -0.28, -0.12, 'better') },
          deletion: { accuracy: d(0.02, 0.0, 0.04, 'within noise'), fpr_words: d(-0.25, -0.33, -0.17, 'better') },
        },
        verdicts: {
          accuracy: { verdict: 'noise', text: 'within noise', per_control: {} },
          fpr_words: { verdict: 'better', text: 'better than both controls', per_control: {} },
        },
      },
    },
    quality: {
      before: { ood: { aopc_comprehensiveness: 0.31, auprc: 0.4 } },
      after: {
        debug: { ood: { mean: { aopc_comprehensiveness: 0.35, auprc: 0.52 }, std: { aopc_comprehensiveness: 0.01, auprc: 0.02 } } },
        lambda0: { ood: { mean: { aopc_comprehensiveness: 0.3, auprc: 0.41 }, std: { aopc_comprehensiveness: 0.01, auprc: 0.01 } } },
        deletion: { ood: { mean: { aopc_comprehensiveness: 0.29, auprc: 0.4 }, std: { aopc_comprehensiveness: 0.02, auprc: 0.01 } } },
      },
    },
    notes: [],
  }
}

describe('controls helpers', () => {
  it('orders metrics, reads the before value and pairs each control with its interval', () => {
    const rows = controlRows(comparison().sets.ood, ['debug', 'lambda0', 'deletion'])
    expect(rows.map((r) => r.metric)).toEqual(['accuracy', 'macro_f1', 'fpr_words', 'fpr_other', 'f1:negative', 'f1:positive'])
    expect(rows[0].before).toBe(0.7)
    expect(rows[4].before).toBe(0.68) // per-class F1 from the nested before metrics
    expect(rows[2].diffs).toEqual([
      { control: 'lambda0', diff: -0.2, low: -0.28, high: -0.12, verdict: 'better', words: 'lower than continued training (λ = 0) beyond seed noise' },
      { control: 'deletion', diff: -0.25, low: -0.33, high: -0.17, verdict: 'better', words: 'lower than training on the texts without the words beyond seed noise' },
    ])
    expect(rows[2].verdict).toBe('better than both controls')
    expect(rows[1].diffs[0].diff).toBeNull() // no difference computed for that metric: shown as –
  })

  it('formats mean ± std and differences in points', () => {
    expect(meanStd(0.755, 0.012)).toBe('75.5% ± 1.2')
    expect(meanStd(null, 0.1)).toBe('–')
    expect(diffCi(-0.2, -0.28, -0.12)).toBe('−20.0 pt [−28.0, −12.0]')
    expect(diffCi(null, null, null)).toBe('–')
    expect(metricName('fpr_words', 'toxic')).toBe('FPR “toxic”, with the words')
    expect(metricName('f1:normal')).toBe('F1 normal')
  })
})

describe('ControlsComparison', () => {
  it('shows every arm as a column, the intervals and the verdict per metric', () => {
    const w = mount(ControlsComparison, { props: { comparison: comparison() } })
    expect(w.findAll('[data-testid=arm-header]').map((h) => h.text())).toEqual(['debugged', 'λ = 0', 'deletion'])
    const fpr = w.findAll('[data-testid=controls-ood] tbody tr')[2]
    expect(fpr.text()).toContain('FPR “positive”, with the words')
    expect(fpr.text()).toContain('30.0% ± 2.0')
    expect(fpr.text()).toContain('−20.0 pt [−28.0, −12.0]')
    expect(fpr.find('[data-testid=verdict]').text()).toBe('better than both controls')
    expect(fpr.findAll('[data-testid=verdict-words]').map((x) => x.text())).toEqual([
      'lower than continued training (λ = 0) beyond seed noise',
      'lower than training on the texts without the words beyond seed noise',
    ])
    expect(fpr.find('[data-testid=verdict]').classes()).toContain('delta-up')
    expect(w.findAll('[data-testid=verdict]')[0].text()).toBe('within noise')
    expect(w.find('[data-testid=controls-quality]').text()).toContain('auprc')
    expect(w.find('[data-testid=controls-quality]').text()).toContain('0.520')
    expect(w.find('[data-testid=one-seed-note]').exists()).toBe(false)
  })

  it('warns that one seed cannot measure the noise', () => {
    const w = mount(ControlsComparison, { props: { comparison: { ...comparison([0]), quality: null } } })
    expect(w.find('[data-testid=one-seed-note]').exists()).toBe(true)
    expect(w.find('[data-testid=controls-quality]').exists()).toBe(false)
  })
})

describe('ControlsPicker', () => {
  it('keeps one seed with the first control (the controls follow the version) and counts the runs', async () => {
    const w = mount(ControlsPicker, { props: { controls: [], seeds: 1, hasBase: false } })
    expect(w.find('[data-testid=seeds]').exists()).toBe(false)
    expect((w.find('[data-testid=control-deletion_base]').element as HTMLInputElement).disabled).toBe(true)
    await w.find('[data-testid=control-deletion]').setValue(true)
    expect(w.emitted('update:seeds')).toBeUndefined() // λ = 0 once is the cheap default; more seeds on request
    expect(w.emitted('update:controls')).toEqual([[['deletion']]])
    await w.setProps({ controls: ['deletion'], seeds: 3 })
    await w.find('[data-testid=control-lambda0]').setValue(true)
    expect(w.emitted('update:controls')?.[1]).toEqual([['lambda0', 'deletion']]) // kept in a fixed order
    expect(w.emitted('update:seeds')).toBeUndefined() // a chosen seed count is not overridden
    await w.setProps({ controls: ['lambda0', 'deletion'] })
    expect(w.find('[data-testid=runs]').text()).toBe('9 training runs in all')
    await w.find('[data-testid=control-strip]').setValue(true)
    expect(w.emitted('update:controls')?.[2]).toEqual([['lambda0', 'deletion', 'strip']])
    await w.setProps({ controls: ['lambda0', 'deletion', 'strip'] })
    expect(w.find('[data-testid=runs]').text()).toBe('9 training runs in all') // strip trains nothing
  })
})

describe('ControlsPicker and the base model', () => {
  it('offers deletion from base only with a base model, and says why not', async () => {
    const w = mount(ControlsPicker, { props: { controls: [], seeds: 1, hasBase: false } })
    expect(w.find('[data-testid=control-deletion_base-why]').text()).toContain('records no base model')
    await w.setProps({ hasBase: true })
    expect((w.find('[data-testid=control-deletion_base]').element as HTMLInputElement).disabled).toBe(false)
    expect(w.find('[data-testid=control-deletion_base-why]').exists()).toBe(false)
    await w.find('[data-testid=control-deletion_base]').setValue(true)
    expect(w.emitted('update:controls')).toEqual([[['deletion_base']]])
  })

  it('records a base model with the recipe fields given, and forgets it', async () => {
    const save = vi.fn<(b: BaseModelIn) => Promise<void>>().mockResolvedValue()
    const forget = vi.fn<() => Promise<void>>().mockResolvedValue()
    const w = mount(BaseModelSetting, { props: { base: null, canEdit: true, save, forget } })
    expect(w.find('[data-testid=base-model-none]').exists()).toBe(true)
    await w.find('[data-testid=base-model-edit]').trigger('click')
    expect((w.find('[data-testid=base-model-save]').element as HTMLButtonElement).disabled).toBe(true) // nothing given
    await w.find('[data-testid=base-model-source]').setValue('org/base')
    await w.find('#bm-epochs').setValue('3')
    await w.find('[data-testid=base-model-save]').trigger('click')
    await flushPromises()
    expect(save).toHaveBeenCalledWith({ hub_id: 'org/base', recipe: { epochs: 3 } })
    await w.setProps({ base: { source: 'org/base', kind: 'hub', recipe: { epochs: 3 } } })
    expect(w.find('[data-testid=base-model-shown]').text()).toContain('org/base')
    expect(w.find('[data-testid=base-model-shown]').text()).toContain('epochs 3')
    await w.find('[data-testid=base-model-forget]').trigger('click')
    await flushPromises()
    expect(forget).toHaveBeenCalledOnce()
    const viewer = mount(BaseModelSetting, { props: { base: null, canEdit: false, save, forget } })
    expect(viewer.find('[data-testid=base-model-edit]').exists()).toBe(false)
  })

  it('shows the server\'s refusal and stays in the form', async () => {
    const save = vi.fn<(b: BaseModelIn) => Promise<void>>().mockRejectedValue(new Error('local paths are off'))
    const w = mount(BaseModelSetting, { props: { base: null, canEdit: true, save, forget: vi.fn() } })
    await w.find('[data-testid=base-model-edit]').trigger('click')
    await w.find('input[value=path]').setValue(true)
    await w.find('[data-testid=base-model-source]').setValue('/models/base')
    await w.find('[data-testid=base-model-save]').trigger('click')
    await flushPromises()
    expect(save).toHaveBeenCalledWith({ model_path: '/models/base' })
    expect(w.find('[data-testid=base-model-error]').text()).toContain('local paths are off')
    expect(w.find('[data-testid=base-model-save]').exists()).toBe(true)
  })
})

describe('FeedbackImport', () => {
  const ds = [{ id: 5, name: 'train' }] as Dataset[]
  const summary = {
    source: 'simulated:rationales:rationale',
    level: 'instance' as const,
    n_rows: 4,
    n_examples: 3,
    n_words: 4,
    n_add: 4,
    n_remove: 0,
    skipped: { 'no rationale': 1 },
    skipped_examples: { 'no rationale': ['a3'] },
    top_words: [{ word: 'awful', count: 1 }],
    details: {},
  }

  beforeEach(() => vi.clearAllMocks())

  it('previews, then commits exactly the options it previewed', async () => {
    const out: ImportOut = { preview: true, imported: 0, entries: 4, source: summary.source, summary }
    A.importSimulated.mockResolvedValueOnce(out)
    A.importSimulated.mockResolvedValueOnce({ ...out, preview: false, imported: 4 })
    const w = mount(FeedbackImport, { props: { send, datasets: ds, labels: ['neg', 'pos'] } })
    expect((w.find('[data-testid=import-commit]').element as HTMLButtonElement).disabled).toBe(true)
    await w.find('[data-testid=import-column]').setValue('rationale')
    await w.find('[data-testid=import-preview]').trigger('click')
    await flushPromises()
    expect(A.importSimulated).toHaveBeenLastCalledWith(1, expect.objectContaining({ dataset_id: 5, preview: true }))
    const body = A.importSimulated.mock.calls[0][1]
    expect(body.rationales).toMatchObject({ column: 'rationale', only: 'all', min_agreement: 0.5, tokens_column: null })
    const text = w.find('[data-testid=import-summary]').text()
    expect(text).toContain('simulated:rationales:rationale: 4 add, 0 remove (instance-level) on 4 distinct words; 3 examples')
    expect(text).toContain('skipped 1: no rationale')
    await w.find('[data-testid=import-commit]').trigger('click')
    await flushPromises()
    expect(A.importSimulated.mock.calls[1][1]).toEqual({ ...body, preview: false })
    expect(w.emitted('imported')).toHaveLength(1)
    expect(w.find('[data-testid=import-done]').text()).toBe('imported 4 entries from simulated:rationales:rationale')
  })

  it('a sampled preview says so, and a large import started as a job says where to follow it', async () => {
    const out: ImportOut = { preview: true, imported: 0, entries: 1000, source: summary.source, summary, sample_rows: 1000, dataset_rows: 50000 }
    A.importSimulated.mockResolvedValueOnce(out)
    A.importSimulated.mockResolvedValueOnce({ ...out, preview: false, entries: 0, sample_rows: null, job_id: 'abcdef1234567890' })
    const w = mount(FeedbackImport, { props: { send, datasets: ds, labels: ['neg', 'pos'] } })
    await w.find('[data-testid=import-column]').setValue('rationale')
    await w.find('[data-testid=import-preview]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=import-sample]').text()).toContain('the first 1000 of 50000 rows')
    expect(w.find('[data-testid=import-commit]').text()).toBe('Import all rows')
    await w.find('[data-testid=import-commit]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=import-done]').text()).toContain('runs as a job (abcdef12)')
  })

  it('a changed option drops the preview; a refusal is shown and nothing is committed', async () => {
    A.importSimulated.mockResolvedValueOnce({ preview: true, imported: 0, entries: 1, source: 's', summary: { ...summary, source: 's' } })
    A.importSimulated.mockRejectedValueOnce(new Error("rationale column 'nope' not found"))
    const w = mount(FeedbackImport, { props: { send, datasets: ds, labels: [] } })
    await w.find('[data-testid=import-column]').setValue('rationale')
    await w.find('[data-testid=import-preview]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=import-summary]').exists()).toBe(true)
    await w.find('[data-testid=import-column]').setValue('nope')
    expect(w.find('[data-testid=import-summary]').exists()).toBe(false)
    expect((w.find('[data-testid=import-commit]').element as HTMLButtonElement).disabled).toBe(true)
    await w.find('[data-testid=import-preview]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=import-error]').text()).toBe("rationale column 'nope' not found")
    expect(A.importSimulated).toHaveBeenCalledTimes(2)
  })

  it('sends a word list with its action and scope', async () => {
    A.importSimulated.mockResolvedValueOnce({ preview: true, imported: 0, entries: 2, source: 'simulated:words:words.txt', summary: null })
    const w = mount(FeedbackImport, { props: { send, datasets: ds, labels: [] } })
    await w.find('[data-testid=import-kind-words]').setValue(true)
    await w.find('[data-testid=import-words]').setValue('muslims\njews\n')
    await w.find('[data-testid=import-preview]').trigger('click')
    await flushPromises()
    expect(A.importSimulated.mock.calls[0][1]).toEqual({
      dataset_id: 5,
      preview: true,
      words: { text: 'muslims\njews\n', name: 'words.txt', action: 'remove', scope: 'all', label: null },
    })
  })
})
