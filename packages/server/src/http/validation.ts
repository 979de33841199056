import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { capDetails, MAX_REPORTED_ERRORS, type ErrorDetail } from '../lib/errors.js';
import { lazyValidator, memoizeBySchema } from './lazy-schemas.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields refused, every
 * problem found at once, the first MAX_REPORTED_ERRORS described), while query strings, path
 * parameters and headers, which are always text on the wire, are coerced to the declared types.
 */
function build(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: !coerce,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = build(false);
const textAjv = build(true);

/** The keywords that look inside a value, checked only once the value's size bound holds. */
const INSIDE: Array<[bound: string, keywords: string[]]> = [
  ['maxItems', ['items', 'prefixItems', 'additionalItems', 'contains', 'uniqueItems']],
  ['maxLength', ['pattern', 'format']],
  ['maxProperties', ['properties', 'patternProperties', 'additionalProperties', 'propertyNames']],
];
const SUBSCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/**
 * The schema Ajv compiles: the same rules, with each size bound checked before what it bounds.
 * Reporting every error, Ajv would otherwise check every item of an array already over its
 * maxItems (and compare every pair for uniqueItems): a 1 MB array once took 50 s and a 144 MB
 * answer, with every tenant waiting. Here the items, a string's pattern and an object's entries
 * are checked in `if <bound> then …`, so an oversized value costs one comparison. The route's
 * own schema (and so the OpenAPI document) is left as it is.
 */
export function boundsFirst(schema: object): object {
  return guard(schema) as object;
}

function guard(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SUBSCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(guard);
    else if (SUBSCHEMA_MAPS.has(k) && typeof v === 'object' && v !== null)
      out[k] = Object.fromEntries(Object.entries(v as object).map(([n, s]) => [n, guard(s)]));
    else if (['items', 'additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'].includes(k)) out[k] = guard(v);
    else out[k] = v;
  }
  const guards: object[] = [];
  for (const [bound, keywords] of INSIDE) {
    if (out[bound] === undefined) continue;
    const then: Record<string, unknown> = {};
    for (const k of keywords) {
      if (out[k] === undefined) continue;
      then[k] = out[k];
      delete out[k];
    }
    if (Object.keys(then).length > 0) guards.push({ if: { [bound]: out[bound] }, then });
  }
  if (guards.length > 0) out.allOf = [...((out.allOf as object[] | undefined) ?? []), ...guards];
  return out;
}

const bodyValidators = memoizeBySchema<object, ValidateFunction>();
const textValidators = memoizeBySchema<object, ValidateFunction>();

/** Compiled on first use and once per schema object (lazy-schemas.ts says why). */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const [ajv, memo] = httpPart === 'body' ? [bodyAjv, bodyValidators] : [textAjv, textValidators];
  return lazyValidator(() => memo(schema, () => ajv.compile(boundsFirst(schema))));
};

const partNames: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

function pathOf(part: string, instancePath: string, extra?: string): string {
  const segs = instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) segs.push(extra);
  return [partNames[part] ?? part, ...segs].join('.');
}

function lengthMessage(field: string, keyword: string, limit: number): string {
  if (keyword === 'maxLength') return `${field} must be at most ${limit} characters long.`;
  return limit === 1 ? `${field} must not be empty.` : `${field} must be at least ${limit} characters long.`;
}

/** A key refused by propertyNames: Ajv names the object, and the key apart. */
function keyMessage(field: string, key: string, keyword: string, limit: number): string {
  const shown = key.length > 60 ? `${key.slice(0, 60)}…` : key;
  return keyword === 'maxLength'
    ? `${field} has a key of ${key.length} characters ('${shown}'); a key has at most ${limit}.`
    : `${field} has a key of ${key.length} characters ('${shown}'); a key has at least ${limit}.`;
}

/**
 * anyOf/oneOf repeat themselves per branch, `if` (boundsFirst's guard) only says its `then`
 * failed, and propertyNames that a key did (described on its own): none adds a line.
 */
const SILENT_KEYWORDS = new Set(['anyOf', 'oneOf', 'if', 'propertyNames']);

/** The params of the keywords described below (ajv types them loosely, as a record of any). */
interface ErrorParams {
  missingProperty?: string;
  additionalProperty?: string;
  allowedValues?: unknown[];
  type?: string;
  format?: string;
  limit: number;
  pattern?: string;
  comparison?: string;
}

/** A param as text (ajv's are strings): '' when absent. */
function textOf(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** Turns ajv's errors into our details, each naming the field and saying what is wrong in words. */
export function describeValidationErrors(part: string, errors: ErrorObject[]): ErrorDetail[] {
  // A union of literals fails once per branch with a `const` error; gathered per field, they
  // tell the caller every allowed value in one message.
  const constValues = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword !== 'const') continue;
    const values = constValues.get(e.instancePath) ?? [];
    const v = (e.params as { allowedValue: unknown }).allowedValue;
    if (!values.includes(v)) values.push(v);
    constValues.set(e.instancePath, values);
  }
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  // Past the cap only a count is needed: a cheap key per problem instead of its words (words for
  // 90,000 unknown fields took 200 ms).
  const listed = new Set<string>();
  const more = new Set<string>();
  for (const e of errors) {
    if (SILENT_KEYWORDS.has(e.keyword)) continue;
    const p0 = e.params as Record<string, unknown>;
    const cheap = `${e.instancePath}\0${e.keyword}\0${textOf(p0.missingProperty ?? p0.additionalProperty)}`;
    if (out.length >= MAX_REPORTED_ERRORS) {
      if (!listed.has(cheap)) more.add(cheap);
      continue;
    }
    let field = pathOf(part, e.instancePath);
    let message: string;
    const p = e.params as ErrorParams;
    switch (e.keyword) {
      case 'required':
        field = pathOf(part, e.instancePath, p.missingProperty);
        message = `${field} is required.`;
        break;
      case 'additionalProperties':
        field = pathOf(part, e.instancePath, p.additionalProperty);
        message = `${field} is not a known field.`;
        break;
      case 'enum':
        message = `${field} must be one of ${(p.allowedValues as unknown[]).join(', ')}.`;
        break;
      case 'const': {
        const values = constValues.get(e.instancePath) as unknown[];
        message = values.length === 1 ? `${field} must be ${String(values[0])}.` : `${field} must be one of ${values.join(', ')}.`;
        break;
      }
      case 'type':
        message = `${field} must be of type ${p.type}.`;
        break;
      case 'format':
        message = `${field} must be a valid ${p.format}.`;
        break;
      case 'minLength':
      case 'maxLength':
        message = e.propertyName !== undefined ? keyMessage(field, e.propertyName, e.keyword, p.limit) : lengthMessage(field, e.keyword, p.limit);
        break;
      case 'pattern':
        message = `${field} has an invalid format (expected ${p.pattern}).`;
        break;
      case 'minimum':
      case 'maximum':
        message = `${field} must be ${p.comparison} ${p.limit}.`;
        break;
      case 'minItems':
      case 'maxItems':
        message = `${field} must have ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${p.limit} items.`;
        break;
      case 'maxProperties':
        message = `${field} must have at most ${p.limit} entries.`;
        break;
      default:
        message = `${field} ${e.message ?? 'is invalid'}.`;
    }
    const k = `${field}|${message}`;
    listed.add(cheap);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ code: 'VALIDATION_FAILED', field, message });
  }
  const name = partNames[part] ?? part;
  if (out.length === 0) return [{ code: 'VALIDATION_FAILED', message: `The request ${name} is invalid.` }];
  return capDetails(out, name, out.length + more.size);
}
