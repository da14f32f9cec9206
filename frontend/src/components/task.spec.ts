import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({
  api: { words: vi.fn(), wordExamples: vi.fn(), setTaskFeedback: vi.fn(), setFeedback: vi.fn(), explanation: vi.fn(), feedback: vi.fn(), jobs: vi.fn(), jobsWithWorkers: vi.fn() },
}))

import { api } from '../api/endpoints'
import type { WordStats } from '../api/types'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import { undoStack } from '../stores/undo'
import TaskView from '../views/TaskView.vue'
import WordExamples from './WordExamples.vue'
import WordRanking from './WordRanking.vue'
import * as fx from '../testing/fixtures'

const A = vi.mocked(api)
const spielberg: WordStats = {
  word: 'spielberg',
  count: 30,
  mean_importance: 0.3,
  mean_signed: 0.3,
  label_counts: [0, 30],
  skew: 1,
  skew_label: 1,
  skew_label_name: 'positive',
  suspicion: 0.3,
  p_value: 2e-12,
  q_value: 4e-10,
  lean: 3.14,
  suspicious: true,
  feedback: [{ action: 'remove', label: null, scope: 'all' }],
}
const plain: WordStats = { ...spielberg, word: 'film', mean_importance: 0.1, suspicious: false, feedback: [], label_counts: [5, 5], skew: 0, p_value: 1, q_value: 1, lean: 1.05 }

const LABELS = ['negative', 'positive']
const wordPage = { items: [spielberg, plain], total: 2, offset: 0, limit: 50 }
const examplePage = {
  items: [
    fx.example({ id: 4, text: 'spielberg made it.', label: 1, prediction: { label: 1, probs: [0.2, 0.8], correct: true }, highlight: [0], spans: [[0, 9], [10, 14], [15, 17], [17, 18]] }),
    fx.example({ id: 5, text: 'a dull spielberg film', label: 0, prediction: { label: 1, probs: [0.3, 0.7], correct: false }, highlight: [2], spans: [[0, 1], [2, 6], [7, 16], [17, 21]] }),
  ],
  total: 2,
  offset: 0,
  limit: 10,
}

describe('WordRanking (props only)', () => {
  it('shows the page it is given and asks for the word picked; it calls no API', async () => {
    const w = mount(WordRanking, {
      props: { labels: LABELS, selected: null, page: wordPage, limit: 50, busy: false, error: '', sort: 'importance', label: '', search: '', minCount: 2, offset: 0 },
    })
    const rows = w.findAll('button.word-row')
    expect(rows).toHaveLength(2)
    expect(rows[0].text()).toContain('suspicious')
    expect(rows[1].text()).not.toContain('suspicious')
    await rows[1].trigger('click')
    expect(w.emitted('select')?.[0]).toEqual([plain])
    await w.find('#wr-label').setValue('1')
    expect(w.emitted('update:label')?.[0]).toEqual([1])
    expect(A.words).not.toHaveBeenCalled()
  })
})

describe('WordExamples (props only)', () => {
  it('asks for feedback at the highlighted positions; it calls no API', async () => {
    const w = mount(WordExamples, {
      props: { word: spielberg, labels: LABELS, mark: null, page: examplePage, limit: 10, error: '', note: '', busy: false, open: {}, localMarks: {}, scopeText: 'every example', scope: 'all', label: '', offset: 0 },
    })
    await w.findAll('[data-testid=word-examples] li')[1].find('button.remove').trigger('click')
    expect(w.emitted('here')?.[0]).toEqual([examplePage.items[1], [2], 'remove'])
    await w.find('[data-testid=task-add]').trigger('click')
    expect(w.emitted('task')?.[0]).toEqual(['add'])
    expect(A.setFeedback).not.toHaveBeenCalled()
    expect(A.setTaskFeedback).not.toHaveBeenCalled()
  })
})

