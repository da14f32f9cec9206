import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({
  api: { words: vi.fn(), wordExamples: vi.fn(), setTaskFeedback: vi.fn(), setFeedback: vi.fn(), explanation: vi.fn(), feedback: vi.fn() },
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
  suspicious: true,
  feedback: [{ action: 'remove', label: null, scope: 'all' }],
}
const plain: WordStats = { ...spielberg, word: 'film', mean_importance: 0.1, suspicious: false, feedback: [], label_counts: [5, 5], skew: 0 }

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
      props: { labels: LABELS, marks: new Map(), selected: null, page: wordPage, limit: 50, busy: false, error: '', sort: 'importance', label: '', search: '', minCount: 2, offset: 0 },
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
    auth.me = fx.me({ id: 1, name: 'ann', role: 'annotator' })
    Object.assign(current, { pid: 1, project: { id: 1, name: 'demo', labels: LABELS }, versionId: 3, method: '', dataVersion: 0 })
    A.words.mockResolvedValue(wordPage)
    A.wordExamples.mockResolvedValue(examplePage)
    A.feedback.mockResolvedValue({ items: [], total: 0, offset: 0, limit: 1000 })
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
    expect(rows[1].classes()).toContain('fb-none')
    expect(rows[1].text()).not.toContain('suspicious')
    await rows[1].trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=word-panel] h2').text()).toContain('film')
    await w.find('#wr-sort').setValue('suspicion')
    await flushPromises()
    expect(A.words).toHaveBeenLastCalledWith(1, expect.objectContaining({ sort: 'suspicion' }))
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

  it('sends task feedback with the chosen scope, then reloads the marks and the ranking', async () => {
    const w = await mountIt()
    const feedbackReads = A.feedback.mock.calls.length
    const wordReads = A.words.mock.calls.length
    await w.find('[data-testid=scope]').setValue('correct')
    await flushPromises()
    await w.find('[data-testid=task-remove]').trigger('click')
    await flushPromises()
    expect(A.setTaskFeedback).toHaveBeenCalledWith(1, { word: 'spielberg', action: 'remove', label: null, scope: 'correct' })
    expect(w.find('[data-testid=task-note]').text()).toBe('“spielberg” marked remove in examples the model predicts correctly.')
    expect(A.feedback.mock.calls.length).toBe(feedbackReads + 1)
    expect(A.words.mock.calls.length).toBe(wordReads + 1)
    expect(undoStack[0]).toMatchObject({ kind: 'task', word: 'spielberg', scope: 'correct', before: null })
  })

  it('marks the word only in the examples its task feedback applies to (gold label and scope)', async () => {
    A.feedback.mockResolvedValue({
      items: [
        fx.feedback({ level: 'task', word: 'spielberg', action: 'remove', label: null, scope: 'correct' }),
        fx.feedback({ level: 'task', word: 'spielberg', action: 'add', label: 0, scope: 'all' }),
      ],
      total: 2,
      offset: 0,
      limit: 1000,
    })
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
