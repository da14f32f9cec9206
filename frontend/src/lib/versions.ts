// Which version a screen starts from. Issue 30 §6: after a retrain, *Start from* kept following the
// version the explanation screens showed, so a second retrain (and its controls) silently started from
// the already-fixed model. Now it keeps the version the user chose or last retrained from (per project),
// and says so when that version is itself a debugged one. *Deploy* defaults to the newest ready model
// (not a control arm), and *Download* has its own choice.
import type { ModelVersion } from '../api/types'

/** A control arm of a comparison (its config names the arm), not a model to deploy or start from. */
export const isControl = (v: ModelVersion): boolean => Boolean((v.config as { control?: string | null } | null)?.control)

/** The newest ready version that is not a control arm (else the newest ready one). */
export function newestReady(versions: ModelVersion[]): ModelVersion | null {
  const ready = versions.filter((v) => v.status === 'ready').sort((a, b) => a.version - b.version)
  const models = ready.filter((v) => !isControl(v))
  return models[models.length - 1] ?? ready[ready.length - 1] ?? null
}

/** *Start from*: the version chosen (or retrained from) before, while it is ready; else the one the
 * explanation screens show; else the newest ready model. */
export function startFromDefault(versions: ModelVersion[], chosen: number | null, shown: number | null): number | null {
  const ready = versions.filter((v) => v.status === 'ready')
  for (const id of [chosen, shown]) if (id != null && ready.some((v) => v.id === id)) return id
  return newestReady(versions)?.id ?? null
}

/** Says what *Start from* means when it is a debugged version: a retrain and its controls start from the
 * fixed model, not from the one it was debugged from. Empty for a base version. */
export function startFromNote(versions: ModelVersion[], id: number | null): string {
  const v = versions.find((x) => x.id === id)
  if (!v || v.kind !== 'debugged') return ''
  const parent = versions.find((x) => x.id === v.parent_id)
  const from = parent ? ` from v${parent.version}` : ''
  return `v${v.version} is already a debugged model${from}: this retrain and its controls start from it${parent ? `, not from v${parent.version}` : ''}.`
}

const KEY = (pid: number) => `xmd.retrainFrom.${pid}`

/** The version the user last chose or retrained from in this project (null if none kept). */
export function recalledStart(pid: number): number | null {
  try {
    const v = Number(localStorage.getItem(KEY(pid)))
    return Number.isInteger(v) && v > 0 ? v : null
  } catch {
    return null
  }
}

export function rememberStart(pid: number, id: number | null): void {
  try {
    if (id != null) localStorage.setItem(KEY(pid), String(id))
  } catch {
    /* storage off: the choice lasts while the tab is open */
  }
}
