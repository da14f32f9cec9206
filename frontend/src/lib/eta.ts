// The time left of a running job as the screen shows it. The job row's ETA is written only when the job
// reports progress (at most once a second, and not at all inside a long step), so the screen counts it
// down itself between reports: it never stands still while the elapsed time grows. A report that moves
// against that countdown (the server re-estimated from new rates), or a countdown that ran out while the
// job still runs, is said as "re-estimating" rather than shown as a jump or as "0 s left".
import { duration } from './duration'

/** A report moves "against the clock" when it differs from the countdown by more than this share (or 3 s). */
export const AGAINST_SHARE = 0.04
const AGAINST_FLOOR_S = 3

export interface EtaView {
  /** seconds left as shown, or null when unknown */
  seconds: number | null
  reestimating: boolean
  text: string
}

export class EtaClock {
  private eta: number | null = null
  private at = 0
  private moved = false

  /** A report of the job row's ``eta_s`` at ``now`` (ms). The same value again is no new report. */
  report(eta: number | null | undefined, now: number): void {
    if (eta == null) {
      this.eta = null
      this.moved = false
      return
    }
    if (eta === this.eta) return
    const counted = this.countdown(now)
    this.moved = counted != null && Math.abs(eta - counted) > Math.max(AGAINST_FLOOR_S, AGAINST_SHARE * counted)
    this.eta = eta
    this.at = now
  }

  private countdown(now: number): number | null {
    return this.eta == null ? null : Math.max(0, this.eta - (now - this.at) / 1000)
  }

  /** What to show at ``now`` (ms). */
  view(now: number): EtaView {
    const left = this.countdown(now)
    if (left == null) return { seconds: null, reestimating: false, text: 'time left: known after the first measured steps' }
    if (left < 1) return { seconds: 0, reestimating: true, text: 're-estimating the time left…' }
    const text = `about ${duration(left)} left`
    return this.moved ? { seconds: left, reestimating: true, text: `${text} (re-estimating)` } : { seconds: left, reestimating: false, text }
  }
}
