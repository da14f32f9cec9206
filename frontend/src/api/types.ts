// Shapes of the xmd REST API (docs/API.md; the live schema is /openapi.json).
// Optional fields are ones the UI can live without, so a smaller response still renders.

export type Role = 'viewer' | 'annotator' | 'admin'
export type Action = 'add' | 'remove' | 'reset'
export type Mark = 'add' | 'remove'
export type Scope = 'all' | 'correct' | 'incorrect'
export type Correctness = 'correct' | 'incorrect' | 'all'
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
export type JobKind = 'explain' | 'retrain' | 'evaluate' | 'push'

export interface Me {
  id: number
  name: string
  role: Role
}

export interface Page<T> {
  items: T[]
  total: number | null
  offset: number
  limit: number
}

export interface Dataset {
  id: number
  project_id?: number
  name: string
  role: 'train' | 'eval'
  n_examples: number
  source_name?: string | null
  text_column?: string
  label_column?: string | null
  label_counts?: Record<string, number>
  created_at?: string
}

export interface EvalMetrics {
  n?: number
  accuracy?: number
  macro_f1?: number
  per_class_f1?: Record<string, number | null>
  [key: string]: unknown
}

export interface ModelVersion {
  id: number
  project_id?: number
  parent_id: number | null
  version: number
  name: string
  kind: 'base' | 'debugged'
  status: 'ready' | 'training' | 'failed'
  metrics: Record<string, unknown>
  feedback_snapshot?: Record<string, unknown> | null
  config?: Record<string, unknown>
  created_at?: string
  /** the retrain job's result for a debugged version: metrics and corrected-word shares before/after */
  retrain?: RetrainResult | null
}

/** Mean share of the words marked remove / add, per attribution method. */
export type FeedbackShares = Record<string, { remove?: ShareSummary; add?: ShareSummary; method?: string }>
export interface ShareSummary {
  mean_share: number | null
  n: number
}

export interface RetrainResult {
  version_id?: number
  version?: number
  metrics_before?: Record<string, EvalMetrics> | null
  metrics_after?: Record<string, EvalMetrics> | null
  shares_before?: FeedbackShares | null
  shares_after?: FeedbackShares | null
}

export interface Project {
  id: number
  name: string
  description?: string
  labels: string[]
  model_source?: string
  created_at?: string
  base_version_id?: number | null
  latest_version_id?: number | null
  n_datasets?: number
  n_examples?: number
  n_feedback?: number
}

export interface ProjectCreate {
  name: string
  labels?: string[]
  model_path?: string
  hub_id?: string
  description?: string
}

export interface DatasetPreview {
  format?: string
  columns: string[]
  rows: Record<string, unknown>[]
  n_rows?: number | null
}

export interface StoredPrediction {
  label: number
  label_name?: string
  probs: number[]
  correct: boolean | null
}

export interface ExampleRow {
  id: number
  dataset_id?: number
  ext_id?: string
  text: string
  label: number | null
  label_name?: string | null
  /** from the stored explanation under the version asked for, when there is one */
  prediction?: StoredPrediction | null
  n_feedback?: number
  /** word positions of the searched word (word-examples route) */
  highlight?: number[]
  spans?: [number, number][]
}

/** Query parameters of the examples route a slice may keep (the API refuses other keys). */
export interface SliceFilters {
  search?: string
  regex?: string
  label?: number
  correctness?: Correctness
  has_feedback?: boolean
  version_id?: number
  method?: string
}

/** A named, saved filter of a dataset's examples. */
export interface Slice {
  name: string
  dataset_id?: number | null
  filters: SliceFilters
}

/** Feedback on one word of an explanation, as the API lists it: instance feedback, and the task
 * feedback that applies to the example (its word, gold label and prediction scope). */
export interface WordMark {
  word_index: number
  action: Action
  level: 'instance' | 'task'
  scope?: Scope | null
  label?: number | null
}

/** Task feedback attached to a ranked word. */
export interface WordTaskFeedback {
  action: Action
  label: number | null
  scope: Scope | null
}

export interface Explanation {
  example_id?: number | string | null
  words: string[]
  spans?: [number, number][]
  scores: number[]
  shares: number[]
  target: number
  /** the predicted class, from the API (argmax of probs, first class on ties) */
  prediction: number
  probs: number[]
  method?: string
  n_seen?: number
  truncated?: boolean
  /** word index -> instance feedback on this example */
  feedback: Record<number, Mark>
  /** word index -> task-level feedback that applies here (shown when there is no instance mark); the
   * API leaves out task feedback whose label or scope does not match this example */
  taskMarks: Record<number, Mark>
  label?: number | null
  label_name?: string | null
  target_name?: string
  version_id?: number
  text?: string
}

export interface WordStats {
  word: string
  count: number
  mean_importance: number
  mean_signed?: number
  label_counts?: number[]
  skew?: number
  skew_label?: number | null
  skew_label_name?: string | null
  suspicion?: number
  suspicious?: boolean
  feedback?: WordTaskFeedback[]
}

export interface FeedbackItem {
  id?: number
  key?: string
  level: 'instance' | 'task'
  example_id?: number | null
  word_index?: number | null
  word?: string | null
  label?: number | null
  scope?: Scope | null
  action: Action
  updated_by?: string | null
  user?: string | null
  updated_at?: string
  created_at?: string
}

export interface Job {
  id: string
  project_id?: number | null
  kind: JobKind
  status: JobStatus
  /** 0–100 */
  progress: number
  step?: number | null
  total_steps?: number | null
  epoch?: number | null
  params?: Record<string, unknown>
  result?: Record<string, unknown> | null
  error?: string | null
  cancel_requested?: boolean
  created_at?: string
  started_at?: string | null
  finished_at?: string | null
}

export interface MetricPoint {
  id: number
  step: number
  epoch?: number | null
  task_loss?: number | null
  er_loss?: number | null
  loss?: number | null
  lr?: number | null
}

export interface RetrainParams {
  version_id?: number
  loss: 'mse' | 'mae' | 'huber'
  lam: number
  objective?: 'both' | 'erasure' | 'attribution'
  epochs: number
  lr?: number
  batch_size?: number
  eval_dataset_ids?: number[]
}

export interface Diff {
  before: number | null
  after: number | null
  delta: number | null
}

export interface Comparison {
  a: ModelVersion
  b: ModelVersion
  /** eval set -> metric -> {before, after, delta} (per_class_f1 nests one level deeper) */
  metrics: Record<string, Record<string, unknown>>
  shares: { before: FeedbackShares | null; after: FeedbackShares | null } | null
  example: { a: Explanation; b: Explanation } | null
}
