// The task screen's word ranking: its filters and the page of words under the version/method shown.
// The sort order and a minimum count the user typed are kept per project (localStorage): leaving the tab
// and coming back finds the ranking as it was. Until the user types one, the minimum count is the one the
// server chose from the data (the page's min_count_default), so a small set's suspicion list does not
// start with words seen twice.
import { reactive, ref, watch } from 'vue'
import { api } from '../api/endpoints'
import type { Page, WordStats } from '../api/types'
import { useAsync } from './useAsync'
import { debounce } from './useKeys'

export const WORDS_LIMIT = 50
/** Before the server has said: a word seen once has a mean over one example, which is mostly noise. */
export const FALLBACK_MIN_COUNT = 2

export interface WordFilters {
  sort: 'importance' | 'count' | 'suspicion'
  label: '' | number
  search: string
  minCount: number
}

export interface WordRankingSource {
  pid: () => number
  query: () => { version_id?: number; method?: string }
  /** changes when the ranking must be read again (feedback given, a job ended) */
  reloadKey: () => number
}

const SORTS: WordFilters['sort'][] = ['importance', 'count', 'suspicion']
const storeKey = (pid: number) => `xmd.words.${pid}`

/** What the user chose on this project's ranking before: its sort, and a minimum count typed in. */
export function savedFilters(pid: number): { sort?: WordFilters['sort']; minCount?: number } {
  try {
    const raw = JSON.parse(localStorage.getItem(storeKey(pid)) ?? '{}') as { sort?: string; minCount?: unknown }
    return {
      sort: SORTS.find((s) => s === raw.sort),
      minCount: typeof raw.minCount === 'number' && raw.minCount >= 1 ? Math.floor(raw.minCount) : undefined,
    }
  } catch {
    return {}
  }
}

export function useWordRanking(src: WordRankingSource) {
  const saved = savedFilters(src.pid())
  const filters = reactive<WordFilters>({ sort: saved.sort ?? 'importance', label: '', search: '', minCount: saved.minCount ?? FALLBACK_MIN_COUNT })
  /** the user typed a minimum count (kept); else the server's choice applies */
  let minChosen = saved.minCount != null
  let minFromData: number | null = null
  const offset = ref(0)
  const page = ref<Page<WordStats>>({ items: [], total: null, offset: 0, limit: WORDS_LIMIT })
  const state = useAsync()

  function save() {
    try {
      localStorage.setItem(storeKey(src.pid()), JSON.stringify({ sort: filters.sort, minCount: minChosen ? filters.minCount : undefined }))
    } catch {
      /* storage full or off: the choice lasts while the tab is open */
    }
  }

  async function load() {
    const asked = Math.max(1, Math.floor(filters.minCount || 1))
    const got = await state.run(() =>
      api.words(src.pid(), {
        sort: filters.sort,
        label: filters.label,
        search: filters.search.trim(),
        min_count: asked,
        offset: offset.value,
        limit: WORDS_LIMIT,
        ...src.query(),
      }),
    )
    if (!got) return
    const fromData = got.value.min_count_default
    if (!minChosen && fromData != null && fromData !== asked) {
      // the server chose another minimum from the data: read the page again with it (the watch below)
      minFromData = fromData
      filters.minCount = fromData
      return
    }
    page.value = got.value
  }
  const firstPage = () => (offset.value === 0 ? load() : (offset.value = 0))
  const reloadSearch = debounce(firstPage, 300)

  watch(
    () => filters.minCount,
    (v) => {
      if (v === minFromData) return
      minChosen = true
      save()
    },
  )
  watch(() => filters.sort, save)
  watch(() => [filters.sort, filters.label, filters.minCount, src.query().version_id, src.query().method, src.reloadKey()], firstPage, { immediate: true })
  watch(() => filters.search, reloadSearch)
  watch(offset, load)

  return { filters, offset, page, busy: state.busy, error: state.error, load }
}
