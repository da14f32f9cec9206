// The instance screen's example list: filters, paging and the selected row (and moving through
// rows across pages). Reloads when the filters, the version/method shown or the project's data change.
import { computed, reactive, ref, watch, type Ref } from 'vue'
import { api } from '../api/endpoints'
import type { Correctness, Dataset, ExampleRow, Page } from '../api/types'
import { useAsync } from './useAsync'
import { debounce } from './useKeys'

export const LIST_LIMIT = 20

/** The filter bar, as the person set it (a slice stores only what differs from the route's defaults). */
export interface ExampleFilters {
  datasetId: number | null
  correctness: Correctness
  label: '' | number
  search: string
  /** send the search text as a regular expression (`regex`) instead of a substring (`search`) */
  regex: boolean
  hasFeedback: '' | 'true' | 'false'
}

export interface ExampleListSource {
  /** the datasets one may list (the project's training sets) */
  sets: Ref<Dataset[]>
  /** the version and method shown: the list's predictions and correctness are under them */
  query: () => { version_id?: number; method?: string }
  /** changes when a job of the project ends: reload, keeping the selected example */
  dataVersion: () => number
}

export function useExampleList(src: ExampleListSource) {
  const filters = reactive<ExampleFilters>({
    datasetId: src.sets.value[0]?.id ?? null,
    correctness: 'correct',
    label: '',
    search: '',
    regex: false,
    hasFeedback: '',
  })
  const offset = ref(0)
  const page = ref<Page<ExampleRow>>({ items: [], total: null, offset: 0, limit: LIST_LIMIT })
  const sel = ref(0)
  const state = useAsync()
  const example = computed(() => page.value.items[sel.value] ?? null)

  async function load(keep = false) {
    const did = filters.datasetId
    if (!did) return
    const got = await state.run(() =>
      api.examples(did, {
        offset: offset.value,
        limit: LIST_LIMIT,
        correctness: filters.correctness,
        label: filters.label,
        search: filters.regex ? undefined : filters.search.trim(),
        regex: filters.regex ? filters.search.trim() : undefined,
        has_feedback: filters.hasFeedback,
        ...src.query(),
      }),
    )
    if (!got) return
    // keep: a background job ended; stay on the same example if it is still listed
    const keepId = keep ? example.value?.id : undefined
    page.value = got.value
    const again = got.value.items.findIndex((e) => e.id === keepId)
    sel.value = again >= 0 ? again : 0
  }

  const reloadSearch = debounce(() => {
    offset.value = 0
    void load()
  }, 300)

  watch(
    () => [filters.datasetId, filters.correctness, filters.label, filters.hasFeedback, filters.regex, src.query().version_id, src.query().method],
    () => {
      offset.value = 0
      void load()
    },
    { immediate: true },
  )
  watch(() => filters.search, reloadSearch)
  watch(src.dataVersion, () => load(true))
  watch(src.sets, (sets) => {
    if (filters.datasetId == null && sets.length) filters.datasetId = sets[0].id
  })
  watch(offset, () => load())

  /** Select the next/previous row, turning the page at either end. */
  function move(delta: number) {
    const next = sel.value + delta
    const n = page.value.items.length
    if (next >= 0 && next < n) sel.value = next
    else if (next >= n && n === LIST_LIMIT) {
      offset.value += LIST_LIMIT
    } else if (next < 0 && offset.value > 0) {
      offset.value = Math.max(0, offset.value - LIST_LIMIT)
      // select the last row of the previous page once it arrives
      const stop = watch(page, () => {
        sel.value = Math.max(0, page.value.items.length - 1)
        stop()
      })
    }
  }

  return { filters, offset, page, sel, example, busy: state.busy, error: state.error, load, move }
}