describe('TaskView', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    undoStack.splice(0)
    localStorage.clear()
    current.activeJobs = []
    auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
    Object.assign(current, { pid: 1, project: { id: 1, name: 'demo', labels: LABELS }, versionId: 3, method: '', dataVersion: 0 })
    A.words.mockResolvedValue(wordPage)
    A.wordExamples.mockResolvedValue(examplePage)
    A.setTaskFeedback.mockResolvedValue({})
    A.setFeedback.mockResolvedValue({})
  })

  async function mountIt(pick: 'spielberg' | null = 'spielberg') {
    const w = mount(TaskView)
    await flushPromises()
    if (pick) {
      await w.find(`button.word-row[data-word=${pick}]`).trigger('click')
      await flushPromises()
    }
    return w
  }

  it('lists words with importance, count, skew, suspicion and feedback colour', async () => {
    const w = await mountIt(null)
    expect(A.words).toHaveBeenCalledWith(1, expect.objectContaining({ sort: 'importance', offset: 0, limit: 50, min_count: 2, version_id: 3 }))
    const rows = w.findAll('button.word-row')
    expect(rows).toHaveLength(2)
    expect(rows[0].classes()).toContain('fb-remove')
    expect(rows[0].text()).toContain('✕ removed')
    expect(rows[0].text()).toContain('suspicious')
    expect(rows[0].text()).toContain('100% positive')
    expect(rows[0].text()).toContain('n 30')
    expect(rows[0].find('.sus-score').text()).toBe('q 4e-10 · 3.1× avg') // the server's evidence behind the flag
    expect(rows[1].find('.sus-score').text()).toBe('q 1 · 1.1× avg')
    expect(rows[1].classes()).toContain('fb-none')
    expect(rows[1].text()).not.toContain('suspicious')
    await rows[1].trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=word-panel] h2').text()).toContain('film')
    await w.find('#wr-sort').setValue('suspicion')
    await flushPromises()
    expect(A.words).toHaveBeenLastCalledWith(1, expect.objectContaining({ sort: 'suspicion' }))
  })

  it('reads the ranking again at each chunk the explain job reports, at the same offset (issue 30 §6)', async () => {
    const coverage = { version_id: 3, version: 1, method: 'grad_x_input', explained: 8, total: 40, complete: false, job_id: 'e1', datasets: [] }
    A.words.mockResolvedValue({ ...wordPage, coverage })
    const job = fx.job({ id: 'e1', kind: 'explain', status: 'running', step: 1, total_steps: 5, progress: 20 })
    current.activeJobs = [job]
    const w = await mountIt(null)
    expect(w.find('[data-testid=coverage-count]').text()).toBe('8 of 40')
    const calls = A.words.mock.calls.length
    A.words.mockResolvedValue({ ...wordPage, coverage: { ...coverage, explained: 16 } })
    current.activeJobs = [{ ...job, step: 2, progress: 40 }]
    await flushPromises()
    expect(A.words.mock.calls.length).toBe(calls + 1)
    expect(w.find('[data-testid=coverage-count]').text()).toBe('16 of 40')
    expect(w.findAll('button.word-row')).toHaveLength(2) // the words stay on screen while it fills
    current.activeJobs = [{ ...job, step: 2, progress: 41 }] // no new chunk: no new read
    await flushPromises()
    expect(A.words.mock.calls.length).toBe(calls + 1)
    // a first explain job times a retrain's work before its first chunk: the note names that, not "0 %"
    current.activeJobs = [{ ...job, step: 2, progress: 41, phase: "timing training steps, for the retrain's expected duration" }]
    await flushPromises()
    expect(w.find('[data-testid=coverage-job]').text()).toBe(
      "Explaining all of them: timing training steps, for the retrain's expected duration, before the first examples…",
    )
  })

  it('asks for the jobs at once when the page names an explain job the project has not seen', async () => {
    const polls = vi.mocked(api as unknown as { jobs: () => Promise<unknown>; jobsWithWorkers: () => Promise<unknown> })
    polls.jobs.mockResolvedValue([])
    polls.jobsWithWorkers.mockResolvedValue({ jobs: [], workers: [] })
    const coverage = { version_id: 3, version: 1, method: 'grad_x_input', explained: 0, total: 40, complete: false, job_id: 'e9', datasets: [] }
    A.words.mockResolvedValue({ ...wordPage, items: [], coverage })
    await mountIt(null)
    expect(polls.jobs.mock.calls.length + polls.jobsWithWorkers.mock.calls.length).toBe(1)
  })

  it('keeps the sort order when the tab is left and opened again (issue 30 §6)', async () => {
    const w = await mountIt(null)
    await w.find('#wr-sort').setValue('suspicion')
    await flushPromises()
    w.unmount()
    A.words.mockClear()
    const again = await mountIt(null)
    expect((again.find('#wr-sort').element as HTMLSelectElement).value).toBe('suspicion')
    expect(A.words.mock.calls[0][1]).toMatchObject({ sort: 'suspicion' })
  })

  it('starts from the minimum count the server chose from the data, until the user types one', async () => {
    A.words.mockImplementation(async (_pid, q) => ({ ...wordPage, min_count_default: 6, items: q.min_count === 6 ? [spielberg] : [spielberg, plain] }))
    const w = await mountIt(null)
    expect(A.words.mock.calls.map((c) => c[1].min_count)).toEqual([2, 6])
    expect((w.find('#wr-min').element as HTMLInputElement).value).toBe('6')
    expect(w.findAll('button.word-row')).toHaveLength(1) // the page read with 2 was never shown
    await w.find('#wr-min').setValue('3')
    await flushPromises()
    expect(A.words).toHaveBeenLastCalledWith(1, expect.objectContaining({ min_count: 3 }))
    w.unmount()
    A.words.mockClear()
    await mountIt(null)
    expect(A.words.mock.calls.map((c) => c[1].min_count)).toEqual([3]) // the user's choice is kept
  })

  it('highlights the word in each example, keeping the text as written', async () => {
    const w = await mountIt()
    const items = w.findAll('[data-testid=word-examples] li')
    expect(items).toHaveLength(2)
    expect(items[0].find('.snippet-full').text()).toBe('spielberg made it.')
    expect(items[0].find('mark.hl-word').text()).toBe('spielberg')
    expect(items[1].find('mark.hl-word').text()).toBe('spielberg')
  })

  it('asks the API for the examples in the chosen scope and shows its page and total as they are', async () => {
    const w = await mountIt()
    expect(A.wordExamples).toHaveBeenLastCalledWith(1, 'spielberg', expect.objectContaining({ correctness: 'all', offset: 0, limit: 10 }))
    expect(w.find('[data-testid=word-examples-total]').text()).toBe(': 2')
    A.wordExamples.mockResolvedValueOnce({
      items: [fx.example({ id: 4, text: 'spielberg made it.', label: 1, prediction: { label: 1, probs: [0.2, 0.8], correct: true }, highlight: [0] })],
      total: 17,
      offset: 0,
      limit: 10,
    })
    await w.find('[data-testid=scope]').setValue('correct')
    await flushPromises()
    expect(A.wordExamples).toHaveBeenLastCalledWith(1, 'spielberg', expect.objectContaining({ correctness: 'correct', offset: 0 }))
    // total counts the filtered set (from the API); the page is not filtered again locally
    expect(w.findAll('[data-testid=word-examples] li')).toHaveLength(1)
    expect(w.find('[data-testid=word-examples-total]').text()).toBe(': 17')
    expect(w.find('[data-testid=word-panel] .pager').text()).toContain('17')
    A.wordExamples.mockResolvedValueOnce({ items: [], total: 0, offset: 0, limit: 10 })
    await w.find('[data-testid=scope]').setValue('incorrect')
    await flushPromises()
    expect(A.wordExamples).toHaveBeenLastCalledWith(1, 'spielberg', expect.objectContaining({ correctness: 'incorrect' }))
    expect(w.find('[data-testid=word-examples-empty]').text()).toContain('No examples in this scope')
  })

  it('sends task feedback with the chosen scope, then reloads the ranking, whose words carry the marks', async () => {
    const w = await mountIt()
    const wordReads = A.words.mock.calls.length
    await w.find('[data-testid=scope]').setValue('correct')
    await flushPromises()
    const mine = [{ action: 'remove', label: null, scope: 'correct', votes: 1 }]
    A.words.mockResolvedValue({ ...wordPage, items: [{ ...spielberg, mine }, plain] })
    await w.find('[data-testid=task-remove]').trigger('click')
    await flushPromises()
    expect(A.setTaskFeedback).toHaveBeenCalledWith(1, { word: 'spielberg', action: 'remove', label: null, scope: 'correct' })
    expect(w.find('[data-testid=task-note]').text()).toBe('“spielberg” marked remove in examples the model predicts correctly.')
    expect(A.feedback).not.toHaveBeenCalled() // the page's words carry the marks: no list of everyone's feedback
    expect(A.words.mock.calls.length).toBe(wordReads + 1)
    expect(undoStack[0]).toMatchObject({ kind: 'task', word: 'spielberg', scope: 'correct', before: null })
    expect(w.find('[data-testid=task-remove]').classes()).toContain('on') // one's own mark, from the new page
  })

  it('marks the word only in the examples its task feedback applies to (gold label and scope)', async () => {
    const feedback = [
      { action: 'remove', label: null, scope: 'correct', votes: 1 },
      { action: 'add', label: 0, scope: 'all', votes: 1 },
    ]
    A.words.mockResolvedValue({ ...wordPage, items: [{ ...spielberg, feedback }, plain] })
    const w = await mountIt()
    const items = w.findAll('[data-testid=word-examples] li')
    // example 4 is predicted correctly: the scoped remove applies
    expect(items[0].find('mark.hl-word').classes()).toContain('m-remove')
    // example 5 is predicted wrongly (gold negative): only the add for gold negative applies
    expect(items[1].find('mark.hl-word').classes()).toContain('m-add')
  })

  it('removes the word in one example at its highlighted position', async () => {
    const w = await mountIt()
    await w.findAll('[data-testid=word-examples] li')[1].find('button.remove').trigger('click')
    await flushPromises()
    expect(A.setFeedback).toHaveBeenCalledWith(5, 2, 'remove')
    expect(w.findAll('[data-testid=word-examples] li')[1].find('mark.hl-word').classes()).toContain('m-remove')
  })
})

