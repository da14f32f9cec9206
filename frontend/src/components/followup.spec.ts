import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'

import type { VsParent, VsParentRow } from '../api/types'
import { verdictWords } from '../lib/controls'
import { controlsProgress, pending, type LiveControls } from '../lib/followup'
import ControlsProgress from './ControlsProgress.vue'
import ParentComparison from './ParentComparison.vue'

// VersionOut.controls of a debugged version whose λ = 0 and deletion controls run after it (issue 30 §5).
function controls(second: 'queued' | 'running' | 'done' | 'failed' | 'cancelled', error?: string): LiveControls {
  const runs: LiveControls['runs'] = [
    { arm: 'lambda0', seed: 0, job_id: 'j1', status: 'done', version_id: 3 },
    { arm: 'deletion', seed: 0, job_id: 'j2', status: second, version_id: null, error },
  ]
  const done = runs.filter((r) => r.status === 'done').length
  const ended = runs.filter((r) => r.status === 'failed' || r.status === 'cancelled').length
  return { arms: ['lambda0', 'deletion'], seeds: [0], runs, done, ended, total: 2 }
}

describe('controls after the version', () => {
  it('says "controls: 1 of 2 done" while the second runs, and that the comparison is partial', () => {
    const w = mount(ControlsProgress, { props: { controls: controls('running'), hasComparison: true } })
    expect(w.find('[data-testid=controls-count]').text()).toBe('Controls: 1 of 2 done, 1 running')
    expect(w.text()).toContain('covers the controls done so far')
    expect(w.findAll('li').map((li) => li.text())).toEqual(['λ = 0, seed 0: done', 'deletion, seed 0: running'])
    expect(pending(controls('running'))).toBe(true)
  })

  it('names a failed control with its error and stops waiting', () => {
    const c = controls('failed', 'the worker was lost')
    const w = mount(ControlsProgress, { props: { controls: c, hasComparison: true } })
    expect(controlsProgress(c)).toBe('Controls: 1 of 2 done, 1 failed')
    expect(w.find('[data-status=failed]').text()).toContain('the worker was lost')
    expect(w.text()).not.toContain('appear here')
    expect(pending(c)).toBe(false)
  })

  it('says the version is ready before any control is done', () => {
    const c = { ...controls('queued'), done: 0, runs: controls('queued').runs.map((r) => ({ ...r, status: 'queued' as const })) }
    const w = mount(ControlsProgress, { props: { controls: c, hasComparison: false } })
    expect(w.find('[data-testid=controls-count]').text()).toBe('Controls: 0 of 2 done, 2 queued')
    expect(w.text()).toContain('The version is ready')
  })

  it('puts a verdict in words per metric and control', () => {
    expect(verdictWords('fpr_words', 'lambda0', 'better', -0.12)).toBe('lower than continued training (λ = 0) beyond seed noise')
    expect(verdictWords('accuracy', 'strip', 'worse', -0.02)).toBe('lower than stripping the words before predicting beyond seed noise')
    expect(verdictWords('accuracy', 'lambda0', 'within_noise', 0.01)).toBe('within noise of continued training (λ = 0)')
    expect(verdictWords('fnr_words', 'deletion', 'worse', 0.1)).toBe('higher than training on the texts without the words beyond seed noise')
  })
})

const row = (parent: number, next: number, verdict: VsParentRow['verdict']): VsParentRow => ({
  parent, new: next, diff: next - parent, ci_low: next - parent - 0.05, ci_high: next - parent + 0.05, noise: 0, verdict,
})

describe('ParentComparison without controls', () => {
  it('shows the false-negative rate of the flagged class on the words slice and off it, with its n', () => {
    const vs = {
      names: ['v1', 'v2'], words: ['spielberg'], positive: { index: 1, label: 'positive', rule: 'word_lift' }, holdout: null,
      sets: {
        anti: {
          n: 100, n_seeds: 1, n_negative_words: 20, n_negative_other: 30, n_positive_words: 12, n_positive_other: 38,
          metrics: {
            accuracy: row(0.8, 0.82, 'within_noise'),
            fpr_words: row(0.5, 0.2, 'better'),
            fnr_words: row(0.1, 0.3, 'worse'),
            fnr_other: row(0.2, 0.2, 'within_noise'),
          },
          sentences: { fnr_words: 'On anti, examples that contain the corrected words and are positive are missed …' },
        },
      },
      sentences: [],
    } as unknown as VsParent
    const w = mount(ParentComparison, { props: { vs } })
    const rows = w.findAll('[data-testid=vs-parent-anti] tbody tr')
    expect(rows.map((r) => r.find('td').text().split(' ')[0])).toEqual(['accuracy', 'wrongly', 'missed', 'missed'])
    expect(rows[2].text()).toContain('with the corrected words')
    expect(rows[2].text()).toContain('(n = 12)')
    expect(rows[2].text()).toContain('higher beyond noise')
    expect(rows[3].text()).toContain('(n = 38)')
    expect(w.find('[data-testid=fnr-sentence]').text()).toContain('are missed')
  })
})
