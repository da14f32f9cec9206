// The UI's names for the xmd REST API's shapes: aliases over the types generated from the server's
// OpenAPI schema (schema.d.ts, `npm run gen:api`), so a changed route shows up as a type error here.
// Hand-written are only the shapes inside fields the schema leaves open (free-form dicts: metrics,
// retrain results, slice filters) and what the UI itself derives (a page, the normalized explanation).
import type { components } from './schema'

type S = components['schemas']

export type Role = S['Role']
export type Action = S['Action']
export type Mark = Exclude<Action, 'reset'>
export type Scope = S['Scope']
/** The examples routes' `correctness` filter takes the same values as a feedback scope. */
export type Correctness = S['Scope']
export type JobStatus = S['JobStatus']
export type JobKind = S['JobKind']

export type Me = S['UserOut']
export type User = S['UserOut']
/** A user with a new token: the secret appears here once and never again. */
export type NewToken = S['TokenOut']
export type TokenInfo = S['TokenInfo']

/** The list routes' envelope; `total` is null where the UI reads a bare list. */
export interface Page<T> {
  items: T[]
  total: number | null
  offset: number
  limit: number
  /** how many training examples the page is built from (rankings and a word's examples only) */
  coverage?: Coverage | null
  /** the word ranking only: the minimum count the server chose from the data */
  min_count_default?: number
  /** the word ranking only: whose task feedback the words carry (the team's consensus, or blind one's own) */
  marks?: WordMarks | null
}

/** Training examples explained under one version and method, and the explain job filling the rest. */
export type Coverage = S['Coverage']
/** Examples of a dataset explained under one version and method (the Data tab's list). */
export type Explained = S['ExplainedOut']

export type Dataset = S['DatasetOut']
export type DatasetPreview = S['Preview']
export type Project = S['ProjectOut']
export type ProjectCreate = S['ProjectCreate']
/** The model a project's model was fine-tuned from, and its recipe (the deletion-from-base control). */
export type BaseModelIn = S['BaseModelIn']
export type BaseModelOut = S['BaseModelOut']
export type StoredPrediction = S['Prediction']
/** An example as the examples route lists it; the word-examples route adds the word's positions. */
export type ExampleRow = S['ExampleOut'] & Partial<Pick<S['WordExample'], 'highlight' | 'spans'>>

/** One eval set's metrics (VersionOut.metrics and the retrain result are free-form in the schema). */
export interface EvalMetrics {
  n?: number
  accuracy?: number
  macro_f1?: number
  per_class_f1?: Record<string, number | null>
  [key: string]: unknown
}

/** Mean share of the words marked remove / add, per attribution method. */
export type FeedbackShares = Record<string, { remove?: ShareSummary; add?: ShareSummary; method?: string }>
export interface ShareSummary {
  mean_share: number | null
  n: number
}

/** The retrain job's result for a debugged version (VersionOut.retrain, free-form in the schema). */
export interface RetrainResult {
  version_id?: number
  version?: number
  metrics_before?: Record<string, EvalMetrics> | null
  metrics_after?: Record<string, EvalMetrics> | null
  shares_before?: FeedbackShares | null
  shares_after?: FeedbackShares | null
  /** With controls: the comparison of the debug run and its controls over seeds. */
  comparison?: ControlComparison | null
  /** The new version against its parent on the same examples (xmd.core.vs_parent). */
  vs_parent?: VsParent | null
  /** With controls: the version id of every run, by "<arm>-seed<k>". */
  versions?: Record<string, number>
  /** The jobs explaining the training sets under the new version, started when it became ready. */
  explain_jobs?: { dataset_id: number; job_id: string | null; method?: string; error?: string }[]
}

export type ModelVersion = Omit<S['VersionOut'], 'retrain'> & { retrain?: RetrainResult | null }

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
export type Slice = Omit<S['Slice'], 'filters'> & { filters?: SliceFilters }

/** Feedback on one word of an explanation, as the API lists it (`marks`). */
export type WordMark = S['WordMark']
/** Task feedback attached to a ranked word. */
export type WordTaskFeedback = S['WordFeedback']
export type WordStats = S['WordOut']
/** Whose task feedback a word ranking's words carry: `consensus` (by the project's policy) or `own` (blind mode). */
export type WordMarks = S['WordMarks']

/** An explanation as the UI holds it: the API's, with its `marks` list read into two maps. */
export type Explanation = Omit<S['ExplanationOut'], 'marks'> & {
  /** word index -> instance feedback on this example */
  feedback: Record<number, Mark>
  /** word index -> task-level feedback that applies here (shown when there is no instance mark); the
   * API leaves out task feedback whose label or scope does not match this example */
  taskMarks: Record<number, Mark>
}

/** A row of the feedback list (current state) or of the click history (events): the fields they share,
 * plus each one's own timestamps. */
export type FeedbackItem = Omit<S['FeedbackOut'], 'updated_at' | 'updated_by'> &
  Partial<Pick<S['FeedbackOut'], 'updated_at' | 'updated_by'>> &
  Partial<Pick<S['EventOut'], 'created_at' | 'user'>>

