import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'

import type { VsParent, VsParentRow } from '../api/types'
import ParentComparison from './ParentComparison.vue'

const row = (parent: number, next: number, lo: number, hi: number, verdict: VsParentRow['verdict']): VsParentRow => ({
  parent,
  new: next,
  diff: next - parent,
  ci_low: lo,
  ci_high: hi,
  noise: 0,
  verdict,
})

function vs(accuracy: VsParentRow, holdout = false): VsParent {
  return {
    names: ['v1', 'v2'],
    words: ['spielberg'],
    positive: { index: 1, label: 'positive', rule: 'word_lift' },
    holdout: holdout ? { name: 'held-out training share', share: 0.1, max_examples: 500, seed: 0, n: 4, n_train: 36 } : null,
    sets: {
      stf_test: {
        n: 400,
        n_seeds: 1,
        n_negative_words: 30,
        n_negative_other: 170,
        metrics: {
          accuracy,
          macro_f1: row(0.88, 0.87, -0.03, 0.01, 'within_noise'),
          fpr_words: row(0.6, 0.2, -0.55, -0.25, 'better'),
          fpr_other: row(0.1, 0.1, -0.02, 0.02, 'within_noise'),
        },
        sentences: {
          accuracy: 'v2 is 1.9 points less accurate on stf_test than v1 (…).',
          fpr_words: 'On stf_test, examples that contain the corrected words but are not positive …',
        },
      },
    },
    sentences: [],
  }
}

describe('ParentComparison', () => {
  it('flags an accuracy drop beyond noise in words and shows the slice FPR with its interval', () => {
    const w = mount(ParentComparison, { props: { vs: vs(row(0.9, 0.881, -0.031, -0.007, 'worse')) } })
    expect(w.find('[data-testid=harm-flag]').text()).toBe('v2 is 1.9 points less accurate on stf_test than v1 (…).')
    const rows = w.findAll('[data-testid=vs-parent-stf_test] tbody tr')
    expect(rows.map((r) => r.find('td').text().split(' ')[0])).toEqual(['accuracy', 'macro-F1', 'wrongly', 'wrongly'])
    expect(rows[0].text()).toContain('90.0%')
    expect(rows[0].text()).toContain('88.1%')
    expect(rows[0].text()).toContain('−1.9 pt')
    expect(rows[0].text()).toContain('−3.1 pt to −0.7 pt')
    expect(rows[0].text()).toContain('lower beyond noise')
    expect(rows[2].text()).toContain('with the corrected words')
    expect(rows[2].text()).toContain('(n = 30)')
    expect(rows[2].text()).toContain('60.0%')
    expect(rows[2].text()).toContain('−40.0 pt')
    expect(rows[2].text()).toContain('lower beyond noise')
    expect(rows[2].findAll('td')[5].classes()).toContain('delta-up')
    expect(w.find('[data-testid=vs-one-seed]').exists()).toBe(true)
    expect(w.find('[data-testid=fpr-sentence]').text()).toContain('corrected words')
    expect(w.find('[data-testid=holdout-note]').exists()).toBe(false)
  })

  it('says nothing alarming when accuracy is within noise, and states a held-out share', () => {
    const w = mount(ParentComparison, { props: { vs: vs(row(0.9, 0.895, -0.02, 0.01, 'within_noise'), true) } })
    expect(w.find('[data-testid=harm-flag]').exists()).toBe(false)
    expect(w.findAll('[data-testid=vs-parent-stf_test] tbody tr')[0].text()).toContain('within noise')
    expect(w.find('[data-testid=holdout-note]').text()).toContain('4 training examples (10 %, at most 500, seed 0)')
  })
})
