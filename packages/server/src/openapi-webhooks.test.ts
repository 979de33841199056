import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { createTestApp, type TestApp } from '../test/helpers/test-app.js';
import { inlineRefs } from '../test/helpers/openapi-refs.js';
import { catalogTypes, eventCatalog, type CatalogType } from './modules/outbound-webhooks/event-catalog.js';
import { webhookHeaders } from './modules/outbound-webhooks/sign-message.js';
import { generateSigningSecret, signingKeyOf } from './modules/outbound-webhooks/signing-secret.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

let t: TestApp;
let doc: any;

before(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(() => t.close());

/** The schema with every `#/components/…` reference replaced by what it names in the served document. */
const resolved = (schema: unknown): unknown => inlineRefs(schema, doc);

const bodyOf = (type: string) => doc.webhooks[type].post.requestBody.content['application/json'];
const validatorOf = (type: string) => ajv.compile(resolved(bodyOf(type).schema) as object);

describe('GET /openapi.json: webhooks, one per outbound event type', () => {
  it('200 lists exactly the event catalog, by type name', () => {
    assert.deepEqual(Object.keys(doc.webhooks), catalogTypes);
  });

  for (const type of catalogTypes) {
    it(`200 ${type}: a POST with the catalog's summary, the three Standard Webhooks headers, an example its schema accepts, the 2XX rule`, () => {
      const op = doc.webhooks[type].post;
      assert.ok(op, `${type} is a post`);
      assert.equal(op.summary, eventCatalog[type].description);
      assert.deepEqual(
        op.parameters.map((p: any) => [p.name, p.in, p.required]),
        [
          ['webhook-id', 'header', true],
          ['webhook-timestamp', 'header', true],
          ['webhook-signature', 'header', true],
        ],
      );
      const { example } = bodyOf(type);
      assert.equal(example.type, type);
      assert.equal(example.data.object.object, eventCatalog[type].resource);
      const validate = validatorOf(type);
      assert.equal(validate(example), true, JSON.stringify(validate.errors, null, 2));
      assert.match(op.responses['2XX'].description, /acknowledges/);
      assert.ok(op.responses['410'] && op.responses.default, 'a 410 and every other answer are documented');
    });
  }

  // The schemas are not vacuous: each refuses what another type, or a broken body, would send.
  const refused: Array<[rule: string, type: CatalogType, body: (example: any) => unknown]> = [
    ['another type’s body', 'subscription.created', () => bodyOf('invoice.paid').example],
    ['no data', 'invoice.paid', (e) => ({ type: e.type, timestamp: e.timestamp })],
    ['a timestamp that is no date-time', 'credit_note.created', (e) => ({ ...e, timestamp: 'yesterday' })],
    ['a subscription without its status', 'subscription.upgraded', (e) => ({ ...e, data: { object: { ...e.data.object, status: undefined } } })],
    ['an alert whose usage is a number, not decimal text', 'usage.limit_alert', (e) => ({ ...e, data: { object: { ...e.data.object, usage: 10001 } } })],
    ['an api key of an unknown status', 'api_key.revoked', (e) => ({ ...e, data: { object: { ...e.data.object, status: 'GONE' } } })],
  ];
  for (const [rule, type, body] of refused) {
    it(`200 ${type}: its schema refuses ${rule}`, () => {
      const value = JSON.parse(JSON.stringify(body(bodyOf(type).example)));
      assert.equal(validatorOf(type)(value), false);
    });
  }

  it('200 a body over the size limit (data.thin, data.object only id and object) fits every schema', () => {
    for (const type of catalogTypes) {
      const { example } = bodyOf(type);
      const { id, object } = example.data.object;
      const thin = { type, timestamp: example.timestamp, data: { object: id === undefined ? { object } : { id, object }, thin: true } };
      assert.equal(validatorOf(type)(thin), true, type);
    }
  });

  const routeOf: Array<[type: CatalogType, path: string]> = [
    ['subscription.upgraded', '/api/v1/subscriptions/{id}'],
    ['invoice.finalized', '/api/v1/invoices/{id}'],
    ['credit_note.created', '/api/v1/credit_notes/{id}'],
    ['api_key.grace_used', '/api/v1/api-keys/{id}'],
  ];
  for (const [type, path] of routeOf) {
    it(`200 ${type}: data.object is the schema GET ${path} answers with`, () => {
      const objectSchema = bodyOf(type).schema.properties.data.anyOf[0].properties.object;
      assert.match(objectSchema.$ref, /^#\/components\/schemas\//);
      assert.equal(objectSchema.$ref, doc.paths[path].get.responses['200'].content['application/json'].schema.$ref, 'the very schema the route answers with');
    });
  }

  it('200 the documented headers are the ones a delivery carries, within their documented bounds (two signatures in a rotation)', () => {
    const body = JSON.stringify(bodyOf('subscription.upgraded').example);
    const keys = [signingKeyOf(generateSigningSecret())!, signingKeyOf(generateSigningSecret())!];
    const sent = webhookHeaders('msg_01jd3m5x7c0000000000000000', 1_795_435_200, body, keys);
    const params: any[] = doc.webhooks['subscription.upgraded'].post.parameters;
    assert.deepEqual(
      Object.keys(sent),
      params.map((p) => p.name),
    );
    for (const p of params) assert.equal(ajv.validate(p.schema, sent[p.name]), true, `${p.name}: ${sent[p.name]}`);
    assert.match(sent['webhook-signature']!, /^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
  });
});
