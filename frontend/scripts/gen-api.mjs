// Generate src/api/schema.d.ts (types) and src/api/defaults.ts (the request bodies' default values, e.g.
// the retrain settings the form starts from, and each field's title, help, bounds and choices) from the
// server's OpenAPI schema, so the UI's API types, defaults and form metadata cannot drift from the routes.
// They are not kept in git: npm's pre-scripts write them before every build, test, type check and dev start.
// `node scripts/gen-api.mjs` writes the files; `--check` regenerates into memory and exits 1 when a
// file on disk differs (the UI was built against an older schema: tests/api/test_api_types.py).
// `--check FILE` compares with FILE instead (the test's stale control).
//
// The schema comes from the FastAPI app itself (no server, no database): the project's Python imports
// the app factory and prints app.openapi(). Python is $XMD_PYTHON, else the repo's .venv, else python3;
// $XMD_OPENAPI_JSON names a file with the schema already dumped instead.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..', '..')
const target = join(root, 'frontend', 'src', 'api', 'schema.d.ts')
const defaultsTarget = join(root, 'frontend', 'src', 'api', 'defaults.ts')

// The composition root moves to xmd.app in the service redesign; older trees have it in xmd.api.app.
const DUMP = `
import importlib, importlib.util, inspect, json, sys
root = "xmd.app" if importlib.util.find_spec("xmd.app") else "xmd.api.app"
create_app = importlib.import_module(root).create_app
kwargs = {"serve_ui": False} if "serve_ui" in inspect.signature(create_app).parameters else {}
sys.stdout.write(json.dumps(create_app(**kwargs).openapi()))
`

function python() {
  if (process.env.XMD_PYTHON) return process.env.XMD_PYTHON
  const venv = join(root, '.venv', 'bin', 'python')
  return existsSync(venv) ? venv : 'python3'
}

function dumpSchema() {
  // a schema already dumped by the caller (the test, whose process has the app imported) saves a Python start
  if (process.env.XMD_OPENAPI_JSON) return JSON.parse(readFileSync(process.env.XMD_OPENAPI_JSON, 'utf8'))
  // this tree's sources first, so a worktree or a checkout without an editable install uses its own code
  const paths = [join(root, 'backend'), root, process.env.PYTHONPATH].filter(Boolean)
  const out = execFileSync(python(), ['-c', DUMP], {
    cwd: root,
    env: { ...process.env, PYTHONPATH: paths.join(delimiter), HF_HUB_OFFLINE: '1' },
    maxBuffer: 64 * 1024 * 1024,
  })
  return JSON.parse(out.toString('utf8'))
}

const HEADER = `// GENERATED from the server's OpenAPI schema by frontend/scripts/gen-api.mjs: do not edit, not in git.
// Every \`npm run build\`, \`test\`, \`typecheck\` and \`dev\` writes it first (\`npm run gen:api\` alone).

`

/** schema name -> property -> default, for the request bodies (`...In`) that declare defaults. */
function defaultsOf(schema) {
  const out = {}
  for (const [name, s] of Object.entries(schema.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.endsWith('In')) continue
    const d = Object.fromEntries(
      Object.entries(s.properties ?? {})
        .filter(([, p]) => p.default !== undefined && p.default !== null)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, p]) => [k, p.default]),
    )
    if (Object.keys(d).length) out[name] = d
  }
  return out
}

const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength']

/** schema name -> property -> what a form needs to show and check the field: its title, help text, type,
 * bounds and choices, for the request bodies (`...In`) and the objects they nest (e.g. BaseRecipe). The
 * server reads these off the core's option metadata (xmd.core.options), so a form built from them cannot
 * drift from what the API accepts. */
function fieldsOf(schema) {
  const all = schema.components?.schemas ?? {}
  const refs = (v) => (v && typeof v === 'object' ? [v.$ref, ...Object.values(v).flatMap(refs)].filter(Boolean) : [])
  const nested = new Set(
    Object.entries(all)
      .filter(([name]) => name.endsWith('In'))
      .flatMap(([, s]) => refs(s.properties ?? {}))
      .map((r) => r.split('/').pop()),
  )
  const out = {}
  for (const [name, s] of Object.entries(all).sort(([a], [b]) => a.localeCompare(b))) {
    if (!(name.endsWith('In') || nested.has(name)) || !s.properties) continue
    const fields = {}
    for (const [k, raw] of Object.entries(s.properties).sort(([a], [b]) => a.localeCompare(b))) {
      // an optional field is `anyOf: [the type, null]`: its type and bounds are on the non-null branch
      const p = (raw.anyOf ?? []).find((x) => x.type !== 'null') ?? raw
      const meta = { title: raw.title ?? k }
      if (raw.description) meta.help = raw.description
      meta.type = p.type ?? (p.$ref ? 'object' : 'any')
      // null has a meaning of its own (e.g. a boolean left to the server: auto)
      if ((raw.anyOf ?? []).some((x) => x.type === 'null')) meta.nullable = true
      for (const b of BOUNDS) if (p[b] !== undefined) meta[b] = p[b]
      const choices = p.enum ?? p.items?.enum
      if (choices) meta.choices = choices
      fields[k] = meta
    }
    out[name] = fields
  }
  return out
}

const FIELD_META = `/** What a form needs to show and check one field of a request body (from the server's schema). */
export interface FieldMeta {
  title: string
  help?: string
  type: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  maxLength?: number
  choices?: readonly (string | number)[]
  /** null is a value of its own: the server decides (a boolean shows auto / on / off) */
  nullable?: boolean
}

`

export async function generate() {
  const schema = dumpSchema()
  const ast = await openapiTS(schema, { alphabetize: true, defaultNonNullable: false })
  const defaults =
    `${HEADER}export const schemaDefaults = ${JSON.stringify(defaultsOf(schema), null, 2)}\n\n` +
    FIELD_META +
    `export const schemaFields = ${JSON.stringify(fieldsOf(schema), null, 2)} satisfies Record<string, Record<string, FieldMeta>>\n`
  return { [target]: HEADER + astToString(ast), [defaultsTarget]: defaults }
}

const files = await generate()
const check = process.argv.indexOf('--check')
if (check >= 0) {
  // `--check FILE`: compare the types with FILE (the test's stale control); the defaults stay where they are
  const against = process.argv[check + 1] ? resolve(process.argv[check + 1]) : target
  const pairs = [[against, files[target]], [defaultsTarget, files[defaultsTarget]]]
  const stale = pairs.filter(([file, text]) => (existsSync(file) ? readFileSync(file, 'utf8') : '') !== text).map(([f]) => f)
  if (stale.length) {
    console.error(`${stale.join(', ')} is stale: the server's OpenAPI schema changed. Rebuild the UI (\`make frontend\`, or \`npm run gen:api\` in frontend/).`)
    process.exit(1)
  }
  console.log('schema.d.ts and defaults.ts match the server schema')
} else {
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(file, text)
    console.log(`wrote ${file}`)
  }
}
