// The Team screen (issue 32 §2, §3): progress per annotator and queue, the reader's Next with
// done / skip, the agreement's numbers and bars, and the admin's assignment form.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({ api: { users: vi.fn() } }))
vi.mock('../api/teamwork', () => ({
  teamworkApi: { queues: vi.fn(), createQueue: vi.fn(), deleteQueue: vi.fn(), next: vi.fn(), setStatus: vi.fn(), agreement: vi.fn() },
}))

import { api } from '../api/endpoints'
import { teamworkApi, type Agreement, type Queue } from '../api/teamwork'
import AgreementBars from '../components/AgreementBars.vue'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import TeamView from './TeamView.vue'

const T = vi.mocked(teamworkApi)
const queue = (over: Partial<Queue> = {}): Queue => ({
  id: 3,
  project_id: 7,
  name: 'round 1',
  order: 'random',
  rule: 'a random order drawn with the queue\'s seed',
  seed: 0,
  overlap: 2,
  source: { dataset_id: 1 },
  n_examples: 4,
  created_at: '2026-01-01T00:00:00Z',
  progress: [
    { user_id: 1, user: 'ann', done: 1, skipped: 0, left: 3 },
    { user_id: 2, user: 'bob', done: 4, skipped: 0, left: 0 },
  ],
  done: 5,
  skipped: 0,
  left: 3,
  ...over,
})
const agreement = (over: Partial<Agreement> = {}): Agreement => ({
  annotators: ['ann', 'bob'],
  n_examples: 2,
  n_tokens: 20,
  alpha: 0.41,
  fleiss_kappa: null,
  pairs: [{ a: 'ann', b: 'bob', n_tokens: 20, observed: 0.9, kappa: 0.4 }],
  per_word: [{ word: 'spielberg', n_tokens: 2, marked: 2, unanimous: 1, disputed: 1, alpha: -0.2 }],
  n_words: 1,
  task: { n_words: 0, alpha: null, pairs: [], words: [] },
  pending: false,
  offset: 0,
  limit: 20,
  ...over,
})
const item = { queue_id: 3, example_id: 11, example_ext_id: 'train-5', user_id: 1, rank: 1, status: 'left' as const, text: 'a dialogue', label: 1 }

beforeEach(() => {
  vi.resetAllMocks()
  current.pid = 7
  auth.me = { id: 1, name: 'ann', role: 'annotator', created_at: '2026-01-01T00:00:00Z' }
  T.queues.mockResolvedValue({ items: [queue()], total: 1, offset: 0, limit: 50 })
  T.agreement.mockResolvedValue(agreement())
  T.next.mockResolvedValue({ item, rule: 'r', done: 1, skipped: 0, left: 3 })
})

describe('TeamView', () => {
  it('shows progress per annotator, the agreement and its bars', async () => {
    const w = mount(TeamView)
    await flushPromises()
    expect(w.findAll('[data-testid="progress-row"]').map((r) => r.text())).toEqual([
      expect.stringContaining('ann'),
      expect.stringContaining('bob'),
    ])
    expect(w.get('[data-testid="agreement-summary"]').text()).toContain('0.410')
    const bars = w.findAllComponents(AgreementBars)
    expect(bars).toHaveLength(2)
    expect(bars[0].props('bars')).toEqual([{ label: 'ann – bob', value: 0.4, note: '20 words' }])
    expect(w.findAll('[data-testid="agreement-bar"]')).toHaveLength(2)
    expect(w.find('form').exists()).toBe(false) // annotators do not assign
  })

  it("walks the reader's queue: done asks for the next example", async () => {
    const w = mount(TeamView)
    await flushPromises()
    expect(w.get('[data-testid="next"]').text()).toContain('train-5')
    T.setStatus.mockResolvedValue({ ...item, status: 'done' })
    T.next.mockResolvedValueOnce({ item: null, rule: 'r', done: 4, skipped: 0, left: 0 })
    await w.get('[data-testid="done"]').trigger('click')
    await flushPromises()
    expect(T.setStatus).toHaveBeenCalledWith(3, 11, 'done')
    expect(w.find('[data-testid="queue-through"]').exists()).toBe(true)
  })

  it('lets an admin assign examples with an overlap', async () => {
    auth.me = { id: 9, name: 'root', role: 'admin', created_at: '2026-01-01T00:00:00Z' }
    vi.mocked(api.users).mockResolvedValue([
      { id: 1, name: 'ann', role: 'annotator', created_at: '' },
      { id: 2, name: 'bob', role: 'annotator', created_at: '' },
    ])
    T.agreement.mockResolvedValue(agreement({ n_examples: 0, pairs: [], per_word: [] }))
    const w = mount(TeamView)
    await flushPromises()
    expect(w.find('[data-testid="no-agreement"]').exists()).toBe(true)
    await w.get('[data-testid="queue-name"]').setValue('round 2')
    for (const box of w.findAll('input[type="checkbox"]')) await box.setValue(true)
    T.createQueue.mockResolvedValue(queue({ name: 'round 2' }))
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(T.createQueue).toHaveBeenCalledWith(7, expect.objectContaining({ name: 'round 2', annotators: [1, 2], overlap: 2 }))
  })
})
