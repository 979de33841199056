import { JSONPathEnvironment, JSONPathError, type JSONPathQuery, type JSONValue } from 'json-p3';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import { MAX_QUANTITY } from '../usage/usage-event.js';

/**
 * Field mappings: where a verified webhook's usage fields are found.
 *
 * A source is one of:
 * - an RFC 9535 JSONPath query over the parsed body, starting with `$` (e.g. `$.data.object.amount`);
 * - `{"header": "X-GitHub-Delivery"}`: a request header's value (the name is matched case-insensitively);
 * - a number, for `quantity` only: a constant (`1` counts each webhook as one unit).
 *
 * Extraction rules:
 * - A source that selects more than one value is refused (MAPPING_FAILED): billing never guesses
 *   which of several values was meant. A header sent several times counts as several values.
 * - quantity (required): a JSON number, or a string holding a plain decimal number such as "12"
 *   or "0.5" (form-encoded bodies, such as Twilio's, carry every value as text). Anything else is
 *   refused. Its range is checked afterwards, as for any usage event (0 to 1e15).
 * - tenant_id and event_id (required): a non-empty string, or an integer (GitHub ids are
 *   numbers), which becomes its decimal text. Selecting nothing is refused.
 * - timestamp (optional): without a mapping, or when it selects nothing or null, the event
 *   occurred when the webhook was received. Otherwise it must be ISO 8601 with a zone
 *   (2026-01-15T12:00:00Z, 2026-01-15T13:00:00.250+01:00) or a Unix epoch as a number or a
 *   numeric string (values below 1e11 are seconds, fractions allowed; larger ones milliseconds);
 *   anything else is INVALID_TIMESTAMP.
 * - properties (optional, at most 20): each is omitted when it selects nothing or null. Strings,
 *   numbers and booleans are kept as they are; objects and arrays are kept as their JSON text.
 * - A header source whose header is absent selects nothing.
 *
 * Queries are evaluated by json-p3, which interprets the RFC 9535 grammar and never evaluates
 * code (jsonpath-plus, which can, must never be used here).
 */

/**
 * Caps the work a stored query can ask for on every webhook. The longest valid query in the
 * RFC 9535 compliance suite is 43 characters, and real mappings are shorter still.
 */
export const MAX_PATH_LENGTH = 256;
const MAX_PROPERTIES = 20;
const MAX_PROPERTY_NAME_LENGTH = 40;
/** RFC 9110 token characters, the only ones a header field name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const EPOCH_TEXT = /^(\d+)(?:\.(\d+))?$/;
/** 1e11 seconds is the year 5138 and 1e11 milliseconds is 1973: no real timestamp is ambiguous. */
const SECONDS_BELOW = 1e11;
/** The largest time a Date can hold (ECMAScript's limit). */
const MAX_EPOCH_MS = 8.64e15;

/**
 * strict keeps the grammar and the function extensions to RFC 9535's (no keys selector, no
 * extra functions), and deterministic ordering makes a query select the same values every time.
 * The recursion limit (json-p3's default, 50 nested levels for `..`) stays.
 */
const environment = new JSONPathEnvironment({ strict: true, nondeterministic: false });
/**
 * Stored mappings run on every webhook, on the main thread, over payloads from outside: the
 * regular-expression functions match() and search() run JavaScript's backtracking engine, where
 * a pattern like (a+)+ takes seconds on a short string and would stall every tenant. Mappings
 * compile without them; everything else of RFC 9535 stays (evaluateJsonPath keeps all of it).
 */
