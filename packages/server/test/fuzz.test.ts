import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { backend, createTestApp, type TestApp } from './helpers/test-app.js';
import type { EnvHandle } from './helpers/seed.js';
import { demoDelivery } from './helpers/demo-webhooks.js';
import { fieldValueText, malformedRequests, operationsOf, type MalformedRequest, type OperationTarget } from './helpers/malformed-requests.js';
import { createDemoWorkspace, type DemoEnvironment } from '../src/demo/create-demo-workspace.js';
import { signWebhook } from '../src/modules/plugs/sign-webhook.js';
import { signatureSchemeOf } from '../src/modules/plugs/provider-templates.js';
import { inlineRefs } from './helpers/openapi-refs.js';
import { validatorCompiler } from '../src/http/validation.js';

/**
 * Every operation of the served OpenAPI document gets malformed requests (see
 * helpers/malformed-requests.ts), with a key holding every scope and without one. None may get a
 * 5xx, every error must be the documented envelope and small, and none may hang; the server must
 * still answer /health afterwards. The hang bound is a detector, not a performance figure.
 * Without a key, the variants of one body field are sent only where the body is read before the
 * credentials are asked for (a probe per operation decides: fuzz() says how); and a body field
 * variant whose refusal by the schema validator was already seen is not sent again to a field of
 * the same schema elsewhere (fuzz() says when that is provably the same refusal).
 */

const HANG_MS = 10_000;
/** An error answer stays small whatever was sent (a 144 MB 400 once froze the server). */
const MAX_ERROR_BYTES = 16 * 1024;

let t: TestApp;
let env: DemoEnvironment;
let doc: any;
let workspaceId: string;
const realIds = new Map<string, string>();

before(async () => {
  // The frozen clock never lets a minute pass: the rate limit would answer everything with 429.
  t = await createTestApp({ config: { rateLimitPerMinute: 10_000_000 } });
  const ctx = { actor: { type: 'OPERATOR', id: 'fuzz' }, source: 'cli', correlationId: 'fuzz' } as const;
  const demo = await createDemoWorkspace(t.deps, ctx);
  env = demo.environments.test;
  workspaceId = demo.workspaceId;
  const handle = { workspaceId: demo.workspaceId, environment: 'test', ctx: { ...ctx, workspaceId: demo.workspaceId, environment: 'test' } } as EnvHandle;
  const api = t.seed.client(env.secretKey);
  // What the demo lacks, so every path with an id has a real one: a client credential, a saved
  // search and an ingestion log entry.
  const agent = await t.seed.subscription(handle, 'AI_AGENT');
  assert.equal((await api.post('/api/v1/client-credentials', { name: 'fuzz', subscriptionId: agent.subscription.id })).status, 200);
  assert.equal((await api.post('/api/v1/events/presets', { name: 'fuzz', filters: { q: 'fuzz' } })).status, 200);
  const d = demoDelivery('payment', env.webhookSources.payment, 'http://localhost', 'acme', t.clock.now());
  assert.equal((await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body })).statusCode, 200);
  doc = inlineRefs(t.app.swagger());
  for (const { path } of operationsOf(doc)) {
    const list = path.slice(0, path.indexOf('/{'));
    if (!path.includes('{') || realIds.has(list) || !doc.paths[list]?.get) continue;
    const res = await api.get(list);
    realIds.set(list, res.body?.data?.[0]?.id ?? 'none');
  }
});
after(() => t?.close());

function pathValue(path: string, name: string): string {
  if (name === 'storefrontId') return env.storefrontId;
  if (name === 'sourceId') return env.webhookSources.payment.id;
  return realIds.get(path.slice(0, path.indexOf('/{'))) ?? 'none';
}

/** customerId -> a customer's id, ratePlanId -> a rate plan's: what the list of that resource holds. */
function idOf(field: string): string | undefined {
  const m = /^(\w+?)Ids?$/.exec(field);
  if (!m) return undefined;
  return realIds.get(`/api/v1/${m[1]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}s`);
}

