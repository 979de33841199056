import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { inlineRefs } from '../../test/helpers/openapi-refs.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('GET /openapi.json', () => {
  it('200 serves an OpenAPI 3.1 document that validates', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('documents every route the server serves, with the error envelope on its errors', async () => {
    const doc = inlineRefs((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    const expected: Array<[string, string]> = [
      ['get', '/'],
      ['get', '/health'],
      ['get', '/api/v1/workspace'],
      ['post', '/api/v1/customers'],
      ['get', '/api/v1/customers'],
      ['get', '/api/v1/customers/{id}'],
      ['patch', '/api/v1/customers/{id}'],
      ['post', '/api/v1/products'],
      ['patch', '/api/v1/products/{id}'],
      ['post', '/api/v1/metrics'],
      ['post', '/api/v1/subscriptions'],
      ['post', '/api/v1/subscriptions/{id}/cancel'],
      ['post', '/api/v1/api-keys'],
      ['get', '/api/v1/api-keys'],
      ['post', '/api/v1/api-keys/{id}/rotate'],
      ['post', '/api/v1/api-keys/{id}/roll'],
      ['delete', '/api/v1/api-keys/{id}'],
      ['post', '/v1/keys/verify'],
      ['post', '/api/v1/client-credentials'],
      ['delete', '/api/v1/client-credentials/{id}'],
      ['post', '/oauth/token'],
      ['post', '/api/v1/storefront-keys'],
      ['delete', '/api/v1/storefront-keys/{id}'],
      ['post', '/api/v1/widget_sessions'],
      ['delete', '/api/v1/widget_sessions/{id}'],
      ['get', '/v1/widget/session'],
      ['post', '/api/v1/rate-plans'],
      ['get', '/api/v1/rate-plans'],
      ['get', '/api/v1/rate-plans/{id}'],
      ['patch', '/api/v1/rate-plans/{id}'],
      ['post', '/api/v1/offerings'],
      ['get', '/api/v1/offerings'],
      ['get', '/api/v1/offerings/{id}'],
      ['patch', '/api/v1/offerings/{id}'],
      ['post', '/api/v1/storefronts'],
      ['get', '/api/v1/storefronts'],
      ['get', '/api/v1/storefronts/{id}'],
      ['patch', '/api/v1/storefronts/{id}'],
      ['post', '/api/v1/storefronts/{id}/publish'],
      ['get', '/api/v1/portal/headless/config'],
      ['get', '/pricing/{storefrontId}'],
      ['get', '/api/v1/subscriptions/{id}/upcoming-invoice'],
      ['get', '/v1/events'],
      ['get', '/api/v1/events/stream'],
    ];
    for (const [method, path] of expected) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(op.summary, `${method.toUpperCase()} ${path} has a summary`);
    }
    const rotate = doc.paths['/api/v1/api-keys/{id}/rotate'].post;
    const err = rotate.responses['401'].content['application/json'].schema;
    assert.deepEqual(Object.keys(err.properties).sort(), ['errors', 'success']);
    assert.deepEqual(Object.keys(rotate.responses['200'].content['application/json'].schema.properties).slice(0, 3), ['id', 'fullToken', 'status']);
    const stream = doc.paths['/api/v1/events/stream'].get;
    assert.ok(stream.responses['200'].content['text/event-stream'], 'the stream documents its media type');
    assert.ok(stream.responses['429'], 'the rate limit and the stream caps are a 429 before the stream opens');
    const headless = doc.paths['/api/v1/portal/headless/config'].get;
    assert.deepEqual(headless.security, [{ storefrontKey: [] }]);
    assert.ok(headless.responses['304'], 'the 304 is documented');
    // The spec's four in its order, then Tollgate's documented display addition.
    assert.deepEqual(Object.keys(headless.responses['200'].content['application/json'].schema.properties), [
      'schemaVersion',
      'etag',
      'offerings',
      'ratePlans',
      'theme',
    ]);
    assert.deepEqual(doc.paths['/v1/widget/session'].get.security, [{ widgetSession: [] }]);
    assert.equal(doc.paths['/v1/widget/{*}'], undefined, 'preflights are not documented as routes');
  });
});