const mappingEnvironment = new JSONPathEnvironment({ strict: true, nondeterministic: false });
mappingEnvironment.functionRegister.delete('match');
mappingEnvironment.functionRegister.delete('search');
const REGEX_FUNCTIONS = /\b(match|search)\s*\(/;

export type MappingSource = string | { header: string } | number;

export interface FieldMappings {
  quantity: MappingSource;
  tenant_id: MappingSource;
  event_id: MappingSource;
  timestamp?: MappingSource;
  properties?: Record<string, MappingSource>;
}

export interface MappingError {
  field: string;
  message: string;
}

type Checked<T> = { ok: true; value: T } | { ok: false; errors: MappingError[] };

/** An invalid JSONPath query: json-p3's message says what and where (the character offset). */
export class JsonPathSyntaxError extends Error {
  override readonly name = 'JsonPathSyntaxError';
  constructor(
    readonly expression: string,
    readonly detail: string,
  ) {
    super(`invalid JSONPath query ${JSON.stringify(preview(expression, 60))}: ${detail}`);
  }
}

function compileQuery(expression: string, env: JSONPathEnvironment = environment): JSONPathQuery {
  if (expression.length > MAX_PATH_LENGTH) {
    throw new JsonPathSyntaxError(expression, `the query is ${expression.length} characters long; at most ${MAX_PATH_LENGTH} are allowed`);
  }
  try {
    return env.compile(expression);
  } catch (err) {
    if (env === mappingEnvironment && err instanceof JSONPathError && REGEX_FUNCTIONS.test(expression)) {
      throw new JsonPathSyntaxError(
        expression,
        'match() and search() are not allowed in field mappings (a regular expression can take seconds on one payload); use == comparisons instead',
      );
    }
    // Type, index and undefined-function errors are json-p3's names for kinds of invalid query.
    if (err instanceof JSONPathError) throw new JsonPathSyntaxError(expression, err.message);
    throw err;
  }
}

export function evaluateJsonPath(expression: string, document: unknown): unknown[] {
  return compileQuery(expression)
    .query(document as JSONValue)
    .values();
}

// ---------------------------------------------------------------------------------------------
// Checking a configuration

const REQUIRED_KEYS = ['quantity', 'tenant_id', 'event_id'] as const;
const KNOWN_KEYS = new Set<string>([...REQUIRED_KEYS, 'timestamp', 'properties']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);
/** Keeps field names readable when a key is empty or absurdly long. */
const keyLabel = (key: string) => (key === '' ? '""' : preview(key, MAX_PROPERTY_NAME_LENGTH));

function preview(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'undefined') return 'nothing';
  return `a ${typeof v}`;
}

function expected(allowNumber: boolean): string {
  return allowNumber
    ? 'a JSONPath query (a string starting with $), {"header": "<name>"} or a constant number'
    : 'a JSONPath query (a string starting with $) or {"header": "<name>"}';
}

export function checkMappingSource(raw: unknown, field: string, allowNumber: boolean): Checked<MappingSource> {
  const fail = (message: string): Checked<MappingSource> => ({ ok: false, errors: [{ field, message: `${field} ${message}` }] });
  if (typeof raw === 'string') {
    if (!raw.startsWith('$')) return fail(`must be a JSONPath query starting with $ (such as $.data.object.id), got ${JSON.stringify(preview(raw, 60))}.`);
    if (raw.length > MAX_PATH_LENGTH) return fail(`is ${raw.length} characters long; a JSONPath query may have at most ${MAX_PATH_LENGTH}.`);
    try {
      compileQuery(raw, mappingEnvironment);
    } catch (err) {
      if (err instanceof JsonPathSyntaxError) return fail(`is not a valid RFC 9535 JSONPath query: ${err.detail}.`);
      throw err;
    }
    return { ok: true, value: raw };
  }
  if (typeof raw === 'number') {
    if (!allowNumber) return fail(`cannot be a constant number (only quantity can); expected ${expected(false)}.`);
    // The constant is the quantity of every event, so one the usage event rules refuse would
    // make every webhook fail: refuse it now instead.
    if (!Number.isFinite(raw) || raw < 0 || raw > MAX_QUANTITY) return fail(`must be a constant from 0 to 1e15, got ${raw}.`);
    return { ok: true, value: raw };
  }
  if (isPlainObject(raw)) {
    const errors: MappingError[] = [];
    for (const key of Object.keys(raw)) {
      if (key !== 'header')
        errors.push({
          field: join(field, keyLabel(key)),
          message: `${join(field, keyLabel(key))} is not a known field; a header source is {"header": "<name>"}.`,
        });
    }
    const name = raw.header;
    const hf = join(field, 'header');
    if (name === undefined) errors.push({ field: hf, message: `${hf} is required: the name of the request header to read, such as X-GitHub-Delivery.` });
    else if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
      const got = typeof name === 'string' ? JSON.stringify(preview(name, 60)) : typeName(name);
      errors.push({ field: hf, message: `${hf} must be a header name of 1 to 100 token characters (letters, digits and !#$%&'*+-.^_\`|~), got ${got}.` });
    }
    if (errors.length > 0) return { ok: false, errors };
    return { ok: true, value: { header: name as string } };
  }
  return fail(`must be ${expected(allowNumber)}, got ${typeName(raw)}.`);
}

