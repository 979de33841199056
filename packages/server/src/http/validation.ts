import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../lib/errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields refused, every
 * problem reported at once), while query strings, path parameters and headers, which are always
 * text on the wire, are coerced to the declared types.
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

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);

const partNames: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

function pathOf(part: string, instancePath: string, extra?: string): string {
  const segs = instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) segs.push(extra);
  return [partNames[part] ?? part, ...segs].join('.');
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
  for (const e of errors) {
    let field = pathOf(part, e.instancePath);
    let message: string;
    const p = e.params as Record<string, any>;
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
        message = values.length === 1 ? `${field} must be ${values[0]}.` : `${field} must be one of ${values.join(', ')}.`;
        break;
      }
      case 'type':
        message = `${field} must be of type ${p.type}.`;
        break;
      case 'format':
        message = `${field} must be a valid ${p.format}.`;
        break;
      case 'minLength':
        message = p.limit === 1 ? `${field} must not be empty.` : `${field} must be at least ${p.limit} characters long.`;
        break;
      case 'maxLength':
        message = `${field} must be at most ${p.limit} characters long.`;
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
    // anyOf/oneOf repeat themselves per branch; one line per field and message is enough.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    const k = `${field}|${message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ code: 'VALIDATION_FAILED', field, message });
  }
  return out.length > 0 ? out : [{ code: 'VALIDATION_FAILED', message: `The request ${partNames[part] ?? part} is invalid.` }];
}
