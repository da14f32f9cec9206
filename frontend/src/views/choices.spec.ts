// Issue 30 §6, the screens that misled: after a retrain *Start from* keeps the version the user chose
// (a second retrain and its controls must not silently start from the fixed model), *Deploy* defaults to
// the newest ready model and *Download* has its own choice, and the objective reads as what trains.
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
    downloadLink: vi.fn(),
    pushJob: vi.fn(),
    hub: vi.fn(),
  },
}))

import { api } from '../api/endpoints'
import type { ModelVersion, RetrainParams } from '../api/types'
import SettingField from '../components/SettingField.vue'
import { schemaFields } from '../api/defaults'
import { choiceText } from '../lib/settings'
import { newestReady, startFromDefault, startFromNote } from '../lib/versions'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import * as fx from '../testing/fixtures'
import DeployView from './DeployView.vue'
import RetrainView from './RetrainView.vue'

const A = vi.mocked(api)
const router = () => createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })

const v = (id: number, version: number, extra: Partial<ModelVersion> = {}) =>
  ({ id, version, name: `v${version}`, kind: 'debugged', status: 'ready', parent_id: 9, metrics: {}, config: {}, ...extra }) as ModelVersion
const V1 = v(9, 1, { name: 'base', kind: 'base', parent_id: null })
const V2 = v(10, 2)
const V3_CONTROL = v(11, 3, { config: { control: 'lambda0' } })

beforeEach(() => {
  vi.clearAllMocks()
  localStorage.clear()
  auth.me = fx.me({ id: 1, name: 'ann', role: 'admin' })
  Object.assign(current, {
    pid: 1,
    project: { id: 1, name: 'demo', labels: ['negative', 'positive'] },
    datasets: [{ id: 6, name: 'anti', role: 'eval', n_examples: 30 }],
    versions: [V1],
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
  A.versions.mockResolvedValue([V1, V2, V3_CONTROL])
})

describe('which version a screen starts from (lib/versions)', () => {
  it('picks the newest ready model, never a control arm, and keeps a chosen start while it is ready', () => {
    expect(newestReady([V1, V2, V3_CONTROL])?.id).toBe(10)
    expect(newestReady([V1, { ...V2, status: 'training' }])?.id).toBe(9)
    expect(startFromDefault([V1, V2], 9, 10)).toBe(9) // chosen before wins over the version shown
    expect(startFromDefault([V1, V2], null, 10)).toBe(10)
    expect(startFromDefault([V1, V2], 77, null)).toBe(10) // the chosen one is gone: the newest model
    expect(startFromNote([V1, V2], 9)).toBe('')
    expect(startFromNote([V1, V2], 10)).toBe('v2 is already a debugged model from v1: this retrain and its controls start from it, not from v1.')
  })
})

describe('RetrainView: Start from after a retrain', () => {
  it('keeps the version the user retrained from, though the screens now show the fixed one', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    expect((w.find('#rt-ver').element as HTMLSelectElement).value).toBe('9')
    await w.find('[data-testid=retrain-form]').trigger('submit')
    await flushPromises()
    expect((A.retrainJob.mock.calls[0][1] as RetrainParams).version_id).toBe(9)
    w.unmount()
    // the retrain made v2 (and a control arm); the person looked at v2 in the explanation screens
    Object.assign(current, { versions: [V1, V2, V3_CONTROL], versionId: 10 })
    const again = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    expect((again.find('#rt-ver').element as HTMLSelectElement).value).toBe('9')
    expect(again.find('[data-testid=start-from-note]').exists()).toBe(false)
    await again.find('#rt-ver').setValue('10') // choosing the fixed model is said, not silent
    expect(again.find('[data-testid=start-from-note]').text()).toContain('v2 is already a debugged model from v1')
    again.unmount()
    const third = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    expect((third.find('#rt-ver').element as HTMLSelectElement).value).toBe('10') // the choice is kept
  })

  it('never sends an empty Start from when the versions arrive after the form', async () => {
    Object.assign(current, { versions: [], versionId: null })
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    current.versions = [V1, V2]
    await flushPromises()
    await w.find('[data-testid=retrain-form]').trigger('submit')
    await flushPromises()
    expect((A.retrainJob.mock.calls[0][1] as RetrainParams).version_id).toBe(10)
  })

  it('says what the objective trains: erasure + attribution, not a loss name', async () => {
    const w = mount(RetrainView, { global: { plugins: [router()] } })
    await flushPromises()
    expect(w.find('[data-testid=objective-text]').text()).toContain('erasure + attribution')
    const options = w.findAll('#rt-objective option').map((o) => o.text())
    expect(options).toEqual(['erasure', 'attribution matching', 'erasure + attribution'])
    expect(w.text()).not.toMatch(/\bMSE\b/)
    await w.find('#rt-objective').setValue('erasure')
    expect(w.find('[data-testid=objective-text]').text()).toContain('erasure')
    expect(w.find('[data-testid=objective-text]').text()).not.toContain('attribution')
  })
})

describe('the objective as a setting field', () => {
  it('draws each choice in words', () => {
    expect(choiceText('objective', 'both')).toBe('erasure + attribution')
    expect(choiceText('other', 'both')).toBe('both')
    const w = mount(SettingField, { props: { name: 'objective', meta: schemaFields.RetrainIn.objective, idPrefix: 't', modelValue: 'both' } })
    expect((w.find('select').element as HTMLSelectElement).selectedOptions[0].text).toBe('erasure + attribution')
  })
})

describe('DeployView: push and download choices', () => {
  it('pushes the newest ready model by default, and downloads whichever version is chosen there', async () => {
    Object.assign(current, { versions: [V1, V2, V3_CONTROL], versionId: 9 })
    A.downloadLink.mockResolvedValue({ url: '/api/versions/9/download?link=x', expires_at: '2026-01-01T00:00:00Z' })
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined)
    const w = mount(DeployView, { global: { plugins: [router()] } })
    await flushPromises()
    expect((w.find('#dp-ver').element as HTMLSelectElement).value).toBe('10') // not v1 shown, not the control
    expect((w.find('#dl-ver').element as HTMLSelectElement).value).toBe('10')
    await w.find('#dl-ver').setValue('9')
    expect((w.find('#dp-ver').element as HTMLSelectElement).value).toBe('10') // its own choice
    expect(w.find('[data-testid=download]').text()).toBe('Download v1 (base)')
    await w.find('[data-testid=download]').trigger('click')
    await flushPromises()
    expect(A.downloadLink).toHaveBeenCalledWith(9)
    click.mockRestore()
  })
})
