// The Retrain screen's advanced settings and the archive form's base model (issue 14): what the person
// sets is what the request carries, the form is drawn from the server's schema metadata, and what the
// server would refuse is said before anything is sent.
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

import { schemaDefaults, schemaFields } from '../api/defaults'
import { api } from '../api/endpoints'
import type { Project, ProjectCreate, RetrainParams } from '../api/types'
import ProjectCreateForm from '../components/ProjectCreateForm.vue'
import { problem, wire } from '../lib/settings'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import * as fx from '../testing/fixtures'
import RetrainView from './RetrainView.vue'

const A = vi.mocked(api)
const M = schemaFields.RetrainIn
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
  A.jobs.mockResolvedValue([])
  A.feedback.mockResolvedValue({ items: [], total: 2, offset: 0, limit: 1 })
  A.retrainEstimate.mockResolvedValue({ phases: [], expected_s: null, measured_before: false })
  A.retrainJob.mockResolvedValue(fx.job({ id: 'j1', kind: 'retrain', status: 'queued', progress: 0 }))
  A.job.mockResolvedValue(fx.job({ id: 'j1', kind: 'retrain', status: 'queued', progress: 0 }))
  A.metrics.mockResolvedValue([])
})

const lastEstimate = () => A.retrainEstimate.mock.calls.at(-1)?.[1] as RetrainParams

describe('RetrainView advanced settings', () => {
  it('shows at most 8 settings by default, the rest collapsed under Advanced, and sends what the person set', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    const adv = w.find('[data-testid=advanced]')
    expect(adv.element.tagName).toBe('DETAILS')
    expect(adv.element.hasAttribute('open')).toBe(false)
    // outside Advanced: λ, epochs, learning rate, batch size, eval cap, and the controls picker's controls and seeds
    const outside = w.findAll('form input, form select').filter((e) => !adv.element.contains(e.element) && !e.attributes('type')?.match(/checkbox/))
    expect(outside.map((e) => e.attributes('id')).filter((id) => id !== 'rt-ver').length).toBeLessThanOrEqual(8)
    // label here; help, choices and bounds are the server's
    const objective = w.find('#rt-objective')
    expect(w.find('label[for=rt-objective]').text()).toContain('Objective')
    expect(w.find('[data-field=objective] .help').text()).toBe(M.objective.help)
    expect(objective.findAll('option').map((o) => o.attributes('value'))).toEqual([...M.objective.choices])
    expect(w.find('#rt-attribution-every').attributes()).toMatchObject({ min: String(M.attribution_every.minimum), max: String(M.attribution_every.maximum), step: '1' })
    expect(w.find('#rt-attribution-weight').attributes('step')).toBe('any')
    // settings removed on their measurements are gone from the form
    for (const gone of ['early_stop', 'attribution_gate', 'task_scope', 'add_target', 'counterfactual_weight', 'loss']) {
      expect(w.find(`[data-field=${gone}]`).exists()).toBe(false)
    }

    await objective.setValue('erasure')
    await w.find('#rt-attribution-weight').setValue('2.5')
    await w.find('#rt-attribution-every').setValue('4')
    await w.find('#rt-attribution-rows').setValue('')
    await w.find('form').trigger('submit')
    await flushPromises()
    const sent = A.retrainJob.mock.calls[0][1]
    expect(sent).toMatchObject({ objective: 'erasure', attribution_weight: 2.5, attribution_every: 4 })
    expect(sent).not.toHaveProperty('attribution_rows') // emptied: the server's default
    // the estimate asks with the same settings, so a changed setting changes what it is asked
    await vi.waitFor(() => expect(lastEstimate()).toMatchObject({ objective: 'erasure', attribution_every: 4 }), { timeout: 2000 })
    w.unmount()
  })

  it('offers bf16 training as auto / on / off, leaves auto to the server, says how on and off are priced', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    const field = w.find('[data-field=mixed_precision]')
    expect(field.text()).toContain('bf16 training (auto: on a CPU with AVX512-BF16 or AMX')
    expect(field.findAll('option').map((o) => o.text())).toEqual(['auto', 'on', 'off'])
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('Expected duration'), { timeout: 2000 })
    expect(w.find('[data-testid=retrain-estimate]').text()).not.toContain('Precision priced')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.retrainJob.mock.calls[0][1]).not.toHaveProperty('mixed_precision') // auto: the worker decides
    await w.find('#rt-mixed-precision').setValue('true')
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('Precision priced on bf16 steps timed on the worker'), { timeout: 2000 })
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.retrainJob.mock.calls[1][1]).toMatchObject({ mixed_precision: true })
    await w.find('#rt-mixed-precision').setValue('false')
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('Precision priced on float32 steps'), { timeout: 2000 })
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.retrainJob.mock.calls[2][1]).toMatchObject({ mixed_precision: false })
    w.unmount()
  })

  it('offers CUDA graphs, off by default, and sends the box as ticked', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    expect(w.find('[data-field=cuda_graphs]').text()).toContain('CUDA graphs: record each training step once')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.retrainJob.mock.calls[0][1]).toMatchObject({ cuda_graphs: false })
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('Expected duration'), { timeout: 2000 })
    expect(w.find('[data-testid=retrain-estimate]').text()).not.toContain('priced on eager steps')
    await w.find('#rt-cuda-graphs').setValue(true)
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('At most: priced on eager steps'), { timeout: 2000 })
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.retrainJob.mock.calls[1][1]).toMatchObject({ cuda_graphs: true })
    w.unmount()
  })

  it('says graphed steps are priced where the calibration timed them', async () => {
    A.retrainEstimate.mockImplementation(async (_pid: number, body: RetrainParams) =>
      ({ phases: [], expected_s: 60, measured_before: false, rates_from: 'calibration', graphs_priced: !!body.cuda_graphs }) as never)
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    await w.find('#rt-cuda-graphs').setValue(true)
    await vi.waitFor(() => expect(lastEstimate()).toMatchObject({ cuda_graphs: true }), { timeout: 2000 })
    await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').text()).toContain('CUDA graphs priced on graphed steps'), { timeout: 2000 })
    expect(w.find('[data-testid=retrain-estimate]').text()).not.toContain('priced on eager steps')
    w.unmount()
  })

  it('says what the server would refuse, opens the section, and sends nothing', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    await w.find('#rt-attribution-every').setValue('100')
    expect(w.find('[data-field=attribution_every] [data-testid=setting-problem]').text()).toContain(`must be at most ${M.attribution_every.maximum}`)
    expect(w.find('[data-testid=advanced]').element.hasAttribute('open')).toBe(true)
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.retrainJob).not.toHaveBeenCalled()
    expect(w.find('[data-testid=retrain-error]').text()).toContain('attribution_every must be at most 64')
    w.unmount()
  })

  it('offers every retrain setting of the schema somewhere on the screen', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    const main = ['version_id', 'train_dataset_ids', 'eval_dataset_ids', 'lam', 'epochs', 'lr', 'batch_size', 'eval_max_examples', 'controls', 'seeds']
    const drawn = w.findAll('[data-field]').map((d) => d.attributes('data-field'))
    expect(new Set(drawn).size).toBe(drawn.length)
    expect([...main, ...drawn].sort()).toEqual(Object.keys(M).sort())
    w.unmount()
  })
})

