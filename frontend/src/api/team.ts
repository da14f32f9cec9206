// Several people on one project (issue 32): everyone's marks on an example, "done" in blind mode, the
// project's team settings, and a reviewer's conflicts. The shapes mirror the backend's
// xmd.feedback.schemas (PersonMark, ExampleMarksOut, TeamSettingsIO, ConflictOut, DecideIn).
import { http } from './client'
import { asPage } from './normalize'
import type { Page } from './types'

export type Policy = 'union' | 'majority' | 'at_least_k' | 'reviewed'

export interface PersonMark {
  key: string
  level: 'instance' | 'task'
  example_id: number | null
  word_index: number | null
  word: string | null
  label: number | null
  scope: string | null
  action: 'add' | 'remove' | 'reset'
  by: string
  mine: boolean
}

export interface ExampleMarks {
  example_id: number
  blind: boolean
  done: boolean
  /** others' marks are hidden from this reader (blind mode, example not done yet) */
  hidden: boolean
  items: PersonMark[]
}

export interface TeamSettings {
  policy: Policy
  k: number | null
  blind: boolean
}

export interface Conflict {
  key: string
  level: 'instance' | 'task'
  example_id: number | null
  example_ext_id: string | null
  dataset_id: number | null
  word_index: number | null
  word: string | null
  label: number | null
  scope: string | null
  raters: number
  votes: Record<'add' | 'remove' | 'none', string[]>
  dispute: number
  decision: string | null
  decided_action: string | null
}

export type Decision = 'accept' | 'reject' | 'edit'

/** What a retrain would train on now (GET /consensus with limit 0): the counts, not the marks. The route
 * reads a bounded window of whole examples: `capped` says the counts are those of the first `examples`. */
export interface ConsensusSummary {
  policy: Policy
  k: number | null
  instance: number
  task: number
  conflicts: number
  contributors: Record<string, number>
  reviewed: number
  examples: number
  capped: boolean
}

const P = (pid: number) => `/api/projects/${pid}`

export const teamApi = {
  marks: (eid: number) => http.get<ExampleMarks>(`/api/examples/${eid}/marks`, undefined, { quiet: true }),
  done: (eid: number) => http.post<{ example_id: number; done: boolean }>(`/api/examples/${eid}/done`),
  settings: (pid: number) => http.get<TeamSettings>(`${P(pid)}/team/settings`),
  saveSettings: (pid: number, body: TeamSettings) =>
    http.put<TeamSettings>(`${P(pid)}/team/settings`, body, { quiet: true }),
  consensus: (pid: number) => http.get<ConsensusSummary>(`${P(pid)}/consensus`, { limit: 0 }),
  conflicts: async (pid: number, q: { offset?: number; limit?: number; include_decided?: boolean } = {}) => {
    const raw = await http.get<{ capped?: boolean }>(`${P(pid)}/conflicts`, q)
    return { ...asPage<Conflict>(raw), capped: Boolean(raw.capped) } as Page<Conflict> & { capped: boolean }
  },
  decide: (pid: number, body: { key: string; decision: Decision; action?: 'add' | 'remove' }) =>
    http.post<{ key: string; decision: Decision; action: string | null; event_id: number; reviewer: string }>(
      `${P(pid)}/conflicts/decide`,
      body,
    ),
}
