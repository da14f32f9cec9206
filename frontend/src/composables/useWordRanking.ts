// The task screen's word ranking: its filters and the page of words under the version/method shown.
import { reactive, ref, watch } from 'vue'
import { api } from '../api/endpoints'
import type { Page, WordStats } from '../api/types'
import { useAsync } from './useAsync'
import { debounce } from './useKeys'

export const WORDS_LIMIT = 50

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

export function useWordRanking(src: WordRankingSource) {
  // min count 2 by default: a word seen once has a mean over one example, which is mostly noise
  const filters = reactive<WordFilters>({ sort: 'importance', label: '', search: '', minCount: 2 })
  const offset = ref(0)
  const page = ref<Page<WordStats>>({ items: [], total: null, offset: 0, limit: WORDS_LIMIT })
  const state = useAsync()

  async function load() {
    const got = await state.run(() =>
      api.words(src.pid(), {
        sort: filters.sort,
        label: filters.label,
        search: filters.search.trim(),
        min_count: Math.max(1, Math.floor(filters.minCount || 1)),
        offset: offset.value,
        limit: WORDS_LIMIT,
        ...src.query(),
      }),
    )
    if (got) page.value = got.value
  }
  const firstPage = () => (offset.value === 0 ? load() : (offset.value = 0))
  const reloadSearch = debounce(firstPage, 300)

  watch(() => [filters.sort, filters.label, filters.minCount, src.query().version_id, src.query().method, src.reloadKey()], firstPage, { immediate: true })
  watch(() => filters.search, reloadSearch)
  watch(offset, load)

  return { filters, offset, page, busy: state.busy, error: state.error, load }
}
