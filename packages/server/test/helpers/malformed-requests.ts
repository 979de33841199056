/**
 * Malformed requests for every operation of an OpenAPI document, generated from its schemas by
 * a fixed table of mutations (no randomness: a failure names its request and reproduces).
 *
 * For each operation: each path parameter, query parameter and declared header gets hostile
 * values (NUL, invalid UTF-8 and percent-encoding, huge, injection strings, NaN and 1e309); a
 * JSON body gets, field by field (nested ones too), wrong types, huge and deep values, NUL and
 * lone surrogates, numbers JSON cannot carry exactly; and, whole, invalid JSON, deep nesting,
 * missing and unknown fields and wrong Content-Types.
 */

export interface MalformedRequest {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** The operation answers with a stream that stays open: read only its head. */
  stream: boolean;
  /** A mutation of one field of the JSON body: its path and the value's name (null: the field removed). */
  field?: { path: Array<string | number>; value: string | null };
}

export interface OperationTarget {
  method: string;
  path: string;
  op: any;
}

type Schema = Record<string, any>;

export function operationsOf(doc: any): OperationTarget[] {
  const out: OperationTarget[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const DEEP_ARRAY = '['.repeat(10_000) + ']'.repeat(10_000);
const DEEP_OBJECT = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
const HUGE_STRING = JSON.stringify('x'.repeat(300_000));
const HUGE_ARRAY = `[${'"x",'.repeat(200_000)}"x"]`;
const WIDE_OBJECT = `{${range(20_000)
  .map((i) => `"k${i}":1`)
  .join(',')}}`;
const INJECTION = "' OR 1=1; DROP TABLE customers; --";
const TEMPLATE = '$..*${{7*7}}<script>alert(1)</script>%s%n{{constructor}}';

/** Values for a JSON field, as JSON text so that 1e309 and 2^53+1 reach the server as sent. */
const FIELD_VALUES: Array<[string, string]> = [
  ['null', 'null'],
  ['true', 'true'],
  ['42', '42'],
  ['-1', '-1'],
  ['0.5', '0.5'],
  ['1e309', '1e309'],
  ['-1e309', '-1e309'],
  ['2^53+1', '9007199254740993'],
  ['400 digits', `1${'0'.repeat(400)}`],
  ['empty string', '""'],
  ['a string', '"x"'],
  ['NUL', '"a\\u0000b"'],
  ['lone surrogate', '"\\ud800x"'],
  ['injection', JSON.stringify(INJECTION)],
  ['template', JSON.stringify(TEMPLATE)],
  ['bad date', '"2026-13-45T99:99:99Z"'],
  ['empty array', '[]'],
  ['mixed array', '["x",1,null,{}]'],
  ['object', '{"a":"b"}'],
  ['huge string', HUGE_STRING],
  ['huge array', HUGE_ARRAY],
  ['wide object', WIDE_OBJECT],
  ['deep array', DEEP_ARRAY],
  ['deep object', DEEP_OBJECT],
];
/** The JSON text of a field value, by its name (MalformedRequest.field.value). */
export function fieldValueText(name: string): string | undefined {
  return FIELD_VALUES.find(([l]) => l === name)?.[1];
}

/** Nested fields get the cheaper half: types, NUL, size and depth. */
const NESTED_VALUES = FIELD_VALUES.filter(([l]) =>
  ['null', '42', '1e309', 'a string', 'NUL', 'object', 'mixed array', 'huge string', 'huge array', 'deep array'].includes(l),
);

const WHOLE_BODIES: Array<[string, string | Buffer]> = [
  ['empty', ''],
  ['null', 'null'],
  ['an array', '[]'],
  ['a string', '"x"'],
  ['1e309', '1e309'],
  ['NaN', 'NaN'],
  ['truncated', '{"a":'],
  ['trailing garbage', '{} x'],
  ['__proto__', '{"__proto__":{"admin":true}}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}}}'],
  ['BOM', '\ufeff{}'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d])],
  ['NUL byte', Buffer.from('{"a":"\u0000"}')],
  ['deep array', DEEP_ARRAY],
  ['deep object', DEEP_OBJECT],
  ['wide object', WIDE_OBJECT],
  ['a huge array', HUGE_ARRAY],
];

