import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../api/endpoints', () => ({
  api: {
    users: vi.fn(),
    createUser: vi.fn(),
    setRole: vi.fn(),
    deleteUser: vi.fn(),
    tokens: vi.fn(),
    createToken: vi.fn(),
    revokeToken: vi.fn(),
  },
}))

import { api } from '../api/endpoints'
import type { TokenInfo, User } from '../api/types'
import ConfirmDelete from '../components/ConfirmDelete.vue'
import InlineRename from '../components/InlineRename.vue'
import UserTokens from '../components/UserTokens.vue'
import { auth } from '../stores/auth'
import AdminView from './AdminView.vue'

const A = vi.mocked(api)
const admin: User = { id: 1, name: 'root', role: 'admin', created_at: '2026-01-01T00:00:00Z' }
const ann: User = { id: 2, name: 'ann', role: 'annotator', created_at: '2026-01-02T00:00:00Z' }
const tok = (over: Partial<TokenInfo>): TokenInfo => ({
  id: 5,
  name: 'ci',
  prefix: 'xmd_ab12',
  created_at: '2026-01-02T00:00:00Z',
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  active: true,
  ...over,
})

beforeEach(() => {
  vi.resetAllMocks()
  auth.me = { ...admin }
})

describe('AdminView', () => {
  it('lists users, creates one and shows its token once', async () => {
    A.users.mockResolvedValueOnce([admin, ann]).mockResolvedValue([admin, ann, { ...ann, id: 3, name: 'bob', role: 'viewer' }])
    A.createUser.mockResolvedValue({ user: { ...ann, id: 3, name: 'bob', role: 'viewer' }, token: 'xmd_secret_once' })
    const w = mount(AdminView)
    await flushPromises()
    expect(w.findAll('[data-user]').map((r) => r.attributes('data-user'))).toEqual(['root', 'ann'])
    await w.find('input[aria-label="User name"]').setValue(' bob ')
    await w.find('[data-testid=new-user]').trigger('submit')
    await flushPromises()
    expect(A.createUser).toHaveBeenCalledWith({ name: 'bob', role: 'viewer' })
    expect(w.find('[data-testid=created-token]').text()).toContain('xmd_secret_once')
    expect(w.find('[data-testid=created-token]').text()).toContain('not shown again')
    expect(w.findAll('[data-user]')).toHaveLength(3)
  })

  it("changes a role and shows the server's refusal", async () => {
    A.users.mockResolvedValue([admin, ann])
    A.setRole.mockRejectedValue(new Error('that would leave no admin'))
    const w = mount(AdminView)
    await flushPromises()
    await w.find('select[aria-label="Role of root"]').setValue('viewer')
    await flushPromises()
    expect(A.setRole).toHaveBeenCalledWith(1, 'viewer')
    expect(w.find('[role=alert]').text()).toContain('no admin')
  })

  it('says why a non-admin sees no users and asks the API nothing', async () => {
    auth.me = { ...ann }
    const w = mount(AdminView)
    await flushPromises()
    expect(w.find('[data-testid=not-admin]').text()).toContain('annotator')
    expect(A.users).not.toHaveBeenCalled()
  })
})

describe('UserTokens', () => {
  it('lists tokens without secrets, makes a new one shown once, revokes', async () => {
    A.tokens.mockResolvedValueOnce([tok({})]).mockResolvedValue([tok({ id: 6, prefix: 'xmd_cd34' }), tok({})])
    A.createToken.mockResolvedValue({ user: ann, token: 'xmd_new_secret' })
    A.revokeToken.mockResolvedValue(undefined)
    const w = mount(UserTokens, { props: { user: ann, api: A } })
    await flushPromises()
    expect(w.find('[data-token="xmd_ab12"]').text()).toContain('active')
    await w.find('input[aria-label="Expires after days"]').setValue('30')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(A.createToken).toHaveBeenCalledWith(2, { name: '', expires_in_days: 30 })
    expect(w.find('[data-testid=new-token]').text()).toContain('xmd_new_secret')
    await w.find('[data-token="xmd_ab12"] [data-testid=revoke]').trigger('click')
    await flushPromises()
    expect(A.revokeToken).toHaveBeenCalledWith(2, 5)
  })

  it('shows revoked and expired tokens as such, without a revoke button', async () => {
    A.tokens.mockResolvedValue([tok({ active: false, revoked_at: '2026-01-03T00:00:00Z' }), tok({ id: 7, prefix: 'xmd_old', active: false })])
    const w = mount(UserTokens, { props: { user: ann, api: A } })
    await flushPromises()
    expect(w.find('[data-token="xmd_ab12"]').text()).toContain('revoked')
    expect(w.find('[data-token="xmd_old"]').text()).toContain('expired')
    expect(w.findAll('[data-testid=revoke]')).toHaveLength(0)
  })
})

describe('ConfirmDelete', () => {
  it('names what goes and runs only on the second click', async () => {
    const run = vi.fn().mockResolvedValue(undefined)
    const w = mount(ConfirmDelete, { props: { label: 'Delete project', what: 'Delete project demo: 2 datasets.', run } })
    await w.find('[data-testid=delete]').trigger('click')
    expect(run).not.toHaveBeenCalled()
    expect(w.find('[data-testid=what-goes]').text()).toBe('Delete project demo: 2 datasets. This cannot be undone.')
    await w.find('[data-testid=confirm-delete]').trigger('click')
    await flushPromises()
    expect(run).toHaveBeenCalledOnce()
    expect(w.emitted('done')).toHaveLength(1)
  })

  it('keeps the box and shows the error when the delete fails', async () => {
    const run = vi.fn().mockRejectedValue(new Error('the last admin cannot be deleted'))
    const w = mount(ConfirmDelete, { props: { label: 'Delete user', what: 'Delete user root.', run } })
    await w.find('[data-testid=delete]').trigger('click')
    await w.find('[data-testid=confirm-delete]').trigger('click')
    await flushPromises()
    expect(w.find('[role=alert]').text()).toContain('last admin')
    expect(w.emitted('done')).toBeUndefined()
  })
})

describe('InlineRename', () => {
  it('renames through the server and keeps the old name on a refusal', async () => {
    const rename = vi.fn().mockRejectedValueOnce(new Error("project 'b' already exists")).mockResolvedValue(undefined)
    const w = mount(InlineRename, { props: { name: 'a', rename } })
    await w.find('[data-testid=rename]').trigger('click')
    await w.find('[data-testid=rename-input]').setValue('b')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(w.find('[role=alert]').text()).toContain('already exists')
    expect(w.emitted('renamed')).toBeUndefined()
    await w.find('[data-testid=rename-input]').setValue('c')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(rename).toHaveBeenLastCalledWith('c')
    expect(w.emitted('renamed')).toEqual([['c']])
  })
})
