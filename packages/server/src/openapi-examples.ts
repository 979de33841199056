/**
 * An example for every request body and response of the OpenAPI document that has none: the
 * schema's own examples where it has them (`examples` on a TypeBox schema), else a value made
 * from the schema, deterministically (no clock, no randomness: the SDK's generated types are
 * compared with the document). Test: every example validates against its schema.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const EXAMPLE_TIME = '2026-11-01T00:00:00.000Z';

/** Strings that fit the document's patterns (decimals, currencies, Unix seconds, hashes, names, URLs). */
const PATTERN_CANDIDATES = ['USD', '10.00', '1795435200', 'api_calls', '3f2a9c1e7b4d6a80', 'https://example.com/support', 'EXAMPLE', 'a'];

/** `cus_…` in a description: the id prefix, so an example id looks like a real one. */
const ID_PREFIX = /\b([a-z]{2,6}(?:_(?:test|live))?)_…/;

/** Plain words for the fields most bodies have. */
const BY_NAME: Record<string, string> = {
  name: 'Acme Inc.',
  displayName: 'Acme Inc.',
  externalId: 'acct_1042',
  description: 'Pro plan',
  reason: 'too_expensive',
};

function stringOf(schema: Json, name: string): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const fits = (s: string) => s.length >= min && s.length <= max;
  let value: string;
  if (schema.format === 'date-time') value = EXAMPLE_TIME;
  else if (schema.format === 'date') value = EXAMPLE_TIME.slice(0, 10);
  else if (schema.format === 'email') value = 'billing@example.com';
  else if (schema.format === 'uri' || schema.format === 'url') value = 'https://example.com/webhooks/tollgate';
  else if (typeof schema.pattern === 'string') {
    const re = new RegExp(schema.pattern, 'u');
    value = PATTERN_CANDIDATES.find((c) => re.test(c) && fits(c)) ?? 'a';
  } else {
    const prefix = typeof schema.description === 'string' ? ID_PREFIX.exec(schema.description)?.[1] : undefined;
    value = prefix ? `${prefix}_01jd3m5x7c0000000000000000` : (BY_NAME[name] ?? (name || 'string'));
  }
  if (value.length < min) value = value.padEnd(min, 'x');
  return value.length > max ? value.slice(0, max) : value;
}

function numberOf(schema: Json): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : Infinity;
  return Math.min(Math.max(min, 1), max);
}

/** A value `schema` accepts; `$ref`s are looked up in `doc`. */
export function sampleOf(schema: unknown, doc: Json, name = '', depth = 0): unknown {
  if (!isObject(schema) || depth > 20) return null;
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), doc);
    return sampleOf(target, doc, name, depth + 1);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) {
    const branch = branches.find((b) => !(isObject(b) && b.type === 'null')) ?? branches[0];
    return sampleOf(branch, doc, name, depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s) => sampleOf(s, doc, name, depth + 1)));
  const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [key, s] of Object.entries(isObject(schema.properties) ? schema.properties : {})) out[key] = sampleOf(s, doc, key, depth + 1);
      return out;
    }
    case 'array': {
      const n = typeof schema.minItems === 'number' && schema.minItems > 1 ? schema.minItems : 1;
      if (schema.maxItems === 0) return [];
      return Array.from({ length: n }, () => sampleOf(schema.items, doc, name.replace(/s$/, ''), depth + 1));
    }
    case 'string':
      return stringOf(schema, name);
    case 'integer':
      return Math.ceil(numberOf(schema));
    case 'number':
      return numberOf(schema);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return isObject(schema.properties) ? sampleOf({ ...schema, type: 'object' }, doc, name, depth + 1) : null;
  }
}

/** Gives every media type of `content` without an example one. */
function exampleContent(content: unknown, doc: Json): void {
  if (!isObject(content)) return;
  for (const media of Object.values(content)) {
    if (!isObject(media) || media.example !== undefined || media.examples !== undefined || media.schema === undefined) continue;
    media.example = sampleOf(media.schema, doc);
  }
}

/** Adds the missing examples to the document's request bodies and responses, in place. */
export function addExamples<D extends Json>(doc: D): D {
  const components = isObject(doc.components) ? doc.components : {};
  for (const section of [doc.paths, doc.webhooks]) {
    for (const ops of Object.values(isObject(section) ? section : {})) {
      for (const op of Object.values(isObject(ops) ? ops : {})) {
        if (!isObject(op)) continue;
        if (isObject(op.requestBody)) exampleContent(op.requestBody.content, doc);
        for (const response of Object.values(isObject(op.responses) ? op.responses : {})) {
          if (isObject(response)) exampleContent(response.content, doc);
        }
      }
    }
  }
  for (const response of Object.values(isObject(components.responses) ? components.responses : {})) {
    if (isObject(response)) exampleContent(response.content, doc);
  }
  return doc;
}
