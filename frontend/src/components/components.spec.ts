import { mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it } from 'vitest'
import { nextTick } from 'vue'
import { beginRequest, clearErrors, recordError } from '../stores/status'
import AttributedText from './AttributedText.vue'
import BarChart from './BarChart.vue'
import JobProgress from './JobProgress.vue'
import LineChart from './LineChart.vue'
import PagerBar from './PagerBar.vue'
import ProbBars from './ProbBars.vue'
import StatusBar from './StatusBar.vue'
import * as fx from '../testing/fixtures'

const words = ['the', 'acting', 'by', 'spielberg', 'was', 'great']
const scores = [0.01, 0.2, -0.05, 0.6, 0.0, 0.14]
const total = scores.reduce((s, x) => s + Math.abs(x), 0)
const shares = scores.map((x) => Math.abs(x) / total)

describe('AttributedText', () => {
  it('shades each word and states its score as text', () => {
    const w = mount(AttributedText, { props: { words, scores, shares } })
    const buttons = w.findAll('button.w')
    expect(buttons).toHaveLength(6)
    // the strongest word is fully orange, a negative one is blue-ish
    expect(buttons[3].attributes('style')).toContain('rgb(230, 97, 1)')
    expect(buttons[2].attributes('style')).toMatch(/rgb\(\d+, \d+, \d+\)/)
    expect(buttons[3].attributes('aria-label')).toBe('spielberg: share 60.0%, score +0.6000')
    expect(buttons[2].attributes('aria-label')).toContain('score −0.0500')
  })

  it('shows the score of the hovered word in the inspector', async () => {
    const w = mount(AttributedText, { props: { words, scores, shares } })
    await w.findAll('button.w')[1].trigger('mouseenter')
    expect(w.find('.inspector').text()).toBe('acting: share 20.0%, score +0.2000')
  })

  it('opens the pop-up on click and emits the chosen action', async () => {
    const w = mount(AttributedText, { props: { words, scores, shares }, attachTo: document.body })
    await w.findAll('button.w')[3].trigger('click')
    const popup = w.find('.word-popup')
    expect(popup.exists()).toBe(true)
    expect(popup.text()).toContain('“spielberg”')
    await popup.find('button.remove').trigger('click')
    expect(w.emitted('action')).toEqual([[3, 'remove']])
    expect(w.find('.word-popup').exists()).toBe(false)
    w.unmount()
  })

  it('closes the pop-up with Escape without emitting', async () => {
    const w = mount(AttributedText, { props: { words, scores, shares } })
    await w.findAll('button.w')[0].trigger('click')
    await w.find('.word-popup').trigger('keydown', { key: 'Escape' })
    expect(w.find('.word-popup').exists()).toBe(false)
    expect(w.emitted('action')).toBeUndefined()
  })

  it('marks removed and added words, task-wide marks dashed', () => {
    const w = mount(AttributedText, { props: { words, scores, shares, feedback: { 3: 'remove' }, taskMarks: { 1: 'add', 3: 'add' } } })
    const b = w.findAll('button.w')
    expect(b[3].classes()).toContain('m-remove')
    expect(b[3].find('.mark').text()).toBe('✕')
    expect(b[1].classes()).toEqual(expect.arrayContaining(['m-add', 'task-mark']))
    expect(b[1].find('.mark').text()).toBe('+')
    expect(b[1].attributes('aria-label')).toContain('marked add (task-wide)')
    expect(b[0].find('.mark').exists()).toBe(false)
  })

  it('is read-only when asked', async () => {
    const w = mount(AttributedText, { props: { words, scores, shares, readonly: true } })
    await w.findAll('button.w')[3].trigger('click')
    expect(w.find('.word-popup').exists()).toBe(false)
    expect(w.emitted('update:active')).toEqual([[3]])
  })

  it('keeps the text’s own spacing when spans are given', () => {
    const text = "Don't stop,  ok."
    const w = mount(AttributedText, {
      props: {
        words: ["Don't", 'stop', ',', 'ok', '.'],
        scores: [1, 1, 1, 1, 1],
        shares: [0.2, 0.2, 0.2, 0.2, 0.2],
        text,
        spans: [[0, 5], [6, 10], [10, 11], [13, 15], [15, 16]],
      },
    })
    expect(w.find('.attributed-text').text()).toBe("Don't stop, ok.")
  })

  it('gives one tab stop: the active word', () => {
    const w = mount(AttributedText, { props: { words, scores, shares, active: 2 } })
    const tabbable = w.findAll('button.w').filter((b) => b.attributes('tabindex') === '0')
    expect(tabbable).toHaveLength(1)
    expect(tabbable[0].text()).toBe('by')
  })
})