function credentials(target: OperationTarget, withKey: boolean): Record<string, string> {
  if (!withKey) return {};
  const security: Array<Record<string, unknown>> = target.op.security ?? [];
  if (security.some((s) => 'storefrontKey' in s)) return { 'x-storefront-key': env.storefrontKey };
  // The live stream needs its workspace named, so that hostile filters reach it.
  const headers: Record<string, string> = { authorization: `Bearer ${env.secretKey}` };
  if ((target.op.parameters ?? []).some((p: { name: string }) => p.name === 'x-tenant-id')) headers['x-tenant-id'] = workspaceId;
  return headers;
}

/** Signed deliveries to the payment source whose mapped fields hold hostile values. */
function signedWebhooks(): MalformedRequest[] {
  const source = env.webhookSources.payment;
  const scheme = signatureSchemeOf(source.provider, {});
  const event = (over: Record<string, string>) => {
    const f = {
      id: '"evt_1"',
      type: '"payment_intent.succeeded"',
      created: String(Math.floor(t.clock.now() / 1000)),
      amount: '2500',
      currency: '"usd"',
      customer: '"acme"',
      ...over,
    };
    return `{"id":${f.id},"type":${f.type},"created":${f.created},"data":{"object":{"amount":${f.amount},"currency":${f.currency},"customer":${f.customer}}}}`;
  };
  const hostile: Array<[string, string]> = [
    ['NUL', '"a\\u0000b"'],
    ['deep', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['deep object', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)],
    ['huge', JSON.stringify('x'.repeat(300_000))],
    ['1e309', '1e309'],
    ['object', '{"a":[1,{"b":null}]}'],
    ['lone surrogate', '"\\ud800"'],
    ['injection', JSON.stringify("' OR 1=1; --")],
  ];
  const out: MalformedRequest[] = [];
  for (const field of ['id', 'type', 'created', 'amount', 'currency', 'customer']) {
    for (const [label, raw] of hostile) {
      const body = event({ [field]: raw });
      const signed = signWebhook(scheme, source.secret, body, { nowMs: t.clock.now(), url: `http://localhost${source.url}`, contentType: 'application/json' });
      out.push({
        label: `signed webhook ${field}=${label}`,
        method: 'POST',
        url: source.url,
        headers: { 'content-type': 'application/json', ...signed.headers },
        payload: body,
        stream: false,
      });
    }
  }
  for (const [label, body] of [
    ['deep body', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['NUL byte', `{"id":"a\u0000"}`],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['form with NUL', 'id=a%00b&type=payment_intent.succeeded'],
  ] as Array<[string, string | Buffer]>) {
    const contentType = label.startsWith('form') ? 'application/x-www-form-urlencoded' : 'application/json';
    const signed = signWebhook(scheme, source.secret, body, { nowMs: t.clock.now(), url: `http://localhost${source.url}`, contentType });
    out.push({
      label: `signed webhook ${label}`,
      method: 'POST',
      url: source.url,
      headers: { 'content-type': contentType, ...signed.headers },
      payload: body,
      stream: false,
    });
  }
  return out;
}

interface Answer {
  statusCode: number;
  headers: LightMyRequestResponse['headers'];
  body: string;
  bytes: number;
}

async function answerOf(r: MalformedRequest, res: LightMyRequestResponse): Promise<Answer> {
  if (!r.stream) return { statusCode: res.statusCode, headers: res.headers, body: res.body, bytes: res.rawPayload.length };
  const stream = res.stream();
  // An open event stream is read no further than its head; an error answer ends by itself.
  if (res.statusCode < 400) {
    stream.destroy();
    return { statusCode: res.statusCode, headers: res.headers, body: '', bytes: 0 };
  }
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  const raw = Buffer.concat(chunks);
  return { statusCode: res.statusCode, headers: res.headers, body: raw.toString('utf8'), bytes: raw.length };
}

async function send(r: MalformedRequest): Promise<Answer | 'hang'> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), HANG_MS);
  });
  try {
    return await Promise.race([
      t.app
        .inject({ method: r.method as 'GET', url: r.url, headers: r.headers, payload: r.payload, payloadAsStream: r.stream })
        .then((res) => answerOf(r, res)),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What is wrong with an answer, or null. */
function problemWith(res: Answer, op: any): string | null {
  if (res.statusCode >= 500) return `${res.statusCode} ${res.body.slice(0, 300)}`;
  if (res.statusCode < 400) return null;
  const type = String(res.headers['content-type'] ?? '');
  // The hosted pricing page answers browsers in HTML, as its document says.
  if (type.startsWith('text/html') && op.responses?.[String(res.statusCode)]?.content?.['text/html']) return null;
  if (!type.startsWith('application/json')) return `${res.statusCode} with Content-Type ${type}: ${res.body.slice(0, 200)}`;
  if (res.bytes > MAX_ERROR_BYTES) return `${res.statusCode} of ${res.bytes} bytes`;
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `${res.statusCode} with a body that is not JSON`;
  }
  const ok =
    body.success === false &&
    Array.isArray(body.errors) &&
    body.errors.length > 0 &&
    body.errors.every((e: any) => typeof e.code === 'string' && typeof e.message === 'string' && e.message.length > 0);
  return ok ? null : `${res.statusCode} outside the envelope: ${res.body.slice(0, 200)}`;
}

/** Every way of calling the operation needs a credential (no `{}` or empty list among its security requirements). */
function needsCredentials(op: any): boolean {
  return Array.isArray(op.security) && op.security.length > 0 && op.security.every((s: object) => Object.keys(s).length > 0);
}

/**
 * Without a key, an operation that needs one is refused by the authentication hook, which runs
 * before the body is read: every variant of one body field then meets the same refusal, and the
 * field variants prove nothing the pass with a key does not (there they reach validation and the
 * handler). So, per such operation, one field variant goes first as a probe: a field nested 10,000
 * deep, which any reading of the body refuses with 400. Answered 401, the body was not read, and
 * the operation's other field variants are not sent without a key; answered anything else (the
 * body was read before the credentials were asked for), they all are. Every other request (path,
 * query, headers, credentials, whole bodies, content types) is sent as before.
 */
const PROBE_VALUE = 'deep array';

/** Keywords under which a field's check depends on its siblings: a field below one is never deduplicated. */
const COMBINATORS = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'dependencies', 'dependentSchemas', 'dependentRequired', 'unevaluatedProperties'];

/** Keywords that only annotate: the validator (strict: false) takes no notice of them. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const SUBSCHEMA = new Set(['items', 'additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else']);
const SUBSCHEMAS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties']);
/** A schema without its annotations, so that two fields checked alike have one text (values such as enum's and default are kept as they are). */
function withoutAnnotations(schema: any): any {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries<any>(schema)) {
    if (ANNOTATIONS.has(k) || k.startsWith('x-')) continue;
    if (SUBSCHEMA.has(k)) out[k] = withoutAnnotations(v);
    else if (SUBSCHEMAS.has(k) && Array.isArray(v)) out[k] = v.map(withoutAnnotations);
    else if (SUBSCHEMA_MAPS.has(k)) out[k] = Object.fromEntries(Object.entries<any>(v).map(([n, x]) => [n, withoutAnnotations(x)]));
    else out[k] = v;
  }
  return out;
}