describe('settings helpers', () => {
  it('check the schema bounds and choices, and leave an emptied number to the server', () => {
    expect(problem(M.lr, 0)).toBe('must be above 0')
    expect(problem(M.attribution_every, 2.5)).toBe('must be a whole number')
    expect(problem(M.attribution_every, 0)).toBe('must be at least 1')
    expect(problem(M.objective, 'some')).toBe('must be one of erasure, attribution, both')
    expect(problem(M.objective, 'erasure')).toBe('')
    expect(problem(M.attribution_weight, '')).toBe('')
    expect(wire(M.attribution_weight, '')).toBeUndefined()
    expect(wire(M.attribution_weight, '0.25')).toBe(0.25)
    expect(wire(M.length_bucketing, 1)).toBe(true)
    // a nullable boolean: unset or null is auto (left to the server), else the boolean
    expect(wire(M.mixed_precision, null)).toBeUndefined()
    expect(wire(M.mixed_precision, undefined)).toBeUndefined()
    expect(wire(M.mixed_precision, false)).toBe(false)
    expect(wire(M.cuda_graphs, undefined)).toBe(false)
  })
})

describe('ProjectCreateForm with an archive', () => {
  it('sends the base model beside the archive, as the JSON the other routes take', async () => {
    const create = vi.fn<(body: ProjectCreate | FormData) => Promise<Project>>().mockResolvedValue({ id: 3 } as Project)
    const w = mount(ProjectCreateForm, { props: { create } })
    await w.find('#np-name').setValue('uploaded')
    await w.find('input[value=archive]').setValue(true)
    const file = new File(['zip'], 'model.zip')
    const input = w.find('#np-archive')
    Object.defineProperty(input.element, 'files', { value: [file] })
    await input.trigger('change')
    await w.find('input[value=path][name=np-base-kind]').setValue(true)
    await w.find('#np-base-source').setValue('/models/base')
    await w.find('#np-base-epochs').setValue('3')
    await w.find('form').trigger('submit')
    await flushPromises()
    const form = create.mock.calls[0][0] as FormData
    expect(form).toBeInstanceOf(FormData)
    expect(form.get('archive')).toBeInstanceOf(File)
    expect(JSON.parse(form.get('base_model') as string)).toEqual({ model_path: '/models/base', recipe: { epochs: 3 } })
    expect(w.emitted('created')).toHaveLength(1)

    // no base model given: the field is left out (the project records none)
    await w.find('#np-base-source').setValue('')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect((create.mock.calls[1][0] as FormData).has('base_model')).toBe(false)
  })
})

describe('RetrainView expected duration', () => {
  it('says where the expected duration comes from: a calibration, an earlier retrain, or nothing yet', async () => {
    const says = async (estimate: object) => {
      A.retrainEstimate.mockResolvedValue({ phases: [], ...estimate } as never)
      const w = mount(RetrainView, { global: { plugins: [router()] } })
      await vi.waitFor(() => expect(w.find('[data-testid=retrain-estimate]').exists()).toBe(true), { timeout: 2000 })
      const text = w.find('[data-testid=retrain-estimate]').text()
      w.unmount()
      return text
    }
    const calibrated = await says({ expected_s: 150, measured_before: false, rates_from: 'calibration' })
    expect(calibrated).toContain('Expected duration: about')
    expect(calibrated).toContain('timed on a few batches of your model and data')
    const measured = await says({ expected_s: 150, measured_before: true, rates_from: 'retrain' })
    expect(measured).toContain('at the rates the last retrain measured')
    expect(measured).not.toContain('timed on a few batches')
    const none = await says({ expected_s: null, measured_before: false, rates_from: null })
    expect(none).toContain('known once the training set is explained or a retrain has run here')
  })
})