/** Every operation of the document, routes and outbound webhooks alike, with where it is. */
function operations(doc: any): Array<{ at: string; op: any }> {
  const out: Array<{ at: string; op: any }> = [];
  for (const section of ['paths', 'webhooks'] as const) {
    for (const [path, ops] of Object.entries<any>(doc[section] ?? {})) {
      for (const [method, op] of Object.entries<any>(ops)) out.push({ at: `${section} ${method.toUpperCase()} ${path}`, op });
    }
  }
  return out;
}

describe('operations in the OpenAPI document', () => {
  it('each has a unique camelCase operationId, a summary, a description and a tag the document describes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const described = new Map<string, string>(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]));
    const seen = new Map<string, string>();
    const problems: string[] = [];
    for (const { at, op } of operations(doc)) {
      const id: unknown = op.operationId;
      if (typeof id !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(id)) problems.push(`${at}: operationId ${String(id)}`);
      else if (seen.has(id)) problems.push(`${at}: operationId ${id} is also ${seen.get(id)}`);
      else seen.set(id, at);
      if (!op.summary) problems.push(`${at}: no summary`);
      if (!op.description) problems.push(`${at}: no description`);
      if (!op.tags?.length || op.tags.some((tag: string) => !described.get(tag))) problems.push(`${at}: tags ${op.tags} not all described`);
    }
    assert.deepEqual(problems, []);
    assert.ok(seen.size > 100, `${seen.size} operations`);
    assert.equal(doc.paths['/api/v1/customers'].get.operationId, 'listCustomers');
    assert.equal(doc.paths['/api/v1/customers/{id}'].get.operationId, 'retrieveCustomer');
  });

  it('each says how it is authenticated: none on the public routes, a scheme the document defines on the rest', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const publicRoutes = [
      'paths GET /',
      'paths GET /health',
      'paths GET /ready',
      'paths POST /api/v1/operator_invitations/accept',
      'paths POST /api/v1/operator_sessions',
      'paths POST /oauth/token',
      'paths POST /api/v1/hub/session',
      'paths GET /pricing/{storefrontId}',
      'paths GET /pay/{token}',
      'paths POST /pay/{token}',
      'paths POST /v1/ingest/webhook/{sourceId}',
      'paths POST /v1/payments/stripe/webhooks/{id}',
      'paths GET /widget/v1/tollgate-widget.js',
      'paths GET /widget/v1/tollgate-widget.{hash}.js',
      'paths GET /widget/v1/manifest.json',
    ];
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    const open: string[] = [];
    for (const { at, op } of operations(doc)) {
      assert.ok(Array.isArray(op.security), `${at} states its security`);
      if (op.security.length === 0) open.push(at);
      for (const requirement of op.security) for (const name of Object.keys(requirement)) assert.ok(schemes.has(name), `${at}: scheme ${name}`);
    }
    // The outbound webhooks are our requests to the seller: their signature header is their proof.
    assert.deepEqual(open.filter((at) => !at.startsWith('webhooks ')).sort(), publicRoutes.sort());
    // An API key, or the console's session cookie when no Authorization header is sent.
    assert.deepEqual(doc.paths['/api/v1/customers'].post.security, [{ bearerAuth: [] }, { consoleSession: [] }]);
  });
});

describe('named schemas in the OpenAPI document', () => {
  it('give each resource, list and the error envelope one entry under components, which routes refer to', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const json = (response: any) => response.content['application/json'].schema;
    for (const name of ['Customer', 'CustomerList', 'Subscription', 'Invoice', 'ApiKey', 'Error', 'WebhookEndpoint']) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    assert.deepEqual(json(doc.paths['/api/v1/customers/{id}'].get.responses['200']), { $ref: '#/components/schemas/Customer' });
    assert.deepEqual(json(doc.paths['/api/v1/customers'].get.responses['200']), { $ref: '#/components/schemas/CustomerList' });
    assert.deepEqual(doc.components.schemas.CustomerList.properties.data.items, { $ref: '#/components/schemas/Customer' });
    assert.deepEqual(doc.paths['/api/v1/customers/{id}'].get.responses['404'], { $ref: '#/components/responses/NotFound' });
    assert.deepEqual(json(doc.components.responses.NotFound), { $ref: '#/components/schemas/Error' });
  });
});