// Issue 32: a team's Words page shows the consensus by the project's policy, one's own mark apart, and how
// many people marked each word each way; in blind mode one's own marks only, with no one else's counts.
describe('TaskView: a team’s marks on the words', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    undoStack.splice(0)
    localStorage.clear()
    current.activeJobs = []
    auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
    Object.assign(current, { pid: 1, project: { id: 1, name: 'demo', labels: LABELS }, versionId: 3, method: '', dataVersion: 0 })
    A.wordExamples.mockResolvedValue(examplePage)
    A.setTaskFeedback.mockResolvedValue({})
  })

  it('colours a word by the consensus, shows one’s own mark apart, and the head count; the buttons are one’s own', async () => {
    // majority of 3: spielberg removed by two (kept); film added by the reader alone (not kept)
    const page = {
      ...wordPage,
      marks: { shown: 'consensus' as const, policy: 'majority', k: null, people: 3 },
      items: [
        { ...spielberg, mine: [], votes: { add: 0, remove: 2 }, feedback: [{ action: 'remove', label: null, scope: 'all', votes: 2 }] },
        { ...plain, mine: [{ action: 'add', label: null, scope: 'all', votes: 1 }], votes: { add: 1, remove: 0 } },
      ],
    }
    A.words.mockResolvedValue(page)
    const w = await mountIt(null)
    expect(w.find('[data-testid=marks-note]').text()).toBe('Marks show the team’s consensus (kept by a majority of the 3 people with feedback); yours show apart where they differ.')
    const [sp, film] = w.findAll('button.word-row')
    expect(sp.classes()).toContain('fb-remove')
    expect(sp.find('[data-testid=word-votes]').text()).toBe('2 removed')
    expect(sp.find('[data-testid=own-mark]').exists()).toBe(false)
    expect(film.classes()).toContain('fb-none') // one person's add is not the majority's
    expect(film.find('[data-testid=own-mark]').text()).toBe('you: added')
    expect(film.find('[data-testid=word-votes]').text()).toBe('1 added')
    await sp.trigger('click')
    await flushPromises()
    // the team removed it, the reader did not: their buttons are not on, and there is nothing of theirs to reset
    expect(w.find('[data-testid=word-panel] h2').text()).toContain('✕ removed')
    expect(w.find('[data-testid=task-remove]').classes()).not.toContain('on')
    expect(w.find('[data-testid=task-remove]').text()).toContain('Remove everywhere')
    expect(w.findAll('[data-testid=word-panel] fieldset button').find((b) => b.text() === 'Reset')?.attributes('disabled')).toBeDefined()
    await film.trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=word-panel] [data-testid=own-mark]').text()).toBe('you: added')
    expect(w.find('[data-testid=task-add]').classes()).toContain('on')
  })

  it('in blind mode says the marks are one’s own and shows no head count', async () => {
    const page = {
      ...wordPage,
      marks: { shown: 'own' as const, policy: 'union', k: null, people: null },
      items: [
        { ...spielberg, feedback: [{ action: 'remove', label: null, scope: 'all', votes: 1 }], mine: [{ action: 'remove', label: null, scope: 'all', votes: 1 }], votes: { add: 0, remove: 1 } },
        { ...plain, mine: [], votes: { add: 0, remove: 0 } },
      ],
    }
    A.words.mockResolvedValue(page)
    const w = await mountIt(null)
    expect(w.find('[data-testid=marks-note]').text()).toContain('Blind mode: only your own marks show here')
    expect(w.find('[data-testid=word-votes]').exists()).toBe(false)
    expect(w.find('[data-testid=own-mark]').exists()).toBe(false)
    expect(w.findAll('button.word-row')[0].classes()).toContain('fb-remove')
  })

  async function mountIt(pick: 'spielberg' | null = 'spielberg') {
    const w = mount(TaskView)
    await flushPromises()
    if (pick) {
      await w.find(`button.word-row[data-word=${pick}]`).trigger('click')
      await flushPromises()
    }
    return w
  }
})

