// Complete API objects for the specs: each builder fills the fields the generated schema requires
// with neutral values, so a spec names only what it is about and a new required field is added here once.
import type { ExampleRow, Explanation, FeedbackItem, Job, Me, MetricPoint, StoredPrediction } from '../api/types'

const T0 = '2026-01-01T00:00:00Z'

export function job(p: Pick<Job, 'id' | 'kind' | 'status'> & Partial<Job>): Job {
  return {
    cancel_requested: false,
    created_at: T0,
    epoch: null,
    error: null,
    finished_at: null,
    heartbeat_at: null,
    params: {},
    progress: 0,
    project_id: 1,
    result: null,
    started_at: null,
    step: null,
    total_steps: null,
    worker_host: null,
    ...p,
  }
}

export function metric(p: Pick<MetricPoint, 'id' | 'step'> & Partial<MetricPoint>): MetricPoint {
  return { epoch: null, er_loss: null, loss: null, lr: null, task_loss: null, ...p }
}

export function me(p: Pick<Me, 'id' | 'name' | 'role'>): Me {
  return { created_at: T0, ...p }
}

export function prediction(p: Omit<StoredPrediction, 'label_name'> & Partial<StoredPrediction>): StoredPrediction {
  return { label_name: String(p.label), ...p }
}

type ExampleIn = Pick<ExampleRow, 'id' | 'text' | 'label'> & Partial<Omit<ExampleRow, 'prediction'>> & { prediction?: Omit<StoredPrediction, 'label_name'> | null }

export function example(p: ExampleIn): ExampleRow {
  const { prediction: pred, ...rest } = p
  return {
    dataset_id: 5,
    ext_id: String(p.id),
    label_name: null,
    meta: {},
    n_feedback: 0,
    ...rest,
    prediction: pred ? prediction(pred) : pred,
  }
}

export function explanation(p: Pick<Explanation, 'words' | 'scores' | 'probs' | 'prediction' | 'target'> & Partial<Explanation>): Explanation {
  return {
    example_id: null,
    feedback: {},
    method: 'grad_x_input',
    n_seen: p.words.length,
    shares: p.scores.map(Math.abs),
    spans: [],
    target_name: String(p.target),
    taskMarks: {},
    text: p.words.join(' '),
    truncated: false,
    version_id: 1,
    ...p,
  }
}

export function feedback(p: Pick<FeedbackItem, 'level' | 'action'> & Partial<FeedbackItem>): FeedbackItem {
  return { id: 0, key: '', example_id: null, word_index: null, word: null, label: null, scope: null, ...p }
}