/**
 * The schema of one field of a body, as the validator reads it (fuzz() says why it decides the
 * verdict on the field's value), or undefined when an object or array on the way down combines
 * schemas (its verdict on the field may then depend on the rest of the body) or the path leaves
 * what the schema declares.
 */
function fieldSchema(bodySchema: any, path: Array<string | number>): any {
  let node = bodySchema;
  for (const k of path) {
    if (!node || typeof node !== 'object' || COMBINATORS.some((c) => c in node)) return undefined;
    node = typeof k === 'number' ? (node.prefixItems || Array.isArray(node.items) ? undefined : node.items) : node.properties?.[k];
  }
  return node && typeof node === 'object' ? node : undefined;
}

/** Operations whose bodies their own code checks: usage.routes.ts and upload.routes.ts give their routes a validator that accepts anything (documentOnly). */
const checksItsOwnBody = (target: OperationTarget) => target.path.startsWith('/v1/ingest') || target.path.startsWith('/api/v1/usage/uploads');

/** The server's own body validator (http/validation.ts: the same compiler, options and size bounds first) for each field schema, by its text. */
const fieldValidators = new Map<string, (data: unknown) => unknown>();

/** The server's body validator refuses this value for a field of this schema, wherever the field is. */
function validatorRefuses(schemaText: string, schema: object, value: string): boolean {
  let validate = fieldValidators.get(schemaText);
  if (!validate) {
    validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/fuzz' });
    fieldValidators.set(schemaText, validate);
  }
  try {
    return !validate(fieldValue(value));
  } catch {
    // A validator that would write a default into the (frozen) value: not deduplicated.
    return false;
  }
}