export function checkFieldMappings(raw: unknown, at: string): Checked<FieldMappings> {
  if (!isPlainObject(raw)) {
    return {
      ok: false,
      errors: [
        {
          field: at,
          message: `${at} must be an object with quantity, tenant_id and event_id (and optionally timestamp and properties), got ${typeName(raw)}.`,
        },
      ],
    };
  }
  const errors: MappingError[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) {
      const f = join(at, keyLabel(key));
      errors.push({ field: f, message: `${f} is not a known field; expected quantity, tenant_id, event_id, timestamp or properties.` });
    }
  }
  const sources: Partial<Record<'quantity' | 'tenant_id' | 'event_id' | 'timestamp', MappingSource>> = {};
  for (const key of [...REQUIRED_KEYS, 'timestamp'] as const) {
    const f = join(at, key);
    const allowNumber = key === 'quantity';
    if (raw[key] === undefined) {
      if (key !== 'timestamp') errors.push({ field: f, message: `${f} is required: ${expected(allowNumber)}.` });
      continue;
    }
    const checked = checkMappingSource(raw[key], f, allowNumber);
    if (checked.ok) sources[key] = checked.value;
    else errors.push(...checked.errors);
  }
  let properties: Record<string, MappingSource> | undefined;
  if (raw.properties !== undefined) {
    const f = join(at, 'properties');
    if (!isPlainObject(raw.properties)) {
      errors.push({ field: f, message: `${f} must be an object of property names to sources, got ${typeName(raw.properties)}.` });
    } else {
      const entries = Object.entries(raw.properties);
      if (entries.length > MAX_PROPERTIES) errors.push({ field: f, message: `${f} has ${entries.length} properties; at most ${MAX_PROPERTIES} are allowed.` });
      const checkedEntries: Array<[string, MappingSource]> = [];
      for (const [name, source] of entries) {
        const pf = `${f}.${keyLabel(name)}`;
        if (name.length === 0 || name.length > MAX_PROPERTY_NAME_LENGTH) {
          errors.push({ field: pf, message: `${pf} has a name of ${name.length} characters; a property name must have 1 to ${MAX_PROPERTY_NAME_LENGTH}.` });
        }
        const checked = checkMappingSource(source, pf, false);
        if (checked.ok) checkedEntries.push([name, checked.value]);
        else errors.push(...checked.errors);
      }
      // fromEntries defines each name as an own property, so a property named __proto__ stays data.
      properties = Object.fromEntries(checkedEntries);
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const value: FieldMappings = {
    quantity: sources.quantity!,
    tenant_id: sources.tenant_id!,
    event_id: sources.event_id!,
  };
  if (sources.timestamp !== undefined) value.timestamp = sources.timestamp;
  if (properties !== undefined) value.properties = properties;
  return { ok: true, value };
}

// ---------------------------------------------------------------------------------------------
// Compiling and selecting

type Source = { kind: 'path'; text: string; query: JSONPathQuery } | { kind: 'header'; name: string; lowerName: string } | { kind: 'constant'; value: number };

declare const compiledBrand: unique symbol;
/** Opaque outside this module: a compiled query, a header name or a constant. */
export interface CompiledSource {
  readonly [compiledBrand]: true;
}

const open = (s: CompiledSource) => s as unknown as Source;
const seal = (s: Source) => s as unknown as CompiledSource;

export function compileSource(source: MappingSource): CompiledSource {
  if (typeof source === 'number') return seal({ kind: 'constant', value: source });
  if (typeof source === 'string') return seal({ kind: 'path', text: source, query: compileQuery(source, mappingEnvironment) });
  return seal({ kind: 'header', name: source.header, lowerName: source.header.toLowerCase() });
}

export interface CompiledMappings {
  quantity: CompiledSource;
  tenantId: CompiledSource;
  eventId: CompiledSource;
  timestamp: CompiledSource | null;
  properties: Array<[string, CompiledSource]>;
}

export function compileFieldMappings(m: FieldMappings): CompiledMappings {
  return {
    quantity: compileSource(m.quantity),
    tenantId: compileSource(m.tenant_id),
    eventId: compileSource(m.event_id),
    timestamp: m.timestamp === undefined ? null : compileSource(m.timestamp),
    properties: Object.entries(m.properties ?? {}).map(([name, s]) => [name, compileSource(s)]),
  };
}

export type Selected = { kind: 'none' } | { kind: 'one'; value: unknown } | { kind: 'many'; count: number };
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Throws json-p3's JSONPathRecursionLimitError for a `..` query over a too deeply nested document. */
export function selectValue(source: CompiledSource, document: unknown, headers: Headers): Selected {
  const s = open(source);
  if (s.kind === 'constant') return { kind: 'one', value: s.value };
  let values: unknown[];
  if (s.kind === 'path') {
    values = s.query.query(document as JSONValue).values();
  } else {
    values = [];
    // Node lowercases header names, but callers (and tests) may not have: compare them all.
    for (const [name, v] of Object.entries(headers)) {
      if (v === undefined || name.toLowerCase() !== s.lowerName) continue;
      values = values.concat(v);
    }
  }
  if (values.length === 0) return { kind: 'none' };
  if (values.length === 1) return { kind: 'one', value: values[0] };
  return { kind: 'many', count: values.length };
}

// ---------------------------------------------------------------------------------------------
// Extracting an event

export type MetadataValue = string | number | boolean | null;

export interface ExtractedEvent {
  quantity: number;
  tenantId: string;
  eventId: string;
  occurredAt: number;
  properties: Record<string, MetadataValue> | null;
}

export interface ExtractionFailure {
  code: 'MAPPING_FAILED' | 'INVALID_TIMESTAMP';
  field: string;
  message: string;
}

/** Thrown inside extractEvent so the first failure ends it without threading results through every step. */
class Failure {
  constructor(readonly failure: ExtractionFailure) {}
}

function mappingFailed(field: string, message: string): Failure {
  return new Failure({ code: 'MAPPING_FAILED', field, message: `${field} ${message}` });
}

function describeSource(source: CompiledSource): string {
  const s = open(source);
  return s.kind === 'header' ? `the request has no ${s.name} header` : `in the payload (${s.kind === 'path' ? s.text : s.value})`;
}

/** JSON text, or undefined for a value nested too deeply for JSON.stringify (it overflows the stack). */
function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

/** The start of a value's JSON text, found by following first children (never recursively). */
function startOf(v: unknown, max: number): string {
  let text = '';
  let node = v;
  while (text.length < max && typeof node === 'object' && node !== null) {
    if (Array.isArray(node)) {
      text += '[';
      node = node[0];
    } else {
      const key = Object.keys(node)[0];
      if (key === undefined) return `${text}{}…`;
      text += `{${JSON.stringify(key)}:`;
      node = (node as Record<string, unknown>)[key];
    }
  }
  return `${text.slice(0, max)}…`;
}

/** The value as it appears in a message: its JSON text, cut short. */
function shown(v: unknown): string {
  const text = jsonText(v);
  if (text !== undefined) return preview(text, 60);
  return typeof v === 'object' && v !== null ? startOf(v, 60) : String(v);
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v === '' ? 'an empty string' : `a string (${shown(v)})`;
  if (typeof v === 'number' || typeof v === 'boolean') return `a ${typeof v} (${shown(v)})`;
  return typeName(v);
}

/** Zero or one value; several throw a Failure. */
function selectAtMostOne(source: CompiledSource, document: unknown, headers: Headers, field: string): { found: false } | { found: true; value: unknown } {
  let selected: Selected;
  try {
    selected = selectValue(source, document, headers);
  } catch (err) {
    if (err instanceof JSONPathError) return failWith(mappingFailed(field, `could not be evaluated: ${err.message}`));
    throw err;
  }
  if (selected.kind === 'many') return failWith(mappingFailed(field, `selected ${selected.count} values; a mapping must select exactly one`));
  return selected.kind === 'one' ? { found: true, value: selected.value } : { found: false };
}

function failWith(f: Failure): never {
  throw f;
}

function selectRequired(source: CompiledSource, document: unknown, headers: Headers, field: string): unknown {
  const r = selectAtMostOne(source, document, headers, field);
  if (!r.found) {
    const s = open(source);
    throw mappingFailed(field, s.kind === 'header' ? `selected nothing: ${describeSource(source)}` : `selected nothing ${describeSource(source)}`);
  }
  return r.value;
}

function quantityOf(v: unknown, field: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && DECIMAL_TEXT.test(v)) return Number(v);
  throw mappingFailed(field, `selected ${describeValue(v)}; expected a JSON number or a string holding a decimal number`);
}