describe('examples in the OpenAPI document', () => {
  it('every request body and JSON response has one, and it validates against its schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    const problems: string[] = [];
    let checked = 0;
    const check = (at: string, content: Record<string, any> | undefined) => {
      for (const [type, media] of Object.entries(content ?? {})) {
        const example = media.example ?? Object.values<any>(media.examples ?? {})[0]?.value;
        if (example === undefined) {
          problems.push(`${at} ${type}: no example`);
          continue;
        }
        const validate = ajv.compile(inlineRefs(media.schema, doc));
        if (!validate(example)) problems.push(`${at} ${type}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    };
    for (const { at, op } of operations(doc)) {
      check(`${at} request`, op.requestBody?.content);
      for (const [status, response] of Object.entries<any>(op.responses)) check(`${at} ${status}`, inlineRefs(response, doc).content);
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 500, `${checked} examples`);
  });
});

/** A pattern that bounds the length by itself: anchored, with no open-ended repetition. */
const boundedPattern = (p: unknown) => typeof p === 'string' && p.startsWith('^') && p.endsWith('$') && !/[*+]|\{\d+,\}/.test(p);

/** Every string, array and map in `schema` without a maximum, by its place. */
function unbounded(schema: any, at: string, out: string[]): string[] {
  if (typeof schema !== 'object' || schema === null) return out;
  const { type } = schema;
  const bounded = schema.maxLength !== undefined || schema.enum || schema.const !== undefined || boundedPattern(schema.pattern) || schema.format === 'binary';
  if (type === 'string' && !bounded) out.push(at);
  if (type === 'array' && schema.maxItems === undefined) out.push(`${at} (array)`);
  const isMap = typeof schema.additionalProperties === 'object' || schema.patternProperties !== undefined;
  if (type === 'object' && isMap && (schema.maxProperties === undefined || schema.propertyNames?.maxLength === undefined)) out.push(`${at} (keys)`);
  for (const k of ['properties', 'patternProperties']) for (const [n, v] of Object.entries(schema[k] ?? {})) unbounded(v, `${at}.${n}`, out);
  if (schema.items) unbounded(schema.items, `${at}[]`, out);
  if (typeof schema.additionalProperties === 'object') unbounded(schema.additionalProperties, `${at}.*`, out);
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const v of schema[k] ?? []) unbounded(v, at, out);
  return out;
}

describe('request schemas in the OpenAPI document', () => {
  it('give every string a maxLength (or an enum or bounded pattern), every array a maxItems, every map a key count and key length', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = inlineRefs(doc.paths, doc);
    const found: string[] = [];
    // The outbound webhooks are requests too (ours): their headers and bodies, but for the
    // resources they refer to, which are the routes' answers.
    for (const [path, ops] of [...Object.entries<any>(paths), ...Object.entries<any>(doc.webhooks)]) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const p of op.parameters ?? []) unbounded(p.schema, `${method} ${path} ${p.in}.${p.name}`, found);
        for (const [type, c] of Object.entries<any>(op.requestBody?.content ?? {})) unbounded(c.schema, `${method} ${path} body[${type}]`, found);
      }
    }
    assert.deepEqual(found, []);
  });
});

describe('GET /docs', () => {
  it('200 serves readable API docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /<title>Tollgate API reference<\/title>/);
    assert.match(res.body, /<script src="js\/scalar.js">/, 'the renderer is served from here');
    assert.doesNotMatch(res.body, /https?:\/\//, 'nothing loaded from elsewhere');
    assert.match(res.headers['content-security-policy'] as string, /default-src 'self'/);
    const script = await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    assert.equal(script.statusCode, 200);
  });
});
