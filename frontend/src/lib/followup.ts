// Controls that run after the debugged version (issue 30 §5): the version's `controls` (its plan, each
// run's status read from its job) in words, e.g. "Controls: 1 of 2 done, 1 running".
import { armName } from './controls'

export interface ControlRun {
  arm: string
  seed: number
  job_id: string | null
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled'
  version_id: number | null
  error?: string | null
}
/** VersionOut.controls (xmd.versions.service.live_controls). */
export interface LiveControls {
  arms: string[]
  seeds: number[]
  runs: ControlRun[]
  done: number
  ended: number
  total: number
}

/** "Controls: 1 of 2 done, 1 running" (the failed and cancelled ones named). */
export function controlsProgress(c: LiveControls): string {
  const count = (s: ControlRun['status']) => c.runs.filter((r) => r.status === s).length
  const parts = [`${c.done} of ${c.total} done`]
  for (const s of ['running', 'queued', 'failed', 'cancelled'] as const) {
    const n = count(s)
    if (n) parts.push(`${n} ${s}`)
  }
  return `Controls: ${parts.join(', ')}`
}

/** "λ = 0, seed 0": a run as the list names it. */
export function runName(r: ControlRun): string {
  return `${r.arm === 'debug' ? 'debugged' : armName(r.arm)}, seed ${r.seed}`
}

/** Whether some run may still finish (the screen keeps refreshing until none may). */
export function pending(c: LiveControls | null | undefined): boolean {
  return Boolean(c && c.runs.some((r) => r.status === 'queued' || r.status === 'running'))
}
