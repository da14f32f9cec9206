import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import HubNotice from './HubNotice.vue'

const A = { hub: vi.fn() }

describe('HubNotice', () => {
  beforeEach(() => vi.resetAllMocks())

  it.each([
    ['unreachable', 'cannot reach'],
    ['offline', 'switched off'],
  ])('says when the Hub is %s', async (hub, text) => {
    A.hub.mockResolvedValue({ hub })
    const w = mount(HubNotice, { props: { check: A.hub } })
    await flushPromises()
    expect(w.find('[data-testid=hub-notice]').text()).toContain(text)
    expect(w.text()).toContain('Hub id')
  })

  it('shows nothing when the Hub is reachable or the check fails', async () => {
    A.hub.mockResolvedValueOnce({ hub: 'reachable' }).mockRejectedValueOnce(new Error('down'))
    const reachable = mount(HubNotice, { props: { check: A.hub } })
    await flushPromises()
    expect(reachable.find('[data-testid=hub-notice]').exists()).toBe(false)
    const failed = mount(HubNotice, { props: { check: A.hub } })
    await flushPromises()
    expect(failed.find('[data-testid=hub-notice]').exists()).toBe(false)
    expect(A.hub).toHaveBeenCalledTimes(2)
  })
})
