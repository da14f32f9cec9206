import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import LabelSelect from '../components/LabelSelect.vue'
import LoginBox from '../components/LoginBox.vue'
import { useAsync } from './useAsync'

/** A promise the test settles by hand, to order two requests' answers. */
function deferred<T>() {
  let resolve!: (v: T) => void
  let reject!: (e: Error) => void
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)))
  return { promise, resolve, reject }
}

describe('useAsync', () => {
  it('keeps the latest answer: an earlier, slower one is dropped and does not end busy', async () => {
    const a = useAsync()
    const slow = deferred<string>()
    const fast = deferred<string>()
    const first = a.run(() => slow.promise)
    const second = a.run(() => fast.promise)
    expect(a.busy.value).toBe(true)
    fast.resolve('new')
    expect(await second).toEqual({ value: 'new' })
    expect(a.busy.value).toBe(false)
    slow.resolve('old')
    expect(await first).toBeNull()
  })

  it('shows the latest error, keeps it until a later success, and drops a superseded failure', async () => {
    const a = useAsync()
    expect(await a.run(() => Promise.reject(new Error('the API cannot be reached')))).toBeNull()
    expect(a.error.value).toBe('the API cannot be reached')
    const stale = deferred<number>()
    const old = a.run(() => stale.promise)
    expect(await a.run(async () => 1)).toEqual({ value: 1 })
    expect(a.error.value).toBe('')
    stale.reject(new Error('late failure'))
    expect(await old).toBeNull()
    expect(a.error.value).toBe('')
  })

  it('reset drops what is in flight', async () => {
    const a = useAsync()
    const d = deferred<number>()
    const p = a.run(() => d.promise)
    a.reset()
    expect(a.busy.value).toBe(false)
    d.resolve(5)
    expect(await p).toBeNull()
  })
})

describe('LabelSelect', () => {
  it('offers "any" and each label by index', async () => {
    const w = mount(LabelSelect, { props: { id: 'x-label', labels: ['neg', 'pos'], modelValue: '' } })
    expect(w.find('label').attributes('for')).toBe('x-label')
    expect(w.findAll('option').map((o) => o.text())).toEqual(['any', 'neg', 'pos'])
    await w.find('select').setValue('1')
    expect(w.emitted('update:modelValue')?.[0]).toEqual([1])
  })
})

describe('LoginBox', () => {
  it('hands the token to the app and shows its refusal inline', async () => {
    const tried: string[] = []
    const signIn = async (t: string) => {
      tried.push(t)
      if (t !== 'good') throw new Error('invalid or revoked token')
    }
    const w = mount(LoginBox, { props: { signIn } })
    await w.find('#token-input').setValue('bad')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(w.find('[role=alert]').text()).toBe('invalid or revoked token')
    expect(w.emitted('done')).toBeUndefined()
    await w.find('#token-input').setValue('good')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(tried).toEqual(['bad', 'good'])
    expect(w.emitted('done')).toHaveLength(1)
    expect(w.find('[role=alert]').exists()).toBe(false)
  })
})