// Issue 15: a ranking built from part of the training data says so, and an empty page says why.
const coverage = (explained: number, total: number, method = 'grad_x_input') => ({
  version_id: 3,
  version: 2,
  method,
  explained,
  total,
  complete: explained >= total,
  job_id: null,
  datasets: [{ dataset_id: 7, name: 'train', explained, total }],
})

describe('WordRanking: coverage and empty states', () => {
  const props = { labels: LABELS, marks: new Map(), selected: null, limit: 50, busy: false, error: '', sort: 'importance' as const, label: '' as const, search: '', minCount: 2, offset: 0 }

  it('says the ranking comes from 2 of 2,000 examples and asks to explain all', async () => {
    const w = mount(WordRanking, { props: { ...props, page: { ...wordPage, coverage: coverage(2, 2000) } } })
    expect(w.find('[data-testid=coverage-note]').text()).toContain('built from 2 of 2,000 training examples')
    expect(w.find('[data-testid=coverage-note]').text()).toContain('v2 with grad_x_input')
    await w.find('[data-testid=explain-all]').trigger('click')
    expect(w.emitted('explain')).toHaveLength(1)
    // a job already explaining: its progress instead of the button
    await w.setProps({ job: fx.job({ id: 'j', kind: 'explain', status: 'running', progress: 40 }) })
    expect(w.find('[data-testid=explain-all]').exists()).toBe(false)
    expect(w.find('[data-testid=coverage-job]').text()).toContain('40 %')
  })

  it('says nothing is explained with the method chosen, rather than "no words yet"', () => {
    const empty = { items: [], total: 0, offset: 0, limit: 50, coverage: coverage(0, 40, 'saliency') }
    const w = mount(WordRanking, { props: { ...props, page: empty } })
    expect(w.find('[data-testid=coverage-note]').text()).toContain('No training example is explained under v2 with saliency yet')
    expect(w.find('[data-testid=words-empty]').exists()).toBe(false)
    expect(w.text()).not.toContain('No words yet')
  })

  it('says no word matches a search, and which filters leave no word, when all is explained', () => {
    const empty = { items: [], total: 0, offset: 0, limit: 50, coverage: coverage(40, 40) }
    const w = mount(WordRanking, { props: { ...props, search: 'xyz', page: empty } })
    expect(w.find('[data-testid=coverage-note]').exists()).toBe(false)
    expect(w.find('[data-testid=words-empty]').text()).toBe('No word matches “xyz” among the words seen in at least 2 examples.')
    const w2 = mount(WordRanking, { props: { ...props, minCount: 50, label: 1 as const, page: empty } })
    expect(w2.find('[data-testid=words-empty]').text()).toBe(
      'No word in the 40 explained examples is found in examples labelled positive and seen in at least 50 examples: loosen the filters.',
    )
  })
})