const WRONG_CONTENT_TYPES = [
  null,
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=iso-8859-1',
  'application/x-ndjson',
  'text/csv',
  'garbage',
];

/** Raw (already percent-encoded) values for path segments and query values. */
const URL_VALUES: Array<[string, string]> = [
  ['empty', ''],
  ['%00', '%00'],
  ['NUL inside', 'a%00b'],
  ['invalid UTF-8', '%FF%FE'],
  ['overlong UTF-8', '%C0%AF'],
  ['surrogate as UTF-8', '%ED%A0%80'],
  ['truncated escape', '%E0%A4%A'],
  ['bad escape', '%ZZ'],
  ['huge', 'x'.repeat(5_000)],
  ['injection', encodeURIComponent(INJECTION)],
  ['template', encodeURIComponent(TEMPLATE)],
  ['traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['emoji', '%F0%9F%98%80'],
  ['-1', '-1'],
  ['1e309', '1e309'],
  ['NaN', 'NaN'],
  ['30 digits', '9'.repeat(30)],
  ['brackets', '%5B%5D'],
  ['bad date', '2026-13-45T99%3A99'],
];

const HEADER_VALUES: Array<[string, string]> = [
  ['empty', ''],
  ['huge', 'x'.repeat(10_000)],
  ['latin-1', '\u00ff\u00fe\u00e9'],
  ['injection', INJECTION],
  ['NUL', 'a\u0000b'],
  ['control', 'a\u0001\u007fb'],
];

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
/** Credentials that are not quite credentials: each operation gets them instead of its own. */
const AUTHORIZATION_VALUES: Array<[string, string]> = [
  ['Basic with NUL', basic('cid_a\u0000b:secret')],
  ['Basic with %00', basic('cid_a%00b:s%FF')],
  ['Basic without a colon', basic('x'.repeat(2_000))],
  ['Bearer of 10,000 characters', `Bearer sk_test_${'a'.repeat(10_000)}`],
  ['Bearer injection', `Bearer ${INJECTION}`],
];

function schemaOf(op: any, mediaType = 'application/json'): Schema | undefined {
  return op.requestBody?.content?.[mediaType]?.schema;
}

/** A real id for a field such as customerId or offeringIds, so that samples reach the database. */
export type IdOf = (field: string) => string | undefined;

/** A value the schema accepts, or close to one: the base every mutation changes one part of. */
export function sampleOf(schema: Schema | undefined, idOf: IdOf = () => undefined, name = '', depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return sampleOf(branches.find((b: Schema) => b.type !== 'null') ?? branches[0], idOf, name, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, s] of Object.entries<Schema>(schema.properties ?? {})) out[k] = sampleOf(s, idOf, k, depth + 1);
      // A free-form map (usage metadata: any JSON value under any key) gets a nested object, so
      // that values inside it, not only the map as a whole, are mutated too.
      const values: Schema[] = [
        ...Object.values<Schema>(schema.patternProperties ?? {}),
        ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
      ];
      if (!schema.properties && values.some(isFreeForm)) out.k = { k: 'x' };
      return out;
    }
    case 'array':
      return schema.items ? [sampleOf(schema.items, idOf, name.replace(/s$/, ''), depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (idOf(name) !== undefined) return idOf(name);
      if (schema.format === 'date-time') return '2026-01-15T12:00:00Z';
      if (schema.format === 'email') return 'a@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      if (/\^\(0\|\[1-9\]/.test(schema.pattern ?? '')) return '1.00';
      if (schema.pattern === '^[A-Z]{3}$') return 'USD';
      return 'x';
    default:
      return 'x';
  }
}

/** A schema that takes any JSON value: no type, no constant, no alternatives. */
function isFreeForm(schema: Schema): boolean {
  return schema.type === undefined && schema.const === undefined && !schema.enum && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.$ref;
}

