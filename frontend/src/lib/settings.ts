// Settings forms drawn from the server's schema (api/defaults.ts `schemaFields`, generated from the core's
// option metadata): what a field's value means to the API, and why it would be refused, without a copy
// of the bounds in the UI.
import type { FieldMeta } from '../api/defaults'

const numeric = (meta: FieldMeta) => meta.type === 'integer' || meta.type === 'number'

/** An emptied number box: the person left the field to the server's default. */
function empty(value: unknown): boolean {
  return value === '' || value === null || value === undefined
}

/** Why the server would refuse ``value`` for the field (its type, bounds or choices), or '' when it takes it. */
export function problem(meta: FieldMeta, value: unknown): string {
  if (empty(value)) return ''
  if (numeric(meta)) {
    const n = typeof value === 'number' ? value : Number(value)
    if (!Number.isFinite(n)) return 'must be a number'
    if (meta.type === 'integer' && !Number.isInteger(n)) return 'must be a whole number'
    if (meta.minimum != null && n < meta.minimum) return `must be at least ${meta.minimum}`
    if (meta.exclusiveMinimum != null && n <= meta.exclusiveMinimum) return `must be above ${meta.exclusiveMinimum}`
    if (meta.maximum != null && n > meta.maximum) return `must be at most ${meta.maximum}`
    if (meta.exclusiveMaximum != null && n >= meta.exclusiveMaximum) return `must be below ${meta.exclusiveMaximum}`
    return ''
  }
  if (meta.choices && !meta.choices.includes(value as string | number)) return `must be one of ${meta.choices.join(', ')}`
  if (typeof value === 'string' && meta.maxLength != null && value.length > meta.maxLength) return `at most ${meta.maxLength} characters`
  return ''
}

/** ``value`` as the API takes it: numbers as numbers; undefined (leave it out: the server's default)
 * for an emptied number box and for a nullable boolean left on auto. */
export function wire(meta: FieldMeta, value: unknown): unknown {
  if (numeric(meta)) {
    if (empty(value)) return undefined
    return typeof value === 'number' ? value : Number(value)
  }
  if (meta.type === 'boolean') return meta.nullable && (value === null || value === undefined) ? undefined : Boolean(value)
  return value
}

/** A field's label when the view gives none: its schema title in sentence case ("Max Length" → "Max length"). */
export function labelOf(meta: FieldMeta): string {
  const t = meta.title.trim()
  return t.charAt(0).toUpperCase() + t.slice(1).toLowerCase()
}

/** How a choice of a setting reads on screen: what trains, not the schema's short name (issue 30 §6:
 * the objective said "both", and before that "MSE", where the person needs "erasure + attribution"). */
const CHOICE_TEXT: Record<string, Record<string, string>> = {
  objective: { erasure: 'erasure', attribution: 'attribution matching', both: 'erasure + attribution' },
}

export function choiceText(name: string, choice: unknown): string {
  return CHOICE_TEXT[name]?.[String(choice)] ?? String(choice)
}
