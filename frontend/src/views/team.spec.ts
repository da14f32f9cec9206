// Issue 32 in the UI: the others' marks with names beside an example (blind mode: a "done" button
// first), the reader's own marks alone on the text, roles up to reviewer, and the Conflicts screen.
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ref } from 'vue'

vi.mock('../api/team', () => ({
  teamApi: {
    marks: vi.fn(),
    done: vi.fn(),
    settings: vi.fn(),
    saveSettings: vi.fn(),
    consensus: vi.fn(),
    conflicts: vi.fn(),
    decide: vi.fn(),
  },
}))

import { feedbackMap } from '../api/normalize'
import { teamApi, type Conflict, type ExampleMarks, type PersonMark } from '../api/team'
import OthersMarks from '../components/OthersMarks.vue'
import { useTeamMarks } from '../composables/useTeamMarks'
import { auth, can } from '../stores/auth'
import { current } from '../stores/project'
import ConflictsView from './ConflictsView.vue'

const T = vi.mocked(teamApi)
const pm = (over: Partial<PersonMark>): PersonMark => ({
  key: 'i:1:0',
  level: 'instance',
  example_id: 1,
  word_index: 0,
  word: 'Spielberg',
  label: null,
  scope: null,
  action: 'remove',
  by: 'ann',
  mine: false,
  ...over,
})
const marks = (over: Partial<ExampleMarks>): ExampleMarks => ({ example_id: 1, blind: false, done: false, hidden: false, items: [], ...over })
const conflict = (over: Partial<Conflict>): Conflict => ({
  key: 'i:1:0',
  level: 'instance',
  example_id: 1,
  example_ext_id: 'train-5',
  dataset_id: 1,
  word_index: 0,
  word: 'dialogue',
  label: null,
  scope: null,
  raters: 3,
  votes: { add: ['bob'], remove: ['ann', 'cy'], none: [] },
  dispute: 1 / 3,
  decision: null,
  decided_action: null,
  ...over,
})

const SUMMARY = {
  policy: 'union' as const,
  k: null,
  instance: 3,
  task: 1,
  conflicts: 1,
  contributors: { ann: 2, bob: 2 },
  reviewed: 0,
  examples: 2,
  capped: false,
}

beforeEach(() => {
  vi.resetAllMocks()
  T.settings.mockResolvedValue({ policy: 'union', k: null, blind: false })
  T.consensus.mockResolvedValue(SUMMARY)
  auth.me = { id: 1, name: 'rev', role: 'reviewer', created_at: '2026-01-01T00:00:00Z' }
  current.pid = 7
})

describe('OthersMarks', () => {
  it("shows the others' marks with their names, not the reader's own", () => {
    const items = [pm({}), pm({ by: 'me', mine: true, word_index: 1, action: 'add' }), pm({ by: 'bob', word_index: 2, action: 'add' })]
    const w = mount(OthersMarks, { props: { marks: marks({ items }), words: ['Spielberg', 'great', 'plot'] } })
    const rows = w.findAll('[data-testid=other-person]').map((r) => r.text())
    expect(rows).toEqual(['ann: remove “Spielberg”', 'bob: add “plot”'])
    expect(w.find('[data-testid=done-button]').exists()).toBe(false)
  })

  it('in blind mode hides them behind a done button, which it emits', async () => {
    const w = mount(OthersMarks, { props: { marks: marks({ blind: true, hidden: true }), words: [] } })
    expect(w.find('[data-testid=blind-note]').exists()).toBe(true)
    await w.find('[data-testid=done-button]').trigger('click')
    expect(w.emitted('done')).toHaveLength(1)
    const ro = mount(OthersMarks, { props: { marks: marks({ blind: true, hidden: true }), words: [], readonly: true } })
    expect(ro.find('[data-testid=done-button]').exists()).toBe(false)
  })

  it('says when nobody else marked the example', () => {
    const w = mount(OthersMarks, { props: { marks: marks({ items: [pm({ mine: true })] }), words: ['a'] } })
    expect(w.find('[data-testid=no-others]').exists()).toBe(true)
  })
})

describe('useTeamMarks', () => {
  it('loads the example, marks it done and reloads', async () => {
    T.marks.mockResolvedValueOnce(marks({ blind: true, hidden: true })).mockResolvedValue(marks({ blind: true, done: true, items: [pm({})] }))
    T.done.mockResolvedValue({ example_id: 1, done: true })
    const ex = ref<{ id: number } | null>({ id: 1 })
    const t = useTeamMarks(ex, 0)
    await flushPromises()
    expect(t.marks.value?.hidden).toBe(true)
    await t.done()
    expect(T.done).toHaveBeenCalledWith(1)
    expect(t.others().map((m) => m.by)).toEqual(['ann'])
  })
})