/** Every field path of a sample, up to `maxDepth` levels, with the schema of each. */
function fieldPaths(value: unknown, maxDepth: number, at: Array<string | number> = []): Array<Array<string | number>> {
  if (at.length >= maxDepth || value === null || typeof value !== 'object') return [];
  const out: Array<Array<string | number>> = [];
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [k, v] of entries) {
    out.push([...at, k]);
    out.push(...fieldPaths(v, maxDepth, [...at, k]));
  }
  return out;
}

const MARK_VALUE = '\u0001mutated\u0001';
const MARK = JSON.stringify(MARK_VALUE);

/** The sample as JSON text with the value at `path` replaced by raw JSON text (or removed). */
function withField(sample: unknown, path: Array<string | number>, raw: string | undefined): string {
  const copy = structuredClone(sample) as any;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k];
  const last = path[path.length - 1]!;
  if (raw === undefined) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
    return JSON.stringify(copy);
  }
  node[last] = MARK_VALUE;
  return JSON.stringify(copy).replace(MARK, () => raw);
}

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x');
}

function queryString(params: Record<string, string>): string {
  const parts = Object.entries(params).map(([k, v]) => `${k}=${v}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface GenerateOptions {
  /** Real values for path parameters (by name, per path), so handlers run past their lookups. */
  pathValue(path: string, name: string): string;
  /** Headers every request of this operation carries (a key, a storefront key). */
  headers(target: OperationTarget): Record<string, string>;
  idOf: IdOf;
}

export function malformedRequests(target: OperationTarget, opts: GenerateOptions): MalformedRequest[] {
  const { method, path, op } = target;
  const params: any[] = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name as string);
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header').map((p) => p.name as string);
  const stream = Boolean(op.responses?.['200']?.content?.['text/event-stream']);
  const realPath = Object.fromEntries(pathParams.map((n) => [n, encodeURIComponent(opts.pathValue(path, n))]));
  const baseQuery: Record<string, string> = {};
  for (const q of queryParams) if (q.required) baseQuery[q.name] = encodeURIComponent(String(sampleOf(q.schema, opts.idOf, q.name)));
  const baseHeaders = opts.headers(target);
  const mediaTypes = Object.keys(op.requestBody?.content ?? {});
  const jsonSchema = schemaOf(op);
  const sample = jsonSchema ? sampleOf(jsonSchema, opts.idOf) : undefined;
  const basePayload = sample === undefined ? undefined : JSON.stringify(sample);
  const baseType = jsonSchema ? 'application/json' : mediaTypes[0];

  const out: MalformedRequest[] = [];
  const add = (
    label: string,
    r: {
      pathValues?: Record<string, string>;
      query?: Record<string, string>;
      headers?: Record<string, string>;
      payload?: string | Buffer;
      contentType?: string | null;
      field?: MalformedRequest['field'];
    },
  ) => {
    const headers = { ...baseHeaders, ...(r.headers ?? {}) };
    const payload = 'payload' in r ? r.payload : basePayload;
    const contentType = r.contentType === undefined ? baseType : r.contentType;
    if (payload !== undefined && contentType) headers['content-type'] = contentType;
    out.push({
      label: `${method} ${path} ${label}`,
      method,
      url: fill(path, { ...realPath, ...(r.pathValues ?? {}) }) + queryString({ ...baseQuery, ...(r.query ?? {}) }),
      headers,
      payload,
      stream,
      ...(r.field ? { field: r.field } : {}),
    });
  };

  add('as generated', {});
  for (const name of pathParams) {
    for (const [label, v] of URL_VALUES) if (v !== '') add(`path ${name}=${label}`, { pathValues: { [name]: v } });
    add(`path ${name}=real id with NUL`, { pathValues: { [name]: `${realPath[name]}%00` } });
  }
  for (const q of queryParams) {
    for (const [label, v] of URL_VALUES) add(`query ${q.name}=${label}`, { query: { [q.name]: v } });
    add(`query ${q.name} twice`, { query: { [q.name]: `a&${q.name}=b` } });
  }
  add('unknown query parameters', { query: { zzz: '1', ['__proto__']: 'x', constructor: 'x' } });
  add('query name with NUL', { query: { 'a%00b': '1' } });
  for (const name of headerParams) {
    for (const [label, v] of HEADER_VALUES) add(`header ${name}=${label}`, { headers: { [name]: v } });
  }
  for (const [label, v] of AUTHORIZATION_VALUES) add(`Authorization: ${label}`, { headers: { authorization: v } });

  if (jsonSchema && sample !== undefined) {
    for (const field of fieldPaths(sample, 4)) {
      const values = field.length === 1 ? FIELD_VALUES : NESTED_VALUES;
      for (const [label, raw] of values)
        add(`body.${field.join('.')}=${label}`, { payload: withField(sample, field, raw), field: { path: field, value: label } });
      add(`body.${field.join('.')} missing`, { payload: withField(sample, field, undefined), field: { path: field, value: null } });
    }
    if (typeof sample === 'object' && sample !== null && !Array.isArray(sample)) {
      add('unknown body field', { payload: JSON.stringify({ ...sample, zzz: 1 }) });
      add('NUL in a key', { payload: JSON.stringify({ ...sample, 'a\u0000b': 1 }) });
    }
  }
  for (const type of mediaTypes.filter((t) => t !== 'application/json')) {
    for (const [label, payload] of textBodies(type)) add(`${type} body: ${label}`, { payload, contentType: type });
  }
  if (mediaTypes.length > 0) {
    for (const [label, payload] of WHOLE_BODIES) add(`body ${label}`, { payload });
    // Nothing at all: no body, so no Content-Type (a batch like it once reached the writer thread
    // as undefined and was answered 500).
    add('no body and no Content-Type', { payload: undefined, contentType: null });
    for (const ct of WRONG_CONTENT_TYPES) {
      if (ct && mediaTypes.includes(ct)) continue;
      add(`Content-Type ${ct ?? 'missing'}`, { contentType: ct, payload: basePayload ?? '{"events":[]}' });
    }
  } else if (method !== 'GET' && method !== 'DELETE') {
    add('an unexpected body', { payload: '{"a":1}', contentType: 'application/json' });
    add('an unexpected deep body', { payload: DEEP_OBJECT, contentType: 'application/json' });
  }
  return out;
}

/** Request bodies in the media types that are not JSON (NDJSON and CSV uploads, forms). */
function textBodies(mediaType: string): Array<[string, string | Buffer]> {
  if (mediaType === 'application/x-ndjson') {
    const line = (v: string) => `{"customerId":${v},"metricName":"api_calls","quantity":1,"occurredAt":"2026-01-15T12:00:00Z"}`;
    return [
      ['NUL', `${line('"a\\u0000b"')}\n`],
      ['deep', `${line(DEEP_ARRAY)}\n`],
      ['huge', `${line(HUGE_STRING)}\n`],
      ['1e309', line('1e309')],
      ['raw NUL byte', Buffer.from(`${line('"a\u0000b"')}\n`)],
      ['invalid UTF-8', Buffer.concat([Buffer.from(line('"a')), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')])],
      ['a long line', `${'x'.repeat(2_000_000)}\n`],
    ];
  }
  if (mediaType === 'text/csv') {
    const header = 'customerId,metricName,quantity,occurredAt\n';
    return [
      ['NUL', `${header}a\u0000b,api_calls,1,2026-01-15T12:00:00Z\n`],
      ['invalid UTF-8', Buffer.concat([Buffer.from(header), Buffer.from([0xff, 0xfe, 0x2c]), Buffer.from('api_calls,1,x\n')])],
      ['1e309', `${header}acme,api_calls,1e309,2026-01-15T12:00:00Z\n`],
      ['unbalanced quote', `${header}"acme,api_calls,1,2026\n`],
      ['many columns', `${header}${'x,'.repeat(100_000)}\n`],
    ];
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    return [
      ['NUL', 'grant_type=client_credentials&client_id=a%00b&client_secret=x'],
      ['invalid UTF-8', 'grant_type=%FF&client_id=%C0%AF'],
      ['huge', `grant_type=client_credentials&client_id=${'x'.repeat(500_000)}`],
      ['repeated', 'grant_type=a&grant_type=b&client_id=a&client_id=b'],
      ['injection', `client_id=${encodeURIComponent(INJECTION)}&client_secret=x&grant_type=client_credentials`],
    ];
  }
  return [];
}
