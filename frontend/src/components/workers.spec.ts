import { mount } from '@vue/test-utils'
import { describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({ api: { jobsWithWorkers: vi.fn(), versions: vi.fn() } }))

import { api } from '../api/endpoints'
import type { WorkerNotice } from '../api/types'
import { current, pollJobs } from '../stores/project'
import WorkerNotices from './WorkerNotices.vue'

const died = '2026-11-28T02:10:00Z'
const restarted = '2026-11-28T02:10:05Z'
const hhmm = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
const notice = (over: Partial<WorkerNotice> = {}): WorkerNotice => ({
  queue: 'celery-retrain',
  role: 'retrain',
  exit_code: -9,
  died_at: died,
  restart_in_s: 1,
  restarted_at: restarted,
  restarts: 1,
  message: 'the retrain worker was restarted at 02:10 UTC after it died (exit -9); restart 1 since the server started',
  ...over,
})

describe('WorkerNotices (issue 31: a restarted embedded worker is said above the jobs)', () => {
  it('says which worker was restarted, when (local time), why and how often', () => {
    const w = mount(WorkerNotices, { props: { notices: [notice()] } })
    const text = w.get('[data-testid="worker-notice"]').text()
    expect(text).toContain(`The retrain worker was restarted at ${hhmm(restarted)} after it died (exit -9)`)
    expect(text).toContain('restart 1 since the server started')
    expect(text).toContain('A job it was running then has failed: start it again.')
  })

  it('says a worker is down until its restart, and nothing when all is well', () => {
    const down = notice({ queue: 'celery', role: 'explain, evaluate and push', restarted_at: null, restarts: 0, restart_in_s: 5, exit_code: 1 })
    const w = mount(WorkerNotices, { props: { notices: [down] } })
    expect(w.text()).toBe(`The worker for explain, evaluate and push jobs died at ${hhmm(died)} (exit 1); restarting it in 5 s.`)
    expect(mount(WorkerNotices, { props: { notices: [] } }).find('[data-testid="worker-notice"]').exists()).toBe(false)
  })

  it("the project's job poll takes the notices from the jobs list", async () => {
    current.pid = 3
    current.activeJobs = []
    vi.mocked(api.jobsWithWorkers).mockResolvedValue({ jobs: [], workers: [notice()] })
    await pollJobs()
    expect(api.jobsWithWorkers).toHaveBeenCalledWith(3, true)
    expect(current.workerNotices).toHaveLength(1)
    vi.mocked(api.jobsWithWorkers).mockResolvedValue({ jobs: [], workers: [] })
    await pollJobs()
    expect(current.workerNotices).toEqual([])
  })
})
