// The UI's layering, checked on the sources: api/ knows nothing of the stores (the app wires the
// client at start-up), and components take data by props (only views and their composables fetch).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(__dirname)

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(join(SRC, dir))
    .filter((f) => /\.(ts|vue)$/.test(f) && !f.endsWith('.spec.ts'))
    .map((f) => ({ file: `${dir}/${f}`, text: readFileSync(join(SRC, dir, f), 'utf8') }))
}

function importing(dir: string, target: RegExp): string[] {
  return sources(dir)
    .filter(({ text }) => [...text.matchAll(/^import [^\n]*from '([^']+)'/gm)].some((m) => target.test(m[1])))
    .map(({ file }) => file)
}

describe('layers', () => {
  it('api/ imports nothing from stores/', () => {
    expect(sources('api').length).toBeGreaterThan(3)
    expect(importing('api', /stores\//)).toEqual([])
  })

  it('components call no endpoint and no store that fetches', () => {
    expect(sources('components').length).toBeGreaterThan(10)
    expect(importing('components', /api\/endpoints|stores\/(project|undo)/)).toEqual([])
  })

  it('the check sees an import when there is one (control)', () => {
    expect(importing('views', /api\/endpoints/)).toContain('views/DataView.vue') // TaskView reads through its composables
  })
})
