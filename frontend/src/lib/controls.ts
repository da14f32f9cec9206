// Rows of the controls comparison (Results): one per metric of an eval set, the debugged model and
// each control as mean ± std over seeds, each difference with its paired-bootstrap 95 % interval,
// and the server's plain-words verdict. The numbers are the server's; nothing is recomputed here.
import type { SetComparison } from '../api/types'

export const ARM_NAMES: Record<string, string> = {
  debug: 'debugged',
  lambda0: 'λ = 0',
  deletion: 'deletion',
  deletion_base: 'deletion from base',
  strip: 'strip the words',
}

export function armName(arm: string): string {
  return ARM_NAMES[arm] ?? arm
}

export function metricName(metric: string, positive?: string | null): string {
  if (metric === 'accuracy') return 'accuracy'
  if (metric === 'macro_f1') return 'macro-F1'
  if (metric.startsWith('f1:')) return `F1 ${metric.slice(3)}`
  const flagged = positive ? `“${positive}”` : 'flagged class'
  if (metric === 'fpr_words') return `FPR ${flagged}, with the words`
  if (metric === 'fpr_other') return `FPR ${flagged}, other examples`
  if (metric === 'fpr_gap') return 'FPR gap (with − other)'
  if (metric === 'fnr_words') return `missed ${flagged}, with the words`
  if (metric === 'fnr_other') return `missed ${flagged}, other examples`
  return metric
}

/** What each control stands for, in a verdict's words. */
const RIVALS: Record<string, string> = {
  lambda0: 'continued training (λ = 0)',
  deletion: 'training on the texts without the words',
  deletion_base: 'deleting the words and fine-tuning the base model',
  strip: 'stripping the words before predicting',
}

/** A verdict in words for one metric against one control (issue 30 §3): "lower than continued training
 * (λ = 0) beyond seed noise", "within noise of …", "higher than … beyond seed noise". */
export function verdictWords(metric: string, control: string, verdict: string | null, diff: number | null): string | null {
  if (!verdict) return null
  const rival = RIVALS[control] ?? armName(control)
  if ((verdict !== 'better' && verdict !== 'worse') || diff == null) return `within noise of ${rival}`
  return `${diff < 0 ? 'lower' : 'higher'} than ${rival} beyond seed noise`
}

export interface ControlRow {
  metric: string
  before: number | null
  arms: { arm: string; mean: number | null; std: number | null }[]
  diffs: {
    control: string
    diff: number | null
    low: number | null
    high: number | null
    verdict: string | null
    words: string | null
  }[]
  verdict: string | null
}

function beforeValue(set: SetComparison, metric: string): number | null {
  const b = set.before as Record<string, unknown>
  if (metric.startsWith('f1:')) {
    const per = (b.per_class_f1 ?? {}) as Record<string, number | null>
    return per[metric.slice(3)] ?? null
  }
  const v = b[metric]
  return typeof v === 'number' ? v : null
}

const ORDER = ['accuracy', 'macro_f1', 'fpr_words', 'fpr_other', 'fpr_gap', 'fnr_words', 'fnr_other']

/** The metrics of one eval set in display order: accuracy, macro-F1, the word FPRs, then per-class F1. */
export function controlRows(set: SetComparison, arms: string[]): ControlRow[] {
  const debug = set.arms.debug
  if (!debug) return []
  const names = Object.keys(debug.mean)
  names.sort((x, y) => {
    const ix = ORDER.indexOf(x)
    const iy = ORDER.indexOf(y)
    return (ix < 0 ? ORDER.length : ix) - (iy < 0 ? ORDER.length : iy) || x.localeCompare(y)
  })
  const controls = arms.filter((a) => a !== 'debug' && set.arms[a])
  return names.map((metric) => ({
    metric,
    before: beforeValue(set, metric),
    arms: arms
      .filter((a) => set.arms[a])
      .map((arm) => ({ arm, mean: set.arms[arm].mean[metric] ?? null, std: set.arms[arm].std[metric] ?? null })),
    diffs: controls.map((control) => {
      const d = set.differences[control]?.[metric]
      return {
        control,
        diff: d?.diff ?? null,
        low: d?.ci_low ?? null,
        high: d?.ci_high ?? null,
        verdict: d?.verdict ?? null,
        words: verdictWords(metric, control, d?.verdict ?? null, d?.diff ?? null),
      }
    }),
    verdict: set.verdicts[metric]?.text ?? null,
  }))
}

/** "72.5% ± 1.2" (points), or "–". */
export function meanStd(mean: number | null, std: number | null): string {
  if (mean == null || !Number.isFinite(mean)) return '–'
  const m = `${(mean * 100).toFixed(1)}%`
  return std == null || !Number.isFinite(std) ? m : `${m} ± ${(std * 100).toFixed(1)}`
}

/** "+1.2 pt [−0.4, +2.8]": a difference in points and its 95 % interval. */
export function diffCi(diff: number | null, low: number | null, high: number | null): string {
  const pt = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}`
  if (diff == null || !Number.isFinite(diff)) return '–'
  const ci = low != null && high != null && Number.isFinite(low) && Number.isFinite(high) ? ` [${pt(low)}, ${pt(high)}]` : ''
  return `${pt(diff)} pt${ci}`
}
