import { describe, expect, it } from 'vitest'
import { asExplanation, asPage, sharesOf } from '../api/normalize'
import { divergingColor, intensities, textColor } from './colors'
import { duration, since } from './duration'
import { EtaClock } from './eta'
import { metricRows, oneClassNotes, sampleOf, shareRows, versionMetrics } from './metrics'
import type { ModelVersion } from '../api/types'
import { describeUndo } from '../stores/undo'
import { datasetDeleteNote, exampleRef } from './format'
import { ticks } from './scale'
import { isSuspicious, skewText, splitWords, suspicionText, taskMarks } from './words'

describe('colour scale', () => {
  it('is white at zero, orange for support and blue against', () => {
    expect(divergingColor(0)).toBe('rgb(255, 255, 255)')
    expect(divergingColor(1)).toBe('rgb(230, 97, 1)')
    expect(divergingColor(-1)).toBe('rgb(33, 102, 172)')
    expect(divergingColor(5)).toBe(divergingColor(1))
    expect(divergingColor(Number.NaN)).toBe('rgb(255, 255, 255)')
  })
  it('switches to white text on saturated cells', () => {
    expect(textColor(0.9)).toBe('#fff')
    expect(textColor(-0.2)).toBe('#1a1a1a')
  })
  it('scales shares to the strongest word and keeps the score sign', () => {
    expect(intensities([0.5, 0.25, 0.25], [2, -1, 1])).toEqual([1, -0.5, 0.5])
    expect(intensities([0, 0], [0, 0])).toEqual([0, 0])
  })
})

describe('normalisers', () => {
  it('reads the examples page and a bare list', () => {
    expect(asPage({ items: [1, 2], total: 10, offset: 2, limit: 2 })).toEqual({ items: [1, 2], total: 10, offset: 2, limit: 2 })
    expect(asPage([1, 2, 3]).total).toBe(3)
  })
  it('computes L1 shares like the core', () => {
    expect(sharesOf([1, -3])).toEqual([0.25, 0.75])
    expect(sharesOf([0, 0])).toEqual([0, 0])
  })
  it('splits instance and task marks and takes the prediction from the API', () => {
    const e = asExplanation({
      words: ['a', 'b', 'c'],
      scores: [1, -1, 2],
      shares: [0.25, 0.25, 0.5],
      probs: [0.3, 0.7],
      prediction: 1,
      target: 0,
      marks: [
        { word_index: 0, action: 'remove', level: 'instance' },
        { word_index: 2, action: 'add', level: 'task', scope: 'correct' },
      ],
    })
    expect(e.prediction).toBe(1)
    expect(e.target).toBe(0)
    expect(e.feedback).toEqual({ 0: 'remove' })
    // task marks are shown as the API lists them (it leaves out those whose scope does not apply)
    expect(e.taskMarks).toEqual({ 2: 'add' })
  })
})

describe('words', () => {
  it('splits like the core (inner apostrophes, punctuation alone)', () => {
    expect(splitWords("Don't stop, it's great!")).toEqual(["Don't", 'stop', ',', "it's", 'great', '!'])
  })
  it('describes label skew and flags a word suspicious only when the server does', () => {
    const w = { word: 'spielberg', count: 10, mean_importance: 0.3, label_counts: [1, 9], skew: 0.8, skew_label: 1, skew_label_name: null, suspicion: 0.24 }
    expect(skewText(w, ['neg', 'pos'])).toBe('90% pos')
    expect(isSuspicious({ ...w, suspicious: true })).toBe(true)
    // skewed, frequent and important, but the server says no: the UI has no rule of its own
    expect(isSuspicious({ ...w, suspicious: false })).toBe(false)
    const strong = { ...w, skew: 1, count: 100, suspicion: 0.9, suspicious: false }
    expect(isSuspicious(strong)).toBe(false)
  })
  it('shows the q-value and the lean behind the flag', () => {
    expect(suspicionText({ q_value: 3.2e-12, lean: 2.46 })).toBe('q 3e-12 · 2.5× avg')
    expect(suspicionText({ q_value: 0.0412, lean: 1 })).toBe('q 0.041 · 1.0× avg')
    expect(suspicionText({ q_value: 0, lean: 9 })).toBe('q <1e-300 · 9.0× avg')
  })
  it('keeps the latest task feedback per word', () => {
    const m = taskMarks([
      { level: 'task', word: 'Foo', action: 'remove' },
      { level: 'task', word: 'bar', action: 'add' },
      { level: 'task', word: 'bar', action: 'reset' },
      { level: 'instance', word: 'baz', action: 'remove' },
    ])
    expect([...m.entries()]).toEqual([['foo', 'remove']])
  })
})