/** Each field value as the server's JSON parser reads it, parsed once and frozen, so that no validator (useDefaults) changes it for the next. */
const fieldValues = new Map<string, unknown>();
function fieldValue(name: string): unknown {
  if (!fieldValues.has(name)) fieldValues.set(name, deepFreeze(JSON.parse(fieldValueText(name)!)));
  return fieldValues.get(name);
}
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The answer is the schema validator's refusal of this field alone: a 400 whose every error names the field or a part of it. */
function refusesOnlyField(res: Answer, field: Array<string | number>): boolean {
  if (res.statusCode !== 400) return false;
  const name = ['body', ...field].join('.');
  try {
    const errors: Array<{ field?: string }> = JSON.parse(res.body).errors;
    return errors.length > 0 && errors.every((e) => e.field === name || e.field?.startsWith(`${name}.`) === true);
  } catch {
    return false;
  }
}

/** A too-deep body is refused whole by the JSON parser (lib/json-limits.ts), whichever field holds the depth: its answer names the body alone. */
function refusedAsTooDeep(res: Answer): boolean {
  if (res.statusCode !== 400) return false;
  try {
    const errors: Array<{ code?: string; field?: string }> = JSON.parse(res.body).errors;
    return errors.length === 1 && errors[0]!.code === 'INVALID_JSON' && errors[0]!.field === 'body';
  } catch {
    return false;
  }
}

const DEEP_VALUES = new Set(['deep array', 'deep object']);

/**
 * Body field variants that provably meet a refusal already seen are not sent again (the other
 * variants, path, query, headers, credentials, whole bodies and content types, always are):
 * - Across operations: the body validator (http/validation.ts) checks each field against the
 *   field's own schema; where no object or array on the way down combines schemas
 *   (fieldSchema), a value the field's schema refuses makes the validator refuse the whole body,
 *   whatever the other fields hold, before any handler runs; and its errors are worded from the
 *   schema and the field's path, never from the value. So a value sent to a field, once answered
 *   with a 400 naming that field alone (the request got past authentication and parsing, and the
 *   envelope was checked), is not sent again to a field of the same schema (annotations aside)
 *   in another operation, if the server's own validator, compiled from that schema by the same
 *   compiler (validatorRefuses), refuses the value: the other operation's validator refuses it
 *   by the same code. The other operation's own authentication, parsing, error envelope and
 *   audit of a refused request are exercised by every other variant it is sent. Operations that
 *   check their bodies in their own code (checksItsOwnBody) are never deduplicated, nor are
 *   fields left out. Which operation sends a value first follows the document's order: the same
 *   on both backends and in every run.
 * - Within one operation: a field nested 10,000 deep (DEEP_VALUES) makes the whole body too
 *   deep, which the JSON parser refuses before the route sees the body, naming no field. Once
 *   the operation answered one field's deep value so, its other fields' same deep value are
 *   not sent (the body variants "deep array" and "deep object" are sent to it too).
 * On the pass with a key this leaves out ~3,300 of ~15,550 requests (12,275 sent), many of them
 * values of 20 KB to 1 MB (huge, wide, deep) that each cost the server a parse of the whole
 * body.
 */
