// Saved slices: a name for a dataset and the example filters (the version and method shown are not
// part of it, so correct/incorrect follows the model on screen; a slice saved with them elsewhere
// switches them when applied).
import { computed, ref, type Ref } from 'vue'
import { api } from '../api/endpoints'
import type { Correctness, Dataset, ModelVersion, Slice, SliceFilters } from '../api/types'
import type { ExampleFilters } from './useExampleList'

/** The filter bar as a slice's filters: only what differs from the examples route's defaults. */
export function sliceFiltersOf(f: ExampleFilters): SliceFilters {
  const out: SliceFilters = {}
  const text = f.search.trim()
  if (text) out[f.regex ? 'regex' : 'search'] = text
  if (f.label !== '') out.label = f.label
  if (f.correctness !== 'all') out.correctness = f.correctness
  if (f.hasFeedback) out.has_feedback = f.hasFeedback === 'true'
  return out
}

/** A slice's filters as the filter bar shows them (a missing key is the route's default). */
export function barOf(f: SliceFilters | Record<string, unknown>): Omit<ExampleFilters, 'datasetId'> {
  const o = f as Record<string, unknown>
  const regex = typeof o.regex === 'string' ? o.regex.trim() : ''
  const label = o.label == null || o.label === '' ? NaN : Number(o.label)
  const hf = o.has_feedback == null || o.has_feedback === '' ? '' : String(o.has_feedback) === 'true' ? 'true' : 'false'
  return {
    search: regex || String(o.search ?? '').trim(),
    regex: !!regex,
    label: Number.isInteger(label) ? label : '',
    correctness: (o.correctness === 'correct' || o.correctness === 'incorrect' ? o.correctness : 'all') as Correctness,
    hasFeedback: hf,
  }
}

export interface SliceContext {
  pid: () => number
  /** the filter bar the slices save and set */
  filters: ExampleFilters
  /** datasets a slice may switch to */
  sets: Ref<Dataset[]>
  /** versions a slice may switch to */
  versions: Ref<ModelVersion[]>
  /** the version and method shown (a slice saved with them switches them) */
  view: { versionId: number | null; method: string }
}

export function useSlices(ctx: SliceContext) {
  const slices = ref<Slice[]>([])
  const name = ref('')
  const note = ref('')

  async function load() {
    try {
      slices.value = await api.slices(ctx.pid())
    } catch {
      /* the status bar shows it; filtering works without slices */
    }
  }

  function matches(s: Slice): boolean {
    const f = s.filters ?? {}
    if (s.dataset_id != null && s.dataset_id !== ctx.filters.datasetId) return false
    if (f.version_id != null && Number(f.version_id) !== ctx.view.versionId) return false
    if (f.method && f.method !== ctx.view.method) return false
    return JSON.stringify(barOf(f)) === JSON.stringify(barOf(sliceFiltersOf(ctx.filters)))
  }
  /** The saved slice the filters are set to now, if any. */
  const active = computed(() => slices.value.find(matches)?.name ?? '')

  function apply(sliceName: string) {
    const s = slices.value.find((x) => x.name === sliceName)
    if (!s) return
    note.value = ''
    if (s.dataset_id != null) {
      if (ctx.sets.value.some((d) => d.id === s.dataset_id)) ctx.filters.datasetId = s.dataset_id
      else note.value = `slice “${s.name}” names dataset ${s.dataset_id}, which is not a training set here; its filters apply to this one`
    }
    Object.assign(ctx.filters, barOf(s.filters ?? {}))
    const f = s.filters ?? {}
    if (f.version_id != null && ctx.versions.value.some((v) => v.id === Number(f.version_id))) ctx.view.versionId = Number(f.version_id)
    if (f.method) ctx.view.method = f.method
    name.value = s.name
  }

  async function save() {
    const n = name.value.trim()
    if (!n || ctx.filters.datasetId == null) return
    try {
      await api.saveSlice(ctx.pid(), { name: n, dataset_id: ctx.filters.datasetId, filters: sliceFiltersOf(ctx.filters) })
      note.value = `saved slice “${n}”`
      await load()
    } catch (e) {
      note.value = `slice not saved: ${(e as Error).message}`
    }
  }

  async function remove() {
    const n = active.value
    if (!n) return
    try {
      await api.deleteSlice(ctx.pid(), n)
      slices.value = slices.value.filter((s) => s.name !== n)
      note.value = `deleted slice “${n}” (the filters stay as they are)`
    } catch (e) {
      note.value = `slice not deleted: ${(e as Error).message}`
    }
  }

  return { slices, name, note, active, load, apply, save, remove }
}