function idOf(v: unknown, field: string): string {
  if (typeof v === 'string' && v.length > 0) return v;
  if (typeof v === 'number' && Number.isInteger(v)) {
    // Past 2^53 JSON.parse has already rounded the id, so distinct ids could collide and one
    // event would be dropped as a duplicate of another.
    if (!Number.isSafeInteger(v))
      throw mappingFailed(field, `selected the integer ${shown(v)}, too large to be read exactly (above 2^53); map a string field instead`);
    return String(v);
  }
  throw mappingFailed(field, `selected ${describeValue(v)}; expected a non-empty string or an integer`);
}

function propertyOf(v: unknown, field: string): MetadataValue {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'object' && v !== null) {
    const text = jsonText(v);
    if (text === undefined) throw mappingFailed(field, 'selected a value nested too deeply to keep as a property; map a field inside it instead');
    return text;
  }
  throw mappingFailed(field, `selected ${describeValue(v)}; expected a string, a number, a boolean, an object or an array`);
}

export function extractEvent(m: CompiledMappings, document: unknown, headers: Headers, receivedAt: number): ExtractedEvent | ExtractionFailure {
  try {
    const quantity = quantityOf(selectRequired(m.quantity, document, headers, 'field_mappings.quantity'), 'field_mappings.quantity');
    const tenantId = idOf(selectRequired(m.tenantId, document, headers, 'field_mappings.tenant_id'), 'field_mappings.tenant_id');
    const eventId = idOf(selectRequired(m.eventId, document, headers, 'field_mappings.event_id'), 'field_mappings.event_id');
    let occurredAt = receivedAt;
    if (m.timestamp !== null) {
      const field = 'field_mappings.timestamp';
      const r = selectAtMostOne(m.timestamp, document, headers, field);
      if (r.found && r.value !== null) {
        const t = parseWebhookTimestamp(r.value);
        if (t === null) {
          return {
            code: 'INVALID_TIMESTAMP',
            field,
            message: `${field} selected ${shown(r.value)}, which is not a timestamp; expected ISO 8601 with a zone (such as 2026-01-15T12:00:00Z) or a Unix epoch in seconds or milliseconds`,
          };
        }
        occurredAt = t;
      }
    }
    const properties: Array<[string, MetadataValue]> = [];
    for (const [name, source] of m.properties) {
      const field = `field_mappings.properties.${name}`;
      const r = selectAtMostOne(source, document, headers, field);
      if (r.found && r.value !== null) properties.push([name, propertyOf(r.value, field)]);
    }
    return { quantity, tenantId, eventId, occurredAt, properties: properties.length > 0 ? Object.fromEntries(properties) : null };
  } catch (err) {
    if (err instanceof Failure) return err.failure;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Timestamps

/**
 * Epoch ms from decimal text, read digit by digit: multiplying a float by 1000 would turn
 * 1.001 s into 1000 ms.
 */
function epochFromDecimal(intDigits: string, fraction: string): number | null {
  const digits = intDigits.replace(/^0+(?=\d)/, '');
  // Anything longer is past the last date a Date can hold, in either unit.
  if (digits.length > 16) return null;
  const whole = Number(digits);
  const ms = whole < SECONDS_BELOW ? whole * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3)) : whole;
  return ms <= MAX_EPOCH_MS ? ms : null;
}

export function parseWebhookTimestamp(value: unknown): number | null {
  if (typeof value === 'number') {
    // Before 1970 is no webhook's event time; a negative value is a sentinel or a bug.
    if (!Number.isFinite(value) || value < 0) return null;
    // String() gives the shortest text that reads back as this number, i.e. the digits the
    // sender wrote; only tiny (< 1e-6) and huge (>= 1e21) values come out in exponent form.
    const m = EPOCH_TEXT.exec(String(value));
    if (m) return epochFromDecimal(m[1]!, m[2] ?? '');
    const ms = value < SECONDS_BELOW ? Math.trunc(value * 1000) : Math.trunc(value);
    return ms <= MAX_EPOCH_MS ? ms : null;
  }
  if (typeof value !== 'string') return null;
  const m = EPOCH_TEXT.exec(value);
  if (m) return epochFromDecimal(m[1]!, m[2] ?? '');
  return parseIsoTimestamp(value);
}