describe('own marks and roles', () => {
  it("puts only the reader's own marks on the text", () => {
    const raw = [
      { word_index: 0, action: 'remove', level: 'instance', mine: false, by: 'ann' },
      { word_index: 1, action: 'add', level: 'instance', mine: true, by: 'me' },
      { word_index: 2, action: 'remove', level: 'instance' }, // an older server: no owner fields, still shown
    ]
    expect(feedbackMap(raw)).toEqual({ 1: 'add', 2: 'remove' })
  })

  it('ranks reviewer between annotator and admin', () => {
    expect([can('annotator'), can('reviewer'), can('admin')]).toEqual([true, true, false])
    auth.me = { id: 2, name: 'ann', role: 'annotator', created_at: '2026-01-01T00:00:00Z' }
    expect([can('annotator'), can('reviewer')]).toEqual([true, false])
  })
})

describe('ConflictsView', () => {
  it('lists the conflicts and records an accept and a reject', async () => {
    const tie = conflict({ key: 'i:1:1', word: 'plot', votes: { add: ['bob'], remove: ['ann'], none: ['cy'] }, dispute: 2 / 3 })
    T.conflicts
      .mockResolvedValueOnce({ items: [tie, conflict({})], total: 2, offset: 0, limit: 25, capped: false })
      .mockResolvedValueOnce({ items: [tie], total: 1, offset: 0, limit: 25, capped: false })
      .mockResolvedValue({ items: [], total: 0, offset: 0, limit: 25, capped: false })
    T.decide.mockResolvedValue({ key: 'i:1:0', decision: 'accept', action: 'remove', event_id: 9, reviewer: 'rev' })
    const w = mount(ConflictsView, { global: { stubs: { RouterLink: true } } })
    await flushPromises()
    const rows = w.findAll('[data-testid=conflict-row]')
    expect(rows).toHaveLength(2)
    expect(rows[0].text()).toContain('“plot” in example train-5')
    expect(rows[0].find('[data-testid=accept]').attributes('disabled')).toBeDefined() // a tie: accept what?
    await rows[1].find('[data-testid=accept]').trigger('click')
    await flushPromises()
    expect(T.decide).toHaveBeenCalledWith(7, { key: 'i:1:0', decision: 'accept', action: undefined })
    expect(w.find('[data-testid=conflict-note]').text()).toContain('rev: accept (remove)')
    T.decide.mockResolvedValue({ key: 'i:1:1', decision: 'reject', action: null, event_id: 10, reviewer: 'rev' })
    await w.find('[data-testid=reject]').trigger('click')
    await flushPromises()
    expect(T.decide).toHaveBeenLastCalledWith(7, { key: 'i:1:1', decision: 'reject', action: undefined })
    expect(w.find('[data-testid=no-conflicts]').exists()).toBe(true)
  })
})

describe('consensus settings', () => {
  it('says what a retrain trains on, read-only for a reviewer', async () => {
    T.conflicts.mockResolvedValue({ items: [], total: 0, offset: 0, limit: 25, capped: false })
    const w = mount(ConflictsView, { global: { stubs: { RouterLink: true } } })
    await flushPromises()
    expect(w.find('[data-testid=consensus-summary]').text()).toContain('3 word marks and 1 task words (union), from 2 people')
    expect(w.find('#team-policy').attributes('disabled')).toBeDefined()
    expect(w.find('[data-testid=team-save]').exists()).toBe(false)
    expect(w.find('[data-testid=consensus-capped]').exists()).toBe(false)
  })

  it('says when the counts are those of the first examples only (the route reads a bounded window)', async () => {
    T.conflicts.mockResolvedValue({ items: [], total: 0, offset: 0, limit: 25, capped: false })
    T.consensus.mockResolvedValue({ ...SUMMARY, capped: true, examples: 2222 })
    const w = mount(ConflictsView, { global: { stubs: { RouterLink: true } } })
    await flushPromises()
    expect(w.find('[data-testid=consensus-capped]').text()).toContain('Counted on the first 2222 marked examples')
  })

  it('lets an admin switch to at least k with blind annotation', async () => {
    auth.me = { id: 9, name: 'root', role: 'admin', created_at: '2026-01-01T00:00:00Z' }
    T.conflicts.mockResolvedValue({ items: [], total: 0, offset: 0, limit: 25, capped: false })
    T.saveSettings.mockResolvedValue({ policy: 'at_least_k', k: 2, blind: true })
    const w = mount(ConflictsView, { global: { stubs: { RouterLink: true } } })
    await flushPromises()
    await w.find('#team-policy').setValue('at_least_k')
    await w.find('#team-k').setValue('2')
    await w.find('[data-testid=team-blind]').setValue(true)
    await w.find('[data-testid=team-settings]').trigger('submit')
    await flushPromises()
    expect(T.saveSettings).toHaveBeenCalledWith(7, { policy: 'at_least_k', k: 2, blind: true })
    expect(T.consensus).toHaveBeenCalledTimes(2)
  })
})
