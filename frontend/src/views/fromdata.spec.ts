// "Fine-tune a model on my data first" (issue 30 §1): the New project form previews the file, takes the
// server's column guess, sends the base model and epochs; the projects view follows the job (phase, steps,
// ETA, Cancel) and opens the project it made.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: {
    projects: vi.fn(),
    allJobs: vi.fn(),
    job: vi.fn(),
    metrics: vi.fn(),
    jobEventsUrl: vi.fn(),
    cancelJob: vi.fn(),
    previewTrainingData: vi.fn(),
    projectFromData: vi.fn(),
  },
}))

import { api } from '../api/endpoints'
import ProjectCreateForm from '../components/ProjectCreateForm.vue'
import { auth } from '../stores/auth'
import * as fx from '../testing/fixtures'
import ProjectsView from './ProjectsView.vue'

const A = vi.mocked(api)
const PREVIEW = {
  format: 'csv',
  columns: ['post_id', 'post', 'annotation'],
  guess: { text: 'post', label: 'annotation', id: 'post_id' },
  label_required_for: ['eval' as const],
  n_rows: 1914,
  rows: [{ post_id: '1', post: 'a post', annotation: 'hate' }],
}
const running = fx.job({
  id: 'fit-1',
  kind: 'from_data',
  status: 'running',
  project_id: null,
  progress: 30,
  started_at: new Date().toISOString(),
  params: { name: 'hate posts' },
  phase: 'fine-tuning MiniLM',
  phase_done: 12,
  phase_total: 180,
  phase_unit: 'steps',
  eta_s: 420,
})

async function pickFile(w: ReturnType<typeof mount>) {
  const input = w.find('#fd-file')
  Object.defineProperty(input.element, 'files', { value: [new File(['post_id,post,annotation\n'], 'posts.csv')] })
  await input.trigger('change')
  await flushPromises()
}

describe('New project: fine-tune a model on my data first', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    vi.stubGlobal('EventSource', undefined) // poll, as without server-sent events
    auth.me = fx.me({ id: 1, name: 'admin', role: 'admin' })
  })

  it('guesses the columns, sends the base model and epochs, and says what the server refused', async () => {
    A.previewTrainingData.mockResolvedValue(PREVIEW)
    A.projectFromData.mockRejectedValueOnce(new Error('posts.csv: column "annotation" holds only the class "hate"'))
    A.projectFromData.mockResolvedValue(running)
    const w = mount(ProjectCreateForm, {
      props: { create: vi.fn(), preview: A.previewTrainingData, startFromData: A.projectFromData },
    })
    expect(w.find('[data-testid=from-data]').exists()).toBe(false) // "I have a model" is the default
    await w.find('[data-testid=start-from-data]').setValue(true)
    expect(w.find('#np-labels').exists()).toBe(false) // the classes come from the data
    await w.find('#np-name').setValue('hate posts')
    const go = () => w.get('[data-testid=from-data] button.primary')
    expect(go().attributes('disabled')).toBeDefined() // no file yet
    await pickFile(w)
    expect(A.previewTrainingData).toHaveBeenCalledWith(expect.any(FormData))
    expect(w.get('[data-testid=from-data-columns]').text()).toContain('1,914 rows')
    expect((w.get('#fd-text').element as HTMLSelectElement).value).toBe('post')
    expect((w.get('#fd-label').element as HTMLSelectElement).value).toBe('annotation')
    expect((w.get('#fd-id').element as HTMLSelectElement).value).toBe('post_id')
    // MiniLM is the default base: no base_model field is sent
    await w.get('#fd-epochs').setValue(2)
    await go().trigger('click')
    await flushPromises()
    let form = A.projectFromData.mock.calls[0][0] as FormData
    expect(form.get('name')).toBe('hate posts')
    expect([form.get('text_column'), form.get('label_column'), form.get('id_column')]).toEqual(['post', 'annotation', 'post_id'])
    expect(form.get('base_model')).toBeNull()
    expect(JSON.parse(form.get('recipe') as string)).toEqual({ epochs: 2 })
    expect(w.get('[data-testid=from-data-error]').text()).toContain('holds only the class "hate"')
    expect(w.emitted('started')).toBeUndefined()
    // a Hub id as the base
    await w.find('input[name=fd-base][value=hub]').setValue(true)
    expect(go().attributes('disabled')).toBeDefined() // the id is missing
    await w.get('#fd-base-name').setValue('org/encoder')
    await go().trigger('click')
    await flushPromises()
    form = A.projectFromData.mock.calls[1][0] as FormData
    expect(JSON.parse(form.get('base_model') as string)).toEqual({ hub_id: 'org/encoder' })
    expect(w.emitted('started')?.[0]).toEqual([running])
    expect(w.find('[data-testid=from-data-error]').exists()).toBe(false)
  })

  it('the view follows the fine-tune with its phase and ETA, then opens the project it made', async () => {
    A.projects.mockResolvedValue([])
    A.allJobs.mockResolvedValue([])
    A.previewTrainingData.mockResolvedValue(PREVIEW)
    A.projectFromData.mockResolvedValue(running)
    A.metrics.mockResolvedValue([])
    A.job.mockResolvedValueOnce(running).mockResolvedValue({
      ...running,
      status: 'succeeded',
      progress: 100,
      phase: null,
      result: { project_id: 12, project_name: 'hate posts', explain_job_id: 'x' },
    })
    const r = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })
    await r.push('/')
    const w = mount(ProjectsView, { global: { plugins: [r] } })
    await flushPromises()
    expect(A.allJobs).toHaveBeenCalledWith({ kind: 'from_data', limit: 1 })
    await w.get('button.primary').trigger('click') // New project
    await w.find('[data-testid=start-from-data]').setValue(true)
    await w.find('#np-name').setValue('hate posts')
    await pickFile(w)
    await w.get('[data-testid=from-data] button.primary').trigger('click')
    await flushPromises()
    const card = w.get('[data-testid=from-data-job]')
    expect(card.text()).toContain('Fine-tuning a model for “hate posts”')
    expect(card.get('[data-testid=job-phase]').text()).toMatch(/fine-tuning MiniLM\s+12 \/ 180 steps/)
    expect(card.get('[data-testid=job-times]').text()).toContain('about 7 min left')
    expect(w.find('[data-testid=create-project]').exists()).toBe(false) // the form closed
    await vi.waitFor(async () => {
      await flushPromises()
      expect(r.currentRoute.value.fullPath).toBe('/p/12/data')
    }, { timeout: 5000 })
    w.unmount()
  })
})