export type Job = S['JobOut']
/** An embedded worker of `xmd serve` that died lately, and its restart (the jobs lists' `workers`). */
export type WorkerNotice = S['WorkerNoticeOut']
export type MetricPoint = S['MetricOut']
export type RetrainParams = S['RetrainIn']
export type RetrainEstimate = S['RetrainEstimate']
export type ForecastParams = S['ForecastIn']

/** One eval set's forecast (the job's ``result.forecast.sets[name]``, from xmd.core.forecast). */
export interface ForecastInterval {
  diff: number | null
  ci_low: number | null
  ci_high: number | null
}
export interface ForecastSet {
  n: number
  sampled_from: number
  n_with_words: number
  n_negative_words: number
  positive_label: string
  fpr_words: { now: number | null; erased: number | null; random: number | null }
  fpr_other: { now: number | null; erased: number | null; random: number | null }
  accuracy: { now: number | null; erased: number | null; random: number | null }
  erased_vs_now: { accuracy: ForecastInterval; fpr_words: ForecastInterval }
  erased_vs_random: { accuracy: ForecastInterval; fpr_words: ForecastInterval }
  sentence: string
}
export interface Forecast {
  words: string[]
  max_examples: number
  version: number
  sets: Record<string, ForecastSet>
}

export interface Diff {
  before: number | null
  after: number | null
  delta: number | null
}

/** The compare route's answer, with the example's two explanations normalized. */
export type Comparison = Omit<S['CompareOut'], 'a' | 'b' | 'metrics' | 'shares' | 'example'> & {
  a: ModelVersion
  b: ModelVersion
  /** eval set -> metric -> {before, after, delta} (per_class_f1 nests one level deeper) */
  metrics: Record<string, Record<string, unknown>>
  shares: { before: FeedbackShares | null; after: FeedbackShares | null } | null
  example: { a: Explanation; b: Explanation } | null
}

/** An example the Results picker offers (`ext_id` is the id every screen shows), and a page of one group. */
export type ExamplePick = S['PickOut']
export type PickGroup = 'feedback' | 'task_words' | 'changed'
export type PicksPage = S['PicksPage']
/** What an eval set holds (its gold classes), to read its metrics right. */
export type EvalSetInfo = S['EvalSetOut']

/** Evaluation-mode imports (feedback from a rationale column or a word list). */
export type ImportIn = S['ImportIn']
export type RationalesIn = S['RationalesIn']
export type WordsIn = S['WordsIn']
/** The import's answer; `summary` is the core's ImportSummary (xmd.core.simulate), free-form in the schema. */
export type ImportOut = Omit<S['ImportOut'], 'summary'> & { summary?: ImportSummary | null }
export interface ImportSummary {
  source: string
  level: 'instance' | 'task'
  n_rows: number
  n_examples: number
  n_words: number
  n_add: number
  n_remove: number
  skipped: Record<string, number>
  skipped_examples: Record<string, string[]>
  top_words: { word: string; count: number }[]
  details: Record<string, unknown>
}

/** Mean and std over seeds of one arm (xmd.core.compare.compare_predictions). */
export interface ArmStats {
  mean: Record<string, number | null>
  std: Record<string, number | null>
  per_seed?: unknown[]
}
export interface Difference {
  diff: number | null
  ci_low: number | null
  ci_high: number | null
  noise?: number | null
  verdict?: string
}
export interface SetComparison {
  n: number
  before: EvalMetrics & { fpr_words?: number | null; fpr_other?: number | null }
  arms: Record<string, ArmStats>
  differences: Record<string, Record<string, Difference>>
  verdicts: Record<string, { verdict: string; text: string; per_control: Record<string, string> }>
}
/** A debug run beside its controls over seeds (Comparison.to_dict() without per-example arrays),
 * stored in the retrain job's result (VersionOut.retrain.comparison). */
export interface ControlComparison {
  arms: string[]
  seeds: number[]
  labels: string[]
  positive: { index: number; label: string; rule: string } | null
  removed_words: string[]
  sets: Record<string, SetComparison>
  settings?: Record<string, unknown>
  quality?: {
    before: Record<string, Record<string, number | null>>
    after: Record<string, Record<string, { mean: Record<string, number | null>; std: Record<string, number | null> }>>
  } | null
  notes?: string[]
  verdict_rule?: string
}

/** One metric of a version against its parent: both values, the change (new − parent, a fraction) with
 * its paired-bootstrap 95 % interval, the seed noise and the verdict (xmd.core.vs_parent.compare_set). */
export interface VsParentRow {
  parent: number | null
  new: number | null
  diff: number | null
  ci_low: number | null
  ci_high: number | null
  noise: number | null
  verdict: 'better' | 'worse' | 'within_noise'
}
export interface VsParentSet {
  n: number
  n_seeds: number
  n_negative_words: number | null
  n_negative_other: number | null
  metrics: Partial<Record<'accuracy' | 'macro_f1' | 'fpr_words' | 'fpr_other', VsParentRow>>
  sentences?: Partial<Record<'accuracy' | 'fpr_words', string>>
}
/** A retrained version against its parent (ModelVersion.config.vs_parent; also the retrain result's). */
export interface VsParent {
  names: [string, string]
  words: string[]
  positive: { index: number; label: string; rule: string } | null
  holdout: { name: string; share: number; max_examples: number; seed: number; n: number; n_train: number } | null
  sets: Record<string, VsParentSet>
  sentences: string[]
}