describe('StatusBar', () => {
  beforeEach(() => clearErrors())

  it('shows pending requests and the latest error one click away', async () => {
    const done = beginRequest('GET /api/x')
    const w = mount(StatusBar)
    expect(w.text()).toContain('1 request pending')
    done()
    recordError({ method: 'PUT', path: '/api/examples/4/feedback', status: 422, message: 'word 99 does not exist' })
    await nextTick()
    expect(w.text()).toContain('Ready')
    const btn = w.find('button.sb-errors')
    expect(btn.text()).toContain('1 error — word 99 does not exist')
    expect(w.find('#sb-error-list').exists()).toBe(false)
    await btn.trigger('click')
    const list = w.find('#sb-error-list')
    expect(list.text()).toContain('PUT /api/examples/4/feedback')
    expect(list.text()).toContain('422')
  })
})

describe('charts and small parts', () => {
  it('draws one path per loss series with the latest value in the legend', () => {
    const w = mount(LineChart, {
      props: {
        series: [
          { name: 'task loss', color: '#2166ac', points: [{ x: 1, y: 0.9 }, { x: 2, y: 0.7 }, { x: 3, y: 0.5 }] },
          { name: 'ER loss', color: '#e66101', points: [{ x: 1, y: 0.3 }, { x: 2, y: 0.1 }] },
        ],
      },
    })
    const paths = w.findAll('path[data-series]')
    expect(paths).toHaveLength(2)
    expect(paths[0].attributes('d')).toMatch(/^M[\d.]+,[\d.]+ L[\d.]+,[\d.]+ L/)
    expect(w.find('figcaption').text()).toContain('task loss: 0.5000')
    expect(w.find('figcaption').text()).toContain('ER loss: 0.1000')
  })

  it('draws grouped bars with their values as titles', () => {
    const w = mount(BarChart, {
      props: { groups: [{ label: 'heldout', values: [{ name: 'before', value: 0.5 }, { name: 'after', value: 0.8 }] }] },
    })
    const rects = w.findAll('rect')
    expect(rects).toHaveLength(2)
    expect(rects[1].find('title').text()).toBe('heldout, after: 80.0%')
    expect(Number(rects[1].attributes('height'))).toBeGreaterThan(Number(rects[0].attributes('height')))
  })

  it('scales bars to the data when asked, so small shares stay visible', () => {
    const w = mount(BarChart, {
      props: { max: 'auto', groups: [{ label: 'x', values: [{ name: 'before', value: 0.04 }, { name: 'after', value: 0.015 }] }] },
    })
    const labels = w.findAll('g.axis text').map((t) => t.text())
    expect(labels).toContain('5%')
    expect(labels).not.toContain('100%')
  })

  it('shows a job progress in percent and offers cancel while it runs', async () => {
    const job = fx.job({ id: 'j1', kind: 'retrain', status: 'running', progress: 42, step: 5, total_steps: 12, epoch: 0.8 })
    const w = mount(JobProgress, { props: { job } })
    expect(w.find('[role=progressbar]').attributes('aria-valuenow')).toBe('42')
    expect(w.text()).toContain('step 5 / 12')
    await w.find('button').trigger('click')
    expect(w.emitted('cancel')).toHaveLength(1)
    await w.setProps({ job: { ...job, status: 'failed', progress: 50, error: 'CUDA out of memory' } })
    expect(w.find('button').exists()).toBe(false)
    expect(w.find('[role=alert]').text()).toBe('CUDA out of memory')
  })

  it('pages without knowing the total', async () => {
    const w = mount(PagerBar, { props: { offset: 20, limit: 20, total: null, shown: 20 } })
    expect(w.text()).toContain('21–40')
    const [prev, next] = w.findAll('button')
    await next.trigger('click')
    await prev.trigger('click')
    expect(w.emitted('update:offset')).toEqual([[40], [0]])
    await w.setProps({ shown: 7 })
    expect(w.findAll('button')[1].attributes('disabled')).toBeDefined()
  })

  it('marks the gold and predicted class', () => {
    const w = mount(ProbBars, { props: { labels: ['neg', 'pos'], probs: [0.3, 0.7], gold: 0, prediction: 1 } })
    const li = w.findAll('li')
    expect(li[0].text()).toContain('gold')
    expect(li[1].text()).toContain('predicted')
    expect(li[1].text()).toContain('70.0%')
  })
})