async function fuzz(withKey: boolean): Promise<{ sent: number; problems: string[]; notSent: number; deduplicated: number }> {
  const problems: string[] = [];
  let sent = 0;
  let notSent = 0;
  let deduplicated = 0;
  /** The schema (without annotations) and value name of every field variant the validator refused (see above). */
  const refused = new Set<string>();
  // Deletes last, so that they do not take away what the other operations act on.
  const targets = operationsOf(doc).sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  const run = async (r: MalformedRequest, op: any): Promise<Answer | 'hang'> => {
    sent++;
    const res = await send(r);
    if (res === 'hang') problems.push(`${r.label}: no answer within ${HANG_MS} ms`);
    else {
      const p = problemWith(res, op);
      if (p) problems.push(`${r.label}: ${p}`);
    }
    return res;
  };
  if (withKey) {
    const webhook = doc.paths['/v1/ingest/webhook/{sourceId}'].post;
    for (const r of signedWebhooks()) await run(r, webhook);
  }
  for (const target of targets) {
    const requests = malformedRequests(target, { pathValue, idOf, headers: (x) => credentials(x, withKey) });
    const fieldVariants = requests.filter((r) => r.field);
    const probe = !withKey && needsCredentials(target.op) ? fieldVariants.find((r) => r.field!.value === PROBE_VALUE) : undefined;
    let bodyUnread = false;
    if (probe) {
      const res = await run(probe, target.op);
      bodyUnread = res !== 'hang' && res.statusCode === 401;
    }
    const bodySchema = target.op.requestBody?.content?.['application/json']?.schema;
    const ownChecks = checksItsOwnBody(target);
    const tooDeep = new Set<string>();
    for (const r of requests) {
      if (r === probe) continue;
      if (bodyUnread && r.field) {
        notSent++;
        continue;
      }
      if (!r.field) {
        await run(r, target.op);
        continue;
      }
      const value = r.field.value;
      // A field left out is refused by its object's `required`, not by its own schema, and a deep
      // value by the parser: neither is deduplicated across operations.
      const schema = ownChecks || value === null || DEEP_VALUES.has(value) ? undefined : fieldSchema(bodySchema, r.field.path);
      const schemaText = schema && JSON.stringify(withoutAnnotations(schema));
      const key = schemaText && `${schemaText}\0${value}`;
      if ((key && refused.has(key)) || (value !== null && tooDeep.has(value))) {
        deduplicated++;
        continue;
      }
      const res = await run(r, target.op);
      if (res === 'hang' || value === null) continue;
      if (key && refusesOnlyField(res, r.field.path) && validatorRefuses(schemaText, schema, value)) refused.add(key);
      if (DEEP_VALUES.has(value) && refusedAsTooDeep(res)) tooDeep.add(value);
    }
  }
  return { sent, problems, notSent, deduplicated };
}

describe(`fuzzing every operation of the OpenAPI document (${backend})`, () => {
  for (const withKey of [true, false]) {
    it(`no 5xx, no hang, every error small and in the envelope, ${withKey ? 'with a key holding every scope' : 'without a key'}`, async (ctx) => {
      const { sent, problems, notSent, deduplicated } = await fuzz(withKey);
      if (notSent > 0)
        ctx.diagnostic(`${notSent} body field variants not sent without a key: their operation's probe was refused 401 before its body was read`);
      ctx.diagnostic(`${sent} requests sent; ${deduplicated} body field variants not sent again: their refusal was already seen (fuzz() says when)`);
      assert.ok(sent > 1000, `sent ${sent} requests`);
      assert.deepEqual(problems.slice(0, 40), [], `${problems.length} of ${sent} requests went wrong`);
      const health = await t.app.inject({ method: 'GET', url: '/health' });
      assert.equal(health.statusCode, 200, 'the server still answers /health');
    });
  }
});
