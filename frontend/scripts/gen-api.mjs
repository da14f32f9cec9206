// Generate src/api/schema.d.ts from the server's OpenAPI schema, so the UI's API types cannot drift
// from the routes. `node scripts/gen-api.mjs` writes the file; `--check` regenerates into memory and
// exits 1 when the committed file differs (what CI runs through `npm run check:api`, and
// tests/api/test_api_types.py). `--check FILE` compares with FILE instead (the test's stale control).
//
// The schema comes from the FastAPI app itself (no server, no database): the project's Python imports
// the app factory and prints app.openapi(). Python is $XMD_PYTHON, else the repo's .venv, else python3.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..', '..')
const target = join(root, 'frontend', 'src', 'api', 'schema.d.ts')

// The composition root moves to xmd.app in the service redesign; older trees have it in xmd.api.app.
const DUMP = `
import json, sys
try:
    from xmd.app import create_app
except ImportError:
    from xmd.api.app import create_app
sys.stdout.write(json.dumps(create_app(serve_ui=False).openapi()))
`

function python() {
  if (process.env.XMD_PYTHON) return process.env.XMD_PYTHON
  const venv = join(root, '.venv', 'bin', 'python')
  return existsSync(venv) ? venv : 'python3'
}

function dumpSchema() {
  // this tree's sources first, so a worktree or a checkout without an editable install uses its own code
  const paths = [join(root, 'backend'), root, process.env.PYTHONPATH].filter(Boolean)
  const out = execFileSync(python(), ['-c', DUMP], {
    cwd: root,
    env: { ...process.env, PYTHONPATH: paths.join(delimiter), HF_HUB_OFFLINE: '1' },
    maxBuffer: 64 * 1024 * 1024,
  })
  return JSON.parse(out.toString('utf8'))
}

const HEADER = `// GENERATED from the server's OpenAPI schema by frontend/scripts/gen-api.mjs: do not edit.
// Regenerate with \`npm run gen:api\` (in frontend/); \`npm run check:api\` fails when this file is stale.

`

export async function generate() {
  const ast = await openapiTS(dumpSchema(), { alphabetize: true, defaultNonNullable: false })
  return HEADER + astToString(ast)
}

const text = await generate()
const check = process.argv.indexOf('--check')
if (check >= 0) {
  const file = process.argv[check + 1] ? resolve(process.argv[check + 1]) : target
  const committed = existsSync(file) ? readFileSync(file, 'utf8') : ''
  if (committed !== text) {
    console.error(`${file} is stale: the server's OpenAPI schema changed. Run \`npm run gen:api\` in frontend/ and commit it.`)
    process.exit(1)
  }
  console.log('schema.d.ts matches the server schema')
} else {
  writeFileSync(target, text)
  console.log(`wrote ${target}`)
}