describe('TaskView: an example opened before a task click', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
    Object.assign(current, { pid: 1, project: { id: 1, name: 'demo', labels: LABELS }, versionId: 3, method: '', dataVersion: 0 })
    A.words.mockResolvedValue(wordPage)
    A.wordExamples.mockResolvedValue(examplePage)
    A.setTaskFeedback.mockResolvedValue({})
  })

  it('shows the new task mark in the open explanation', async () => {
    const words = ['spielberg', 'made', 'it', '.']
    const before = fx.explanation({ words, scores: [0.5, 0.1, 0.1, 0], probs: [0.2, 0.8], prediction: 1, target: 1 })
    A.explanation.mockResolvedValueOnce(before).mockResolvedValueOnce({ ...before, taskMarks: { 0: 'remove' } })
    const w = mount(TaskView)
    await flushPromises()
    await w.find('button.word-row[data-word=spielberg]').trigger('click')
    await flushPromises()
    const item = () => w.findAll('[data-testid=word-examples] li')[0]
    await item().find('button[aria-expanded]').trigger('click')
    await flushPromises()
    expect(item().find('[data-testid=example-detail] button.w.m-remove').exists()).toBe(false)
    await w.find('[data-testid=task-remove]').trigger('click')
    await flushPromises()
    expect(A.explanation).toHaveBeenCalledTimes(2)
    expect(item().find('[data-testid=example-detail] button.w.m-remove').text()).toContain('spielberg')
  })
})
