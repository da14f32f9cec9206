// Team work (issue 32 §2, §3): work queues (an admin assigns, each annotator's Next walks theirs),
// progress per annotator and queue, and the project's agreement. Shapes mirror xmd.teamwork.schemas.
import { http } from './client'
import { asPage } from './normalize'
import type { Page } from './types'

export type QueueOrder = 'suspicious' | 'uncertain' | 'disagreement' | 'random'
export type ItemStatus = 'left' | 'done' | 'skipped'

export interface Progress {
  user_id: number
  user: string
  done: number
  skipped: number
  left: number
}

export interface Queue {
  id: number
  project_id: number
  name: string
  order: QueueOrder
  rule: string
  seed: number
  overlap: number
  source: Record<string, unknown>
  n_examples: number
  created_at: string
  progress: Progress[]
  done: number
  skipped: number
  left: number
}

export interface QueueItem {
  queue_id: number
  example_id: number
  example_ext_id: string | null
  user_id: number
  rank: number
  status: ItemStatus
  text: string | null
  label: number | null
}

export interface NextOut {
  item: QueueItem | null
  rule: string
  done: number | null
  skipped: number | null
  left: number | null
}

export interface PairAgreement {
  a: string
  b: string
  n_tokens: number
  observed: number | null
  kappa: number | null
}

export interface WordAgreement {
  word: string
  n_tokens: number
  marked: number
  unanimous: number
  disputed: number
  alpha: number | null
}

export interface Agreement {
  annotators: string[]
  n_examples: number
  n_tokens: number
  alpha: number | null
  fleiss_kappa: number | null
  pairs: PairAgreement[]
  per_word: WordAgreement[]
  n_words: number
  task: { n_words: number; alpha: number | null; pairs: PairAgreement[]; words: Record<string, string>[] }
  pending: boolean
  offset: number
  limit: number
}

export interface QueueIn {
  name: string
  annotators: number[]
  overlap: number
  order: QueueOrder
  seed?: number
  dataset_id?: number
  slice?: string
  words?: string[]
}

const P = (pid: number) => `/api/projects/${pid}`

export const teamworkApi = {
  queues: async (pid: number, q: { offset?: number; limit?: number } = {}): Promise<Page<Queue>> =>
    asPage<Queue>(await http.get(`${P(pid)}/queues`, q)),
  createQueue: (pid: number, body: QueueIn) => http.post<Queue>(`${P(pid)}/queues`, body),
  deleteQueue: (qid: number) => http.del<void>(`/api/queues/${qid}`),
  next: (qid: number) => http.get<NextOut>(`/api/queues/${qid}/next`, { counts: true }),
  setStatus: (qid: number, eid: number, status: ItemStatus) =>
    http.put<QueueItem>(`/api/queues/${qid}/items/${eid}`, { status }),
  agreement: (pid: number, q: { offset?: number; limit?: number } = {}) => http.get<Agreement>(`${P(pid)}/agreement`, q),
}
