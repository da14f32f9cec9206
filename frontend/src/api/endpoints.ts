// One typed function per REST route the UI uses (docs/API.md). List routes answer the page envelope;
// the functions that return a plain array read its first page (100 items by default: more than a
// project holds of projects, datasets, slices or versions).
import { currentToken, http, withQuery, type Query } from './client'
import { asExplanation, asPage } from './normalize'
import type {
  Action,
  BaseModelIn,
  Comparison,
  Coverage,
  Dataset,
  DatasetPreview,
  ExampleRow,
  Explanation,
  FeedbackItem,
  ForecastParams,
  ImportIn,
  ImportOut,
  Job,
  JobKind,
  JobStatus,
  Me,
  MetricPoint,
  NewToken,
  ModelVersion,
  Page,
  PickGroup,
  PicksPage,
  Project,
  ProjectCreate,
  RetrainEstimate,
  RetrainParams,
  Role,
  Scope,
  Slice,
  TokenInfo,
  User,
  WordMarks,
  WordStats,
  WorkerNotice,
} from './types'

const P = (pid: number) => `/api/projects/${pid}`

export const api = {
  me: () => http.get<Me>('/api/me', undefined, { quiet: true }),
  /** `hub`: reachable / unreachable / offline; `token`: whether the server has HF_TOKEN (set / missing). */
  hub: () => http.get<{ hub: string; token?: string }>('/api/health/hub', undefined, { quiet: true }),

  // projects
  projects: async () => asPage<Project>(await http.get('/api/projects')).items,
  project: (pid: number) => http.get<Project>(P(pid)),
  createProject: (body: ProjectCreate) => http.post<Project>('/api/projects', body, { quiet: true }),
  uploadProject: (form: FormData) => http.form<Project>('/api/projects/upload', form, { quiet: true }),
  /** "Fine-tune a model on my data first": the file's columns, then the job that makes the project. */
  previewTrainingData: (form: FormData) =>
    http.form<DatasetPreview>('/api/projects/from-data/preview', form, { quiet: true }),
  projectFromData: (form: FormData) => http.form<Job>('/api/projects/from-data', form, { quiet: true }),
  deleteProject: (pid: number) => http.del<void>(P(pid), { quiet: true }),
  updateProject: (pid: number, body: { name?: string; description?: string }) =>
    http.patch<Project>(P(pid), body, { quiet: true }),
  /** Record (replace) the project's base model; `forgetBaseModel` removes it. */
  setBaseModel: (pid: number, body: BaseModelIn) => http.put<Project>(`${P(pid)}/base-model`, body, { quiet: true }),
  forgetBaseModel: (pid: number) => http.del<Project>(`${P(pid)}/base-model`, { quiet: true }),
  renameDataset: (did: number, name: string) => http.patch<Dataset>(`/api/datasets/${did}`, { name }, { quiet: true }),
  deleteDataset: (did: number) => http.del<void>(`/api/datasets/${did}`, { quiet: true }),

  // users and tokens (admins)
  users: async () => asPage<User>(await http.get('/api/users')).items,
  createUser: (body: { name: string; role: Role; expires_in_days?: number | null }) =>
    http.post<NewToken>('/api/users', body, { quiet: true }),
  setRole: (uid: number, role: Role) => http.patch<User>(`/api/users/${uid}`, { role }, { quiet: true }),
  deleteUser: (uid: number) => http.del<void>(`/api/users/${uid}`, { quiet: true }),
  tokens: async (uid: number) => asPage<TokenInfo>(await http.get(`/api/users/${uid}/tokens`)).items,
  createToken: (uid: number, body: { name: string; expires_in_days?: number | null }) =>
    http.post<NewToken>(`/api/users/${uid}/tokens`, body, { quiet: true }),
  revokeToken: (uid: number, tid: number) => http.del<void>(`/api/users/${uid}/tokens/${tid}`, { quiet: true }),

  // datasets
  datasets: async (pid: number) => asPage<Dataset>(await http.get(`${P(pid)}/datasets`)).items,
  previewDataset: (pid: number, form: FormData) =>
    http.form<DatasetPreview>(`${P(pid)}/datasets/preview`, form, { quiet: true }),
  uploadDataset: (pid: number, form: FormData) => http.form<Dataset>(`${P(pid)}/datasets`, form, { quiet: true }),
  examples: async (did: number, q: Query) => asPage<ExampleRow>(await http.get(`/api/datasets/${did}/examples`, q)),
  /** The example with the id every screen shows (`train-7`: its id in its file), as a person types it. */
  findExample: (pid: number, ext_id: string, q: Query = {}) =>
    http.get<ExampleRow>(`${P(pid)}/examples/find`, { ext_id, ...q }, { quiet: true }),
  /** Saved example filters of the project (named; a later save under the same name replaces it). */
  slices: async (pid: number) => asPage<Slice>(await http.get(`${P(pid)}/slices`)).items,
  saveSlice: (pid: number, body: Slice) => http.post<Slice>(`${P(pid)}/slices`, body, { quiet: true }),
  deleteSlice: (pid: number, name: string) => http.del<void>(`${P(pid)}/slices/${encodeURIComponent(name)}`, { quiet: true }),

  // explanations
  explanation: async (eid: number, q: Query = {}): Promise<Explanation> =>
    asExplanation(await http.get(`/api/examples/${eid}/explanation`, q)),
  /** Every word carries the server's `suspicious` flag (xmd.core.aggregate.is_suspicious) and its task
   * feedback as the reader may see it (`marks`: the team's consensus, or in blind mode one's own). */
  words: async (pid: number, q: Query): Promise<Page<WordStats>> => {
    const raw = await http.get<{ min_count_default?: number; marks?: WordMarks | null }>(`${P(pid)}/words`, q)
    return { ...covered(asPage<WordStats>, raw), min_count_default: raw?.min_count_default, marks: raw?.marks ?? null }
  },
  wordExamples: async (pid: number, word: string, q: Query) =>
    covered(asPage<ExampleRow>, await http.get(`${P(pid)}/words/${encodeURIComponent(word)}/examples`, q)),
  /** How many training examples are explained under a version and method (what a ranking is built from). */
  coverage: (pid: number, q: Query) => http.get<Coverage>(`${P(pid)}/coverage`, q, { quiet: true }),

  // feedback
  setFeedback: (eid: number, word_index: number, action: Action) =>
    http.put<unknown>(`/api/examples/${eid}/feedback`, { word_index, action }),
  setTaskFeedback: (pid: number, body: { word: string; action: Action; label?: number | null; scope: Scope }) =>
    http.put<unknown>(`${P(pid)}/task-feedback`, body),
  feedback: async (pid: number, q: Query = {}) => asPage<FeedbackItem>(await http.get(`${P(pid)}/feedback`, q)),
  /** The click history paged by event id: oldest first with `after_id`, or `order: 'desc'` with
   * `before_id` for the latest clicks first. */
  feedbackEvents: async (pid: number, q: Query = {}) =>
    asPage<FeedbackItem>(await http.get(`${P(pid)}/feedback/events`, q)).items,
  exportFeedback: (pid: number) => http.get<unknown>(`${P(pid)}/feedback/export`),
  importFeedback: (pid: number, dataset_id: number, feedback: unknown) =>
    http.post<ImportOut>(`${P(pid)}/feedback/import`, { dataset_id, feedback }, { quiet: true }),
  /** Feedback simulated from a rationale column or a word list; `preview: true` writes nothing. */
  importSimulated: (pid: number, body: ImportIn) =>
    http.post<ImportOut>(`${P(pid)}/feedback/import`, body, { quiet: true }),

  // what if
  predict: async (pid: number, text: string, version_id?: number, method?: string): Promise<Explanation> =>
    asExplanation(await http.post(`${P(pid)}/predict`, { text, version_id, method: method || undefined })),

  // jobs
  explainJob: (pid: number, body: { dataset_id?: number; version_id?: number; method?: string }) =>
    http.post<Job>(`${P(pid)}/jobs/explain`, body),
  retrainJob: (pid: number, body: RetrainParams) => http.post<Job>(`${P(pid)}/jobs/retrain`, body, { quiet: true }),
  retrainEstimate: (pid: number, body: RetrainParams) =>
    http.post<RetrainEstimate>(`${P(pid)}/jobs/retrain/estimate`, body, { quiet: true }),
  forecastJob: (pid: number, body: ForecastParams) => http.post<Job>(`${P(pid)}/jobs/forecast`, body, { quiet: true }),
  evaluateJob: (pid: number, body: { version_id: number; dataset_ids?: number[] }) =>
    http.post<Job>(`${P(pid)}/jobs/evaluate`, body),
  pushJob: (pid: number, body: { version_id: number; repo_id: string; private: boolean; token?: string }) =>
    http.post<Job>(`${P(pid)}/jobs/push`, body, { quiet: true }),
  jobs: async (pid: number, quiet = false) => asPage<Job>(await http.get(`${P(pid)}/jobs`, undefined, { quiet })).items,
  /** The project's jobs and what `xmd serve`'s supervisor did to its workers lately (`workers`). */
  jobsWithWorkers: async (pid: number, quiet = false) => {
    const raw = await http.get<{ workers?: WorkerNotice[] }>(`${P(pid)}/jobs`, undefined, { quiet })
    return { jobs: asPage<Job>(raw).items, workers: raw.workers ?? [] }
  },
  /** Every job (newest first), e.g. `{ kind: 'prepare_demo', limit: 1 }`: the demo's set-up, tied to no project. */
  allJobs: async (query: { kind?: JobKind; status?: JobStatus; limit?: number } = {}) =>
    asPage<Job>(await http.get('/api/jobs', query, { quiet: true })).items,
  job: (jid: string) => http.get<Job>(`/api/jobs/${jid}`, undefined, { quiet: true }),
  metrics: async (jid: string, after?: number) =>
    asPage<MetricPoint>(await http.get(`/api/jobs/${jid}/metrics`, { after }, { quiet: true })).items,
  cancelJob: (jid: string) => http.post<Job>(`/api/jobs/${jid}/cancel`),
  /** EventSource cannot send headers, so this route takes the token as a query parameter. */
  jobEventsUrl: (jid: string) => withQuery(`/api/jobs/${jid}/events`, { token: currentToken() }),

  // versions
  versions: async (pid: number) => asPage<ModelVersion>(await http.get(`${P(pid)}/versions`)).items,
  compare: async (pid: number, a: number, b: number, example_id?: number, method?: string): Promise<Comparison> => {
    const raw = await http.get<Comparison>(`${P(pid)}/compare`, { a, b, example_id, method })
    const ex = raw.example as { a?: unknown; b?: unknown } | null | undefined
    return {
      ...raw,
      metrics: raw.metrics ?? {},
      shares: raw.shares ?? null,
      example: ex?.a && ex?.b ? { a: asExplanation(ex.a), b: asExplanation(ex.b) } : null,
    }
  },
  /** One page of one group of examples worth comparing under versions a and b (computed server-side). */
  comparePicks: (pid: number, a: number, b: number, group: PickGroup, q: Query = {}) =>
    http.get<PicksPage>(`${P(pid)}/compare/examples`, { a, b, group, ...q }),
  /** Link to the version as a .tar.gz: a plain `<a href download>` cannot send the bearer header, so
   * this route (like the job events) takes the token as a query parameter. */
  // A URL valid for a few minutes with a signature instead of the API token, for a plain browser download.
  downloadLink: (vid: number) =>
    http.post<{ url: string; expires_at: string }>(`/api/versions/${vid}/download-link`, undefined, { quiet: true }),
}

/** A page that carries its coverage (the ranking routes): the envelope plus how much it is built from. */
function covered<T>(asP: (raw: unknown) => Page<T>, raw: unknown): Page<T> {
  return { ...asP(raw), coverage: (raw as { coverage?: Coverage } | null)?.coverage ?? null }
}

export type Api = typeof api
export type { Page }