describe('results tables', () => {
  it('flattens the compare metrics into rows with deltas', () => {
    const rows = metricRows({
      heldout: {
        n: { before: 10, after: 10, delta: 0 },
        accuracy: { before: 0.5, after: 0.75, delta: 0.25 },
        macro_f1: { before: 0.4, after: 0.6, delta: null },
      },
    })
    expect(rows).toHaveLength(2)
    expect(rows[0]).toEqual({ set: 'heldout', metric: 'accuracy', before: 0.5, after: 0.75, delta: 0.25, sample: '10' })
    expect(rows[1].delta).toBeCloseTo(0.2)
  })
  it('says when a set was measured on a capped sample', () => {
    const capped = { n: { before: 2000, after: 2000 }, n_total: { before: 1000000, after: 1000000 }, accuracy: { before: 0.5, after: 0.6 } }
    expect(metricRows({ big: capped })[0].sample).toBe('2,000 of 1,000,000 (capped)')
    expect(sampleOf({ n: 400, n_total: 400 })).toBe('400')
    expect(sampleOf({})).toBeNull()
  })
  it('lists corrected-word shares that were measured', () => {
    const rows = shareRows({
      before: { grad_x_input: { remove: { mean_share: 0.4, n: 3 }, add: { mean_share: null, n: 0 } } },
      after: { grad_x_input: { remove: { mean_share: 0.05, n: 3 }, add: { mean_share: null, n: 0 } } },
    })
    expect(rows).toEqual([{ method: 'grad_x_input', kind: 'remove', before: 0.4, after: 0.05, n: 3 }])
  })
  it('notes the eval sets with one gold class, with that class\'s F1 to read instead of macro-F1', () => {
    const metrics = {
      anti: { macro_f1: { before: 0, after: 0.496 }, per_class_f1: { negative: { before: 0, after: 0.992 }, positive: { before: 0, after: 0 } } },
      clean: { macro_f1: { before: 0.9, after: 0.9 } },
    }
    const sets = {
      anti: { dataset_id: 6, n_examples: 30, classes: { negative: 30 } },
      clean: { dataset_id: 7, n_examples: 30, classes: { negative: 15, positive: 15 } },
      gone: { dataset_id: 8, n_examples: 3, classes: { negative: 3 } },
    }
    expect(oneClassNotes(sets, metrics)).toEqual([{ set: 'anti', label: 'negative', before: 0, after: 0.992 }])
    expect(oneClassNotes(undefined, metrics)).toEqual([])
  })
  it('gives a version without metrics of its own those its retrain measured before training', () => {
    const v = (p: Partial<ModelVersion>) => ({ metrics: {}, parent_id: null, retrain: null, ...p }) as ModelVersion
    const base = v({ id: 1 })
    const child = v({ id: 2, parent_id: 1, metrics: { anti: { accuracy: 0.98 } }, retrain: { metrics_before: { anti: { accuracy: 0 } } } })
    expect(versionMetrics(base, [base, child])).toEqual({ metrics: { anti: { accuracy: 0 } }, from: child })
    expect(versionMetrics(child, [base, child])).toEqual({ metrics: { anti: { accuracy: 0.98 } }, from: null })
    expect(versionMetrics(v({ id: 3 }), [base, child])).toEqual({ metrics: {}, from: null })
  })
  it('names an example by the id in its file everywhere, the undo note included', () => {
    expect(exampleRef({ id: 8, ext_id: 'train-7' })).toBe('train-7')
    const note = describeUndo({ kind: 'instance', exampleId: 8, exampleRef: 'train-7', wordIndex: 2, word: 'dull', before: null, after: 'remove' })
    expect(note).toBe('remove “dull” in example train-7')
  })
  it('makes round ticks', () => {
    expect(ticks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1])
    expect(ticks(0, 1, 4)).toEqual([0, 0.5, 1])
    expect(ticks(0, 10, 5)).toEqual([0, 2, 4, 6, 8, 10])
  })
})

describe('durations', () => {
  it('reads as a person says them', () => {
    expect(duration(null)).toBe('—')
    expect(duration(44.6)).toBe('45 s')
    expect(duration(200)).toBe('3 min 20 s')
    expect(duration(120)).toBe('2 min')
    expect(duration(3900)).toBe('1 h 05 min')
  })
  it('counts seconds since a server time without a zone as UTC', () => {
    const now = Date.parse('2026-01-01T00:01:30Z')
    expect(since('2026-01-01T00:00:00', now)).toBe(90)
    expect(since('2026-01-01T00:00:00+00:00', now)).toBe(90)
    expect(since(null, now)).toBeNull()
  })
})

describe('datasetDeleteNote', () => {
  it('says how many feedback entries a delete takes with it', () => {
    expect(datasetDeleteNote({ name: 'train', n_examples: 1200, n_feedback: 3 })).toBe(
      'Delete dataset train: its 1,200 examples, their explanations (out of the rankings) and 3 feedback entries on them (their history stays in the feedback event log).',
    )
    expect(datasetDeleteNote({ name: 'train', n_examples: 5, n_feedback: 1 })).toContain('and 1 feedback entry on them')
    expect(datasetDeleteNote({ name: 'clean', n_examples: 5, n_feedback: 0 })).toContain('(no feedback is given on them)')
  })
})

describe('the time left of a running job (EtaClock)', () => {
  it('counts down between reports instead of standing still', () => {
    const c = new EtaClock()
    c.report(420, 0)
    expect(c.view(0).text).toBe('about 7 min left')
    expect(c.view(30_000).text).toBe('about 6 min 30 s left')
    c.report(420, 60_000) // the same row read again: no new report
    expect(c.view(60_000).seconds).toBe(360)
    c.report(359, 61_000) // a report in line with the clock
    expect(c.view(61_000)).toEqual({ seconds: 359, reestimating: false, text: 'about 5 min 59 s left' })
  })
  it('says "re-estimating" when a report moves against the clock, and when the countdown runs out', () => {
    const c = new EtaClock()
    c.report(420, 0)
    c.report(960, 2_000) // 7 -> 16 min within seconds
    expect(c.view(2_000)).toMatchObject({ reestimating: true, text: 'about 16 min left (re-estimating)' })
    c.report(950, 12_000) // back in line with the clock
    expect(c.view(12_000).reestimating).toBe(false)
    c.report(30, 20_000)
    expect(c.view(20_000).reestimating).toBe(true)
    expect(c.view(51_000)).toEqual({ seconds: 0, reestimating: true, text: 're-estimating the time left…' })
    c.report(null, 52_000)
    expect(c.view(52_000).text).toBe('time left: known after the first measured steps')
  })
})
