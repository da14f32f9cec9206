// Issue 30 §6: with the Hub unreachable (or switched off) Push is disabled with the reason, and without a
// token anywhere the form says what to enter. The push job's own errors are tested in the API
// (tests/api/test_push_errors.py: never the HTTP client's exception, always what to do).
import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryHistory, createRouter } from 'vue-router'

vi.mock('../api/endpoints', () => ({
  api: { hub: vi.fn(), pushJob: vi.fn(), job: vi.fn(), metrics: vi.fn(), cancelJob: vi.fn(), downloadLink: vi.fn() },
}))

import { api } from '../api/endpoints'
import type { ModelVersion } from '../api/types'
import { auth } from '../stores/auth'
import { current } from '../stores/project'
import * as fx from '../testing/fixtures'
import DeployView from './DeployView.vue'

const A = vi.mocked(api)
const router = () => createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { render: () => null } }] })
const V1 = { id: 9, version: 1, name: 'base', kind: 'base', status: 'ready', parent_id: null, metrics: {}, config: {} } as unknown as ModelVersion

async function deploy(repo = 'me/model') {
  const w = mount(DeployView, { global: { plugins: [router()] } })
  await flushPromises()
  await w.find('#dp-repo').setValue(repo)
  return w
}

const pushDisabled = (w: Awaited<ReturnType<typeof deploy>>) => (w.find('[data-testid=push]').element as HTMLButtonElement).disabled

beforeEach(() => {
  vi.clearAllMocks()
  auth.me = fx.me({ id: 1, name: 'ann', role: 'admin' })
  Object.assign(current, { pid: 1, project: { id: 1, name: 'demo', labels: ['a', 'b'] }, versions: [V1], versionId: 9 })
})

describe('DeployView: Push and the Hub', () => {
  it('is disabled with the reason while the Hub cannot be reached, and comes back when a re-check finds it', async () => {
    A.hub.mockResolvedValueOnce({ hub: 'unreachable', token: 'set' }).mockResolvedValueOnce({ hub: 'reachable', token: 'set' })
    const w = await deploy()
    expect(pushDisabled(w)).toBe(true)
    expect(w.find('[data-testid=push-blocked]').text()).toContain('Push is off: the server cannot reach the Hugging Face Hub')
    await w.find('[data-testid=hub-recheck]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=push-blocked]').exists()).toBe(false)
    expect(pushDisabled(w)).toBe(false)
  })

  it('says when the Hub is switched off on the server', async () => {
    A.hub.mockResolvedValue({ hub: 'offline', token: 'missing' })
    const w = await deploy()
    expect(pushDisabled(w)).toBe(true)
    expect(w.find('[data-testid=push-blocked]').text()).toContain('switched off on this server (HF_HUB_OFFLINE=1)')
    expect(w.find('[data-testid=push-token-needed]').exists()).toBe(false) // one reason at a time
  })

  it('without a token on the server or in the form, says what to enter; a typed token is enough', async () => {
    A.hub.mockResolvedValue({ hub: 'reachable', token: 'missing' })
    const w = await deploy()
    const hint = w.find('[data-testid=push-token-needed]')
    expect(hint.text()).toContain('Enter a write token above')
    expect(hint.text()).toContain('huggingface.co/settings/tokens')
    await w.find('#dp-token').setValue('hf_abc')
    expect(w.find('[data-testid=push-token-needed]').exists()).toBe(false)
    expect(pushDisabled(w)).toBe(false)
  })

  it('leaves Push alone when the server has a token, or when the check itself fails', async () => {
    A.hub.mockResolvedValueOnce({ hub: 'reachable', token: 'set' }).mockRejectedValueOnce(new Error('down'))
    for (let i = 0; i < 2; i++) {
      const w = await deploy()
      expect(w.find('[data-testid=push-blocked]').exists()).toBe(false)
      expect(w.find('[data-testid=push-token-needed]').exists()).toBe(false)
      expect(pushDisabled(w)).toBe(false)
    }
  })
})
