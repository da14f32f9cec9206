import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({
  api: { words: vi.fn(), wordExamples: vi.fn(), setTaskFeedback: vi.fn(), setFeedback: vi.fn(), explanation: vi.fn() },
}))

import { api } from '../api/endpoints'
import type { WordStats } from '../api/types'
import { undoStack } from '../stores/undo'
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

describe('WordRanking', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    A.words.mockResolvedValue({ items: [spielberg, plain], total: 2, offset: 0, limit: 50 })
  })

  it('lists words with importance, count, skew, suspicion and feedback colour', async () => {
    const w = mount(WordRanking, { props: { pid: 1, labels: ['negative', 'positive'], query: { version_id: 3 }, marks: new Map(), selected: null } })
    await flushPromises()
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
    expect(w.emitted('select')?.[0]).toEqual([plain])
    await w.find('#wr-sort').setValue('suspicion')
    await flushPromises()
    expect(A.words).toHaveBeenLastCalledWith(1, expect.objectContaining({ sort: 'suspicion' }))
  })
})

describe('WordExamples', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    undoStack.splice(0)
    A.wordExamples.mockResolvedValue({
      items: [
        fx.example({ id: 4, text: 'spielberg made it.', label: 1, prediction: { label: 1, probs: [0.2, 0.8], correct: true }, highlight: [0], spans: [[0, 9], [10, 14], [15, 17], [17, 18]] }),
        fx.example({ id: 5, text: 'a dull spielberg film', label: 0, prediction: { label: 1, probs: [0.3, 0.7], correct: false }, highlight: [2], spans: [[0, 1], [2, 6], [7, 16], [17, 21]] }),
      ],
      total: 2,
      offset: 0,
      limit: 10,
    })
    A.setTaskFeedback.mockResolvedValue({})
    A.setFeedback.mockResolvedValue({})
  })

  const mountIt = () =>
    mount(WordExamples, { props: { pid: 1, word: spielberg, labels: ['negative', 'positive'], query: {}, mark: null } })

  it('highlights the word in each example, keeping the text as written', async () => {
    const w = mountIt()
    await flushPromises()
    const items = w.findAll('[data-testid=word-examples] li')
    expect(items).toHaveLength(2)
    expect(items[0].find('.snippet-full').text()).toBe('spielberg made it.')
    expect(items[0].find('mark.hl-word').text()).toBe('spielberg')
    expect(items[1].find('mark.hl-word').text()).toBe('spielberg')
  })

  it('asks the API for the examples in the chosen scope and shows its page and total as they are', async () => {
    const w = mountIt()
    await flushPromises()
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
    expect(w.find('.pager').text()).toContain('17')
    A.wordExamples.mockResolvedValueOnce({ items: [], total: 0, offset: 0, limit: 10 })
    await w.find('[data-testid=scope]').setValue('incorrect')
    await flushPromises()
    expect(A.wordExamples).toHaveBeenLastCalledWith(1, 'spielberg', expect.objectContaining({ correctness: 'incorrect' }))
    expect(w.find('[data-testid=word-examples-empty]').text()).toContain('No examples in this scope')
  })

  it('sends task feedback with the chosen scope', async () => {
    const w = mountIt()
    await flushPromises()
    await w.find('[data-testid=scope]').setValue('correct')
    await flushPromises()
    await w.find('[data-testid=task-remove]').trigger('click')
    await flushPromises()
    expect(A.setTaskFeedback).toHaveBeenCalledWith(1, { word: 'spielberg', action: 'remove', label: null, scope: 'correct' })
    expect(w.find('[data-testid=task-note]').text()).toBe('“spielberg” marked remove in examples the model predicts correctly.')
    expect(w.emitted('changed')).toHaveLength(1)
    expect(undoStack[0]).toMatchObject({ kind: 'task', word: 'spielberg', scope: 'correct', before: null })
  })

  it('marks the word only in the examples its task feedback applies to (gold label and scope)', async () => {
    const w = mount(WordExamples, {
      props: {
        pid: 1,
        word: spielberg,
        labels: ['negative', 'positive'],
        query: {},
        mark: 'remove',
        taskFeedback: [
          fx.feedback({ level: 'task', word: 'spielberg', action: 'remove', label: null, scope: 'correct' }),
          fx.feedback({ level: 'task', word: 'spielberg', action: 'add', label: 0, scope: 'all' }),
        ],
      },
    })
    await flushPromises()
    const items = w.findAll('[data-testid=word-examples] li')
    // example 4 is predicted correctly: the scoped remove applies
    expect(items[0].find('mark.hl-word').classes()).toContain('m-remove')
    // example 5 is predicted wrongly (gold negative): only the add for gold negative applies
    expect(items[1].find('mark.hl-word').classes()).toContain('m-add')
  })

  it('removes the word in one example at its highlighted position', async () => {
    const w = mountIt()
    await flushPromises()
    await w.findAll('[data-testid=word-examples] li')[1].find('button.remove').trigger('click')
    await flushPromises()
    expect(A.setFeedback).toHaveBeenCalledWith(5, 2, 'remove')
    expect(w.findAll('[data-testid=word-examples] li')[1].find('mark.hl-word').classes()).toContain('m-remove')
  })
})
