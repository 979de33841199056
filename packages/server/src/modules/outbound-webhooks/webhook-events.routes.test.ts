// Every change the event catalog names writes its webhook message in the change's own transaction,
// through the real API: one message per event, data.object exactly what the API's GET returns,
// never a secret, ordered by the subscription it concerns, none for a replay or a rolled-back
// change, none when no endpoint subscribes. The endpoints are made with POST
// /api/v1/webhook-endpoints, with the SSRF guard on and an injected resolver (hooks.example is public).
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';
import { transaction } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordGraceUse } from '../api-keys/record-grace-use.js';
import { subscriptionBilling } from '../billing/open-subscription.js';
import { transitionInvoice } from '../billing/invoice-transitions.js';
import { createSubscription } from '../subscriptions/create-subscription.js';
import { runBilling } from '../billing/run-billing.js';
import { boundCredentials } from '../authentication/bound-credentials.js';
import { previousAttributes } from './emit-webhook-events.js';
import { eventCatalog, exampleOf, subscribableTypes, type CatalogType } from './event-catalog.js';
import type { HostResolver } from './resolve-destination.js';
import { listDeliveriesOfMessage, listTenantMessages } from './webhook-message.repository.js';
import { webhookExample } from './webhook-docs.js';
import type { WebhookMessage } from './webhook-message.js';
import Stripe from 'stripe';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake, type TestCard } from '../../../test/helpers/stripe-fake.js';

/** Posts one of the fake's Stripe events to a connection's webhook URL, signed as Stripe signs. */
async function postStripeEvent(w: { api: { request: Client['request'] } }, connection: { id: string }, event: Record<string, unknown>): Promise<void> {
  const payload = JSON.stringify(event);
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/payments/stripe/webhooks/${connection.id}`,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: FAKE_STRIPE_WEBHOOK_SECRET,
        timestamp: Math.floor(t.clock.now() / 1000),
      }),
    },
    payload,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(w);
}

const resolver: HostResolver = async (name) => {
  if (name === 'hooks.example') return ['93.184.216.34'];
  throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
};
const appOptions = {
  config: { rateLimitPerMinute: 1_000_000, outboundWebhookAllowPrivateAddresses: false, outboundWebhookAllowHttp: false },
  webhooks: { resolver },
};

let t: TestApp;
before(async () => {
  t = await createTestApp(appOptions);
});
after(() => t.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const APRIL = Date.UTC(2026, 3, 1);
const MID = Date.UTC(2026, 3, 16);
const MAY = Date.UTC(2026, 4, 1);
const iso = (ms: number) => new Date(ms).toISOString();
beforeEach(() => t.clock.set(APRIL));

interface World {
  tenant: Tenant;
  ctx: OperationContext;
  env: DemoEnvironment;
  api: Client;
  clockId: string;
  /** On the test clock, frozen at April 1. */
  customerId: string;
  /** Basic 30/mo, Twin 30/mo, Plus 60/mo: api_calls at 0.01 with 1,000 free. */
  off: Record<'basic' | 'twin' | 'plus', string>;
  endpointIds: string[];
}

async function ok(p: Promise<{ status: number; body: any }>) {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The demo workspace, a small catalog on its product, a customer on a test clock, and an endpoint per filter list given. */
async function world(...filters: string[][]): Promise<World> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  const env = d.environments.test;
  const api = t.seed.client(env.secretKey);
  const plan = await ok(
    api.post('/api/v1/rate-plans', {
      name: 'Calls',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.01', includedFree: 1000 }],
    }),
  );
  const offering = async (name: string, entryPrice: string) =>
    (await ok(api.post('/api/v1/offerings', { productId: env.productId, name, currency: 'USD', billingPeriod: 'MONTHLY', entryPrice, ratePlanIds: [plan.id] })))
      .id as string;
  const off = { basic: await offering('Basic', '30'), twin: await offering('Twin', '30'), plus: await offering('Plus', '60') };
  const storefront = await ok(api.post('/api/v1/storefronts', { name: 'Plans', offeringIds: Object.values(off) }));
  await ok(api.post(`/api/v1/storefronts/${storefront.id}/publish`, {}));
  const clock = await ok(api.post('/api/v1/test_clocks', { frozenTime: iso(APRIL) }));
  const customer = await ok(api.post('/api/v1/customers', { name: 'Clocked', externalId: 'clocked', testClockId: clock.id }));
  const endpointIds: string[] = [];
  for (const eventTypes of filters)
    endpointIds.push((await ok(api.post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/tollgate', eventTypes }))).id);
  const tenant = { workspaceId: d.workspaceId, environment: 'test' as const };
  const ctx: OperationContext = { ...tenant, actor: { type: 'OPERATOR', id: 'test' }, correlationId: 'test', source: 'cli' };
  return { tenant, ctx, env, api, clockId: clock.id, customerId: customer.id, off, endpointIds };
}

interface Sent extends WebhookMessage {
  parsed: {
    type: string;
    timestamp: string;
    data: { object: Record<string, any>; previousAttributes?: Record<string, unknown>; details?: Record<string, any> };
  };
}

/** Marks where a tenant's outbox stands; `messages()` then gives what was written since, in seq order, parsed. */
async function track(w: World) {
  const seq = (await listTenantMessages(t.deps.db, w.tenant)).at(-1)?.seq ?? 0;
  return {
    async messages(): Promise<Sent[]> {
      const ms = (await listTenantMessages(t.deps.db, w.tenant)).filter((m) => m.seq > seq);
      const sent: Sent[] = ms.map((m) => ({ ...m, parsed: JSON.parse(m.body) }));
      for (const m of sent) checkDocumented(m);
      return sent;
    },
  };
}

/** A replay with the same Idempotency-Key is answered from the store and writes no message. */
async function replayWritesNone(replay: Promise<{ headers: Record<string, unknown> }>, s: { messages(): Promise<Sent[]> }, ms: Sent[]): Promise<void> {
  assert.equal((await replay).headers['idempotent-replayed'], 'true');
  assert.deepEqual(await s.messages(), ms, 'the replay wrote no message');
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const TOKEN = /(sk|wst|at|pk)_(test|live)_[0-9a-f]{32}/;

/**
 * What holds for every message: the Standard Webhooks body {type, timestamp, data} with the
 * resource of its type, no secret of any kind, the OpenAPI document's example with the real
 * fields, and the catalog's example a true abridgement of the real shape (each example field is
 * a real field, of the same JSON type or null).
 */
function checkBody(m: Sent, secrets: readonly string[] = []): void {
  assert.deepEqual(Object.keys(m.parsed), ['type', 'timestamp', 'data']);
  assert.equal(m.parsed.type, m.eventType);
  assert.equal(m.parsed.timestamp, iso(m.createdAt));
  assert.equal(m.parsed.data.object.object, eventCatalog[m.eventType].resource);
  assert.equal(m.source, 'event');
  assert.doesNotMatch(m.body, TOKEN, 'no key, token or session secret');
  assert.doesNotMatch(m.body, /whsec_|keyHash|key_hash|secretCiphertext|fullToken|plaintext/);
  for (const s of secrets) assert.ok(!m.body.includes(s), 'a secret the test knows is absent');
  // The OpenAPI document's full example has exactly the real resource's fields.
  assert.deepEqual(Object.keys(m.parsed.data.object).sort(), Object.keys(webhookExample(m.eventType).data.object as object).sort(), m.eventType);
  const example = exampleOf(m.eventType).data.object;
  for (const [k, v] of Object.entries(example)) {
    assert.ok(k in m.parsed.data.object, `${m.eventType}: the example's ${k} is a real field`);
    const real = m.parsed.data.object[k];
    if (real !== null && v !== null) assert.equal(kindOf(real), kindOf(v), `${m.eventType}: ${k} has the example's type`);
  }
}

/** Per type, the previousAttributes fields the real changes of this file altered. */
const changedFields = new Map<string, Set<string>>();
/**
 * Every message any test here writes: its details have exactly the documented fields, in the
 * documented order (event-details.ts: the OpenAPI schema and docs/webhooks.md's examples), and the
 * fields its previousAttributes names are collected for the check at the end.
 */
function checkDocumented(m: Sent): void {
  const documented = webhookExample(m.eventType).data.details;
  const real = m.parsed.data.details;
  assert.deepEqual(real && Object.keys(real), documented && Object.keys(documented), `${m.eventType}: the details are the documented ones`);
  const seen = changedFields.get(m.eventType) ?? new Set<string>();
  for (const k of Object.keys(m.parsed.data.previousAttributes ?? {})) seen.add(k);
  changedFields.set(m.eventType, seen);
}

/** The message's object is exactly what the API's GET returns now. */
async function sameAsGet(w: World, m: Sent, path: string): Promise<void> {
  assert.deepEqual(m.parsed.data.object, await ok(w.api.get(path)), `${m.eventType} ${path}`);
}

const types = (ms: readonly Sent[]) => ms.map((m) => m.eventType);
const subscribe = (w: World, offeringId: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  ok(w.api.post('/api/v1/subscriptions', { customerId: w.customerId, offeringId, ...extra }, headers));
const advance = (w: World, to: number) => ok(w.api.post(`/api/v1/test_clocks/${w.clockId}/advance`, { frozenTime: iso(to) }));
const change = (w: World, subId: string, body: unknown, key = `k-${Math.random()}`) =>
  w.api.post(`/api/v1/subscriptions/${subId}/upgrade`, body, { 'idempotency-key': key });
async function invoicesOf(w: World, subId: string): Promise<Array<{ id: string; status: string; billingReason: string }>> {
  return [...(await ok(w.api.get(`/api/v1/invoices?subscriptionId=${subId}&limit=100`))).data].reverse();
}

describe('previousAttributes: the presented fields a change altered, as they were', () => {
  const cases: Array<[rule: string, before: object, after: object, expected: Record<string, unknown>]> = [
    ['nothing changed', { a: 1, b: 'x' }, { a: 1, b: 'x' }, {}],
    ['a changed field keeps its old value', { status: 'ACTIVE', a: 1 }, { status: 'CANCELLED', a: 1 }, { status: 'ACTIVE' }],
    ['version and updatedAt are left out', { version: 1, updatedAt: 'a', b: 1 }, { version: 2, updatedAt: 'b', b: 2 }, { b: 1 }],
    ['a nested object compared by value, whatever its key order', { d: { x: 1, y: 2 } }, { d: { y: 2, x: 1 } }, {}],
    ['a nested change gives the whole old value', { d: { x: 1, y: 2 } }, { d: { x: 1, y: 3 } }, { d: { x: 1, y: 2 } }],
    ['null to a value', { scheduledChange: null }, { scheduledChange: { offeringId: 'off_b' } }, { scheduledChange: null }],
    ['a field the change added was null before', {}, { revokedAt: 'now' }, { revokedAt: null }],
    ['arrays compared by value', { l: [1, 2] }, { l: [1, 2] }, {}],
  ];
  for (const [rule, b, a, expected] of cases) it(rule, () => assert.deepEqual(previousAttributes(b, a), expected));
});

describe('200 subscription events', () => {
  it('POST /api/v1/subscriptions: subscription.created then its first invoice.created, the GETs’ objects, the request’s correlation id; a replay writes none', async () => {
    const w = await world(['*']);
    const s = await track(w);
    const headers = { 'idempotency-key': 'create-once', 'x-correlation-id': 'corr-create' };
    const sub = await subscribe(w, w.off.basic, {}, headers);
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['subscription.created', 'invoice.created']);
    for (const m of ms) {
      checkBody(m);
      assert.equal(m.orderingKey, sub.id);
      assert.equal(m.correlationId, 'corr-create');
      assert.deepEqual(
        (await listDeliveriesOfMessage(t.deps.db, w.tenant, m.id)).map((d) => [d.endpointId, d.status]),
        [[w.endpointIds[0], 'pending']],
      );
    }
    await sameAsGet(w, ms[0]!, `/api/v1/subscriptions/${sub.id}`);
    const [invoice] = await invoicesOf(w, sub.id);
    await sameAsGet(w, ms[1]!, `/api/v1/invoices/${invoice!.id}`);
    assert.equal(ms[1]!.parsed.data.object.status, 'draft');

    await replayWritesNone(w.api.post('/api/v1/subscriptions', { customerId: w.customerId, offeringId: w.off.basic }, headers), s, ms);
  });

  it('an IMMEDIATE upgrade: its invoice created and finalized, then subscription.upgraded with the old offering and the invoice id; a replay writes none', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const s = await track(w);
    const res = await ok(change(w, sub.id, { offeringId: w.off.plus }, 'upgrade-once'));
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['invoice.created', 'invoice.finalized', 'subscription.upgraded']);
    for (const m of ms) {
      checkBody(m);
      assert.equal(m.orderingKey, sub.id);
    }
    const [created, finalized, upgraded] = ms as [Sent, Sent, Sent];
    await sameAsGet(w, upgraded, `/api/v1/subscriptions/${sub.id}`);
    await sameAsGet(w, finalized, `/api/v1/invoices/${res.invoiceId}`);
    assert.equal(created.parsed.data.object.id, res.invoiceId);
    assert.equal(created.parsed.data.object.status, 'draft');
    assert.deepEqual(finalized.parsed.data.previousAttributes, previousAttributes(created.parsed.data.object, finalized.parsed.data.object));
    assert.equal(finalized.parsed.data.previousAttributes.status, 'draft');
    assert.equal(upgraded.parsed.data.previousAttributes!.offeringId, w.off.basic);
    assert.equal(upgraded.parsed.data.object.offeringId, w.off.plus);
    assert.deepEqual(
      [
        upgraded.parsed.data.details!.kind,
        upgraded.parsed.data.details!.applyAt,
        upgraded.parsed.data.details!.invoiceId,
        upgraded.parsed.data.details!.creditNoteId,
      ],
      ['UPGRADE', 'IMMEDIATE', res.invoiceId, null],
    );

    await replayWritesNone(change(w, sub.id, { offeringId: w.off.plus }, 'upgrade-once'), s, ms);
  });

  it('an IMMEDIATE downgrade: credit_note.created for the unused time and subscription.downgraded naming it; a lateral change is subscription.plan_changed', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.plus);
    await advance(w, MID);
    const s = await track(w);
    const res = await ok(change(w, sub.id, { offeringId: w.off.basic }));
    const ms = await s.messages();
    assert.ok(res.creditNoteId);
    const note = ms.find((m) => m.eventType === 'credit_note.created')!;
    const downgraded = ms.at(-1)!;
    assert.equal(downgraded.eventType, 'subscription.downgraded');
    for (const m of ms) {
      checkBody(m);
      assert.equal(m.orderingKey, sub.id);
    }
    await sameAsGet(w, note, `/api/v1/credit_notes/${res.creditNoteId}`);
    assert.equal(note.parsed.data.object.reason, 'proration');
    await sameAsGet(w, downgraded, `/api/v1/subscriptions/${sub.id}`);
    assert.deepEqual([downgraded.parsed.data.details!.creditNoteId, downgraded.parsed.data.details!.invoiceId], [res.creditNoteId, res.invoiceId]);
    assert.equal(downgraded.parsed.data.previousAttributes!.offeringId, w.off.plus);
    assert.equal(ms.filter((m) => m.eventType.startsWith('subscription.')).length, 1);

    t.clock.advance(1000);
    await advance(w, MID + DAY);
    const s2 = await track(w);
    await ok(change(w, sub.id, { offeringId: w.off.twin }));
    const lateral = (await s2.messages()).filter((m) => m.eventType.startsWith('subscription.'));
    assert.deepEqual(types(lateral), ['subscription.plan_changed']);
    await sameAsGet(w, lateral[0]!, `/api/v1/subscriptions/${sub.id}`);
    assert.equal(lateral[0]!.parsed.data.details!.kind, 'LATERAL');
  });

  it('a PERIOD_END change: change_scheduled, change_withdrawn, scheduled again; the renewal sends its invoice, subscription.upgraded (PERIOD_END) and subscription.renewed', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    const s = await track(w);
    await ok(change(w, sub.id, { offeringId: w.off.plus, applyAt: 'PERIOD_END' }));
    await ok(w.api.post(`/api/v1/subscriptions/${sub.id}/withdraw-change`));
    const [scheduled, withdrawn] = (await s.messages()) as [Sent, Sent];
    assert.deepEqual(types([scheduled, withdrawn]), ['subscription.change_scheduled', 'subscription.change_withdrawn']);
    await sameAsGet(w, withdrawn, `/api/v1/subscriptions/${sub.id}`);
    assert.deepEqual(scheduled.parsed.data.previousAttributes, { status: 'ACTIVE', scheduledChange: null });
    assert.deepEqual(scheduled.parsed.data.object.scheduledChange, { offeringId: w.off.plus, requestedAt: iso(APRIL), usageLimits: [] });
    assert.deepEqual([scheduled.parsed.data.details!.change, scheduled.parsed.data.details!.toOfferingId], ['UPGRADE', w.off.plus]);
    assert.deepEqual(withdrawn.parsed.data.previousAttributes, {
      status: 'ACTIVE_PENDING_CHANGE',
      scheduledChange: scheduled.parsed.data.object.scheduledChange,
    });
    assert.deepEqual(withdrawn.parsed.data.details, { withdrawn: { change: 'UPGRADE', toOfferingId: w.off.plus }, channel: 'API' });

    t.clock.advance(1000);
    await ok(change(w, sub.id, { offeringId: w.off.plus, applyAt: 'PERIOD_END' }));
    const s2 = await track(w);
    // Past the period end and its invoice's grace: the renewal issues the cycle invoice finalized at once.
    await advance(w, MAY + 2 * HOUR);
    const ms = (await s2.messages()).filter((m) => m.orderingKey === sub.id);
    const cycle = (await invoicesOf(w, sub.id)).find((i) => i.billingReason === 'subscription_cycle')!;
    const renewal = ms.filter((m) => m.eventType.startsWith('subscription.') || m.parsed.data.object.id === cycle.id);
    assert.deepEqual(types(renewal), ['invoice.created', 'invoice.finalized', 'subscription.upgraded', 'subscription.renewed']);
    for (const m of ms) checkBody(m);
    const [created, finalized, upgraded, renewed] = renewal as [Sent, Sent, Sent, Sent];
    assert.equal(created.parsed.data.object.status, 'draft');
    await sameAsGet(w, finalized, `/api/v1/invoices/${cycle.id}`);
    await sameAsGet(w, renewed, `/api/v1/subscriptions/${sub.id}`);
    assert.deepEqual(upgraded.parsed.data.object, renewed.parsed.data.object);
    assert.equal(upgraded.parsed.data.previousAttributes!.offeringId, w.off.basic);
    assert.deepEqual([upgraded.parsed.data.details!.kind, upgraded.parsed.data.details!.applyAt], ['UPGRADE', 'PERIOD_END']);
    assert.deepEqual([renewed.parsed.data.previousAttributes!.currentPeriodStart, renewed.parsed.data.details!.invoiceId], [iso(APRIL), cycle.id]);
    // Every message of the subscription is in the order its events happened.
    assert.deepEqual(
      ms.map((m) => m.seq),
      [...ms.map((m) => m.seq)].sort((a, b) => a - b),
    );
  });

  it('PATCH cancelAtPeriodEnd: change_scheduled, then change_withdrawn; a PATCH of limits or metadata sends nothing', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    const s = await track(w);
    await ok(w.api.patch(`/api/v1/subscriptions/${sub.id}`, { metadata: { team: 'a' } }));
    assert.deepEqual(await s.messages(), []);
    await ok(w.api.patch(`/api/v1/subscriptions/${sub.id}`, { cancelAtPeriodEnd: true }));
    const [scheduled] = (await s.messages()) as [Sent];
    await sameAsGet(w, scheduled, `/api/v1/subscriptions/${sub.id}`);
    assert.deepEqual(scheduled.parsed.data.previousAttributes, { status: 'ACTIVE', cancelAtPeriodEnd: false, cancellationDetails: null });
    assert.equal(scheduled.parsed.data.details!.change, 'CANCEL');
    assert.equal(scheduled.parsed.data.object.cancellationDetails.cancel_channel, 'API');
    await ok(w.api.patch(`/api/v1/subscriptions/${sub.id}`, { cancelAtPeriodEnd: false }));
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['subscription.change_scheduled', 'subscription.change_withdrawn']);
    await sameAsGet(w, ms[1]!, `/api/v1/subscriptions/${sub.id}`);
    for (const m of ms) checkBody(m);
  });

  it('an IMMEDIATE cancel: subscription.cancelled with its reason, then one api_key.revoked per bound key; a replay writes none', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    const keys = [
      await ok(w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'one', subscriptionId: sub.id })),
      await ok(w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'two', subscriptionId: sub.id })),
    ];
    await advance(w, MID);
    const s = await track(w);
    const headers = { 'idempotency-key': 'cancel-once' };
    await ok(w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'TOO_EXPENSIVE', comment: 'pricey' }, headers));
    const ms = await s.messages();
    const subEvents = ms.filter((m) => !m.eventType.startsWith('invoice.') && !m.eventType.startsWith('credit_note.'));
    assert.deepEqual(types(subEvents), ['subscription.cancelled', 'api_key.revoked', 'api_key.revoked']);
    for (const m of ms) {
      checkBody(
        m,
        keys.map((k) => k.fullToken),
      );
      assert.equal(m.orderingKey, sub.id);
    }
    const [cancelled, ...revoked] = subEvents as [Sent, ...Sent[]];
    await sameAsGet(w, cancelled, `/api/v1/subscriptions/${sub.id}`);
    assert.deepEqual(cancelled.parsed.data.previousAttributes, { status: 'ACTIVE', cancelledAt: null, cancellationDetails: null });
    assert.deepEqual(cancelled.parsed.data.object.cancellationDetails, {
      reason: 'TOO_EXPENSIVE',
      cancel_channel: 'API',
      comment: 'pricey',
      requestedAt: iso(MID),
    });
    const details = cancelled.parsed.data.details!;
    assert.deepEqual(
      [details.applyAt, details.reason, details.comment, details.channel, [...details.revokedKeyIds].sort()],
      ['IMMEDIATE', 'TOO_EXPENSIVE', 'pricey', 'API', keys.map((k) => k.id).sort()],
    );
    assert.equal(details.creditNoteId, ms.find((m) => m.eventType === 'credit_note.created')!.parsed.data.object.id);
    assert.deepEqual(revoked.map((m) => m.parsed.data.object.id).sort(), keys.map((k) => k.id).sort());
    for (const m of revoked) {
      await sameAsGet(w, m, `/api/v1/api-keys/${m.parsed.data.object.id}`);
      assert.deepEqual(m.parsed.data.details, { reason: 'subscription_cancelled' });
    }

    await replayWritesNone(w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'TOO_EXPENSIVE', comment: 'pricey' }, headers), s, ms);
  });

  it('a cancel at the period end: change_scheduled now; the renewal sends subscription.cancelled and the bound key’s api_key.revoked', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    const key = await ok(w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'one', subscriptionId: sub.id }));
    const s = await track(w);
    await ok(w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { applyAt: 'PERIOD_END', reason: 'UNUSED', comment: 'idle' }));
    const [scheduled] = (await s.messages()) as [Sent];
    assert.equal(scheduled.eventType, 'subscription.change_scheduled');
    await sameAsGet(w, scheduled, `/api/v1/subscriptions/${sub.id}`);
    assert.deepEqual([scheduled.parsed.data.details!.change, scheduled.parsed.data.details!.reason], ['CANCEL', 'UNUSED']);

    const s2 = await track(w);
    await advance(w, MAY + 2 * HOUR);
    const ms = (await s2.messages()).filter((m) => m.eventType.startsWith('subscription.') || m.eventType.startsWith('api_key.'));
    assert.deepEqual(types(ms), ['subscription.cancelled', 'api_key.revoked']);
    for (const m of ms) {
      checkBody(m, [key.fullToken]);
      assert.equal(m.orderingKey, sub.id);
    }
    await sameAsGet(w, ms[0]!, `/api/v1/subscriptions/${sub.id}`);
    // The reason, channel and comment given when it was scheduled, kept by the subscription until the renewal.
    const details = ms[0]!.parsed.data.details!;
    assert.deepEqual([details.applyAt, details.reason, details.channel, details.comment], ['PERIOD_END', 'UNUSED', 'API', 'idle']);
    assert.deepEqual(ms[0]!.parsed.data.object.cancellationDetails, { reason: 'UNUSED', cancel_channel: 'API', comment: 'idle', requestedAt: iso(APRIL) });
    assert.equal(ms[0]!.parsed.data.previousAttributes!.status, 'ACTIVE_PENDING_CHANGE');
    await sameAsGet(w, ms[1]!, `/api/v1/api-keys/${key.id}`);
  });

  it('a cancel in the widget: subscription.cancelled carries the subscription’s cancellationDetails, cancel_channel EMBED, as GET and the list show them', async () => {
    const w = await world(['subscription.cancelled']);
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const shop = 'https://shop.example.com';
    const session = await ok(w.api.post('/api/v1/widget_sessions', { subscriptionId: sub.id, allowedOrigins: [shop] }));
    const s = await track(w);
    await ok(t.seed.client(session.token).post('/v1/widget/cancel', { reason: 'TECHNICAL_ISSUES', comment: 'Timeouts' }, { origin: shop }));
    const [cancelled] = (await s.messages()).filter((m) => m.eventType === 'subscription.cancelled') as [Sent];
    checkBody(cancelled);
    const details = { reason: 'TECHNICAL_ISSUES', cancel_channel: 'EMBED', comment: 'Timeouts', requestedAt: iso(MID) };
    assert.deepEqual(cancelled.parsed.data.object.cancellationDetails, details);
    assert.deepEqual(cancelled.parsed.data.previousAttributes!.cancellationDetails, null);
    assert.deepEqual([cancelled.parsed.data.details!.channel, cancelled.parsed.data.details!.reason], ['EMBED', 'TECHNICAL_ISSUES']);
    await sameAsGet(w, cancelled, `/api/v1/subscriptions/${sub.id}`);
    const listed = (await ok(w.api.get(`/api/v1/subscriptions?customerId=${w.customerId}`))).data as Array<{ id: string; cancellationDetails: unknown }>;
    assert.deepEqual(listed.find((x) => x.id === sub.id)?.cancellationDetails, details);
  });
});

describe('200 invoice and credit note events', () => {
  it('finalize, pay, void, mark uncollectible: one message each, the GET’s invoice, the status it had before', async () => {
    const w = await world(['*']);
    const subs = [await subscribe(w, w.off.basic), await subscribe(w, w.off.basic), await subscribe(w, w.off.plus)];
    const invoices = [];
    for (const sub of subs) invoices.push((await invoicesOf(w, sub.id))[0]!);
    const s = await track(w);
    for (const i of invoices) await ok(w.api.post(`/api/v1/invoices/${i.id}/finalize`, {}));
    await ok(w.api.post(`/api/v1/invoices/${invoices[0]!.id}/pay`, {}));
    await ok(w.api.post(`/api/v1/invoices/${invoices[1]!.id}/void`, {}));
    await ok(w.api.post(`/api/v1/invoices/${invoices[2]!.id}/mark_uncollectible`, {}));
    const ms = await s.messages();
    assert.deepEqual(types(ms), [
      'invoice.finalized',
      'invoice.finalized',
      'invoice.finalized',
      'invoice.paid',
      'invoice.voided',
      'invoice.marked_uncollectible',
    ]);
    const before = ['draft', 'draft', 'draft', 'finalized', 'finalized', 'finalized'];
    const of = [0, 1, 2, 0, 1, 2];
    for (const [k, m] of ms.entries()) {
      checkBody(m);
      assert.equal(m.orderingKey, subs[of[k]!]!.id);
      assert.equal(m.parsed.data.object.id, invoices[of[k]!]!.id);
      assert.equal(m.parsed.data.previousAttributes!.status, before[k]);
    }
    for (const m of ms.slice(3)) await sameAsGet(w, m, `/api/v1/invoices/${m.parsed.data.object.id}`);
    assert.deepEqual(ms[3]!.parsed.data.previousAttributes, {
      status: 'finalized',
      amountPaid: '0.00',
      amountRemaining: '30.00',
      paidAt: null,
      paymentStatus: 'unpaid',
    });
  });

  it('collection through Stripe: invoice.payment_failed and subscription.past_due on a decline, invoice.payment_action_required for 3-D Secure, subscription.recovered when a new card pays', async () => {
    const fake = await StripeFake.start({ clock: () => t.clock.now() });
    try {
      t.deps.config.stripeApiBase = fake.apiBase;
      const w = await world(['*']);
      const put = await w.api.request('PUT', '/api/v1/payment_providers/stripe', {
        secretKey: FAKE_STRIPE_SECRET_KEY,
        webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET,
      });
      assert.ok([200, 201].includes(put.status), JSON.stringify(put.body));
      const c = put.body as { id: string };
      const carded = async (card: TestCard) => {
        const customer = await ok(w.api.post('/api/v1/customers', { name: card, externalId: card, testClockId: w.clockId }));
        const session = await ok(
          w.api.post(`/api/v1/customers/${customer.id}/payment_method_sessions`, { successUrl: 'https://s.example/ok', cancelUrl: 'https://s.example/no' }),
        );
        fake.completeSetupSession(session.id, card);
        const sub = await ok(w.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: w.off.basic }));
        return { customerId: customer.id as string, sub };
      };
      const declined = await carded('pm_card_chargeDeclined');
      const authenticated = await carded('pm_card_authenticationRequired');
      // The cards reach Tollgate through Stripe's webhooks, posted here directly (the fake has no endpoint in this file).
      for (const e of fake.eventsOf('checkout.session.completed')) await postStripeEvent(w, c, e);
      const s = await track(w);
      await advance(w, APRIL + 2 * HOUR);
      const ms = await s.messages();
      const of = (type: string) => ms.filter((m) => m.eventType === type);
      assert.equal(of('invoice.payment_failed').length, 1);
      assert.equal(of('invoice.payment_action_required').length, 1);
      assert.equal(of('subscription.past_due').length, 2);
      for (const m of [...of('invoice.payment_failed'), ...of('invoice.payment_action_required')]) {
        checkBody(m);
        await sameAsGet(w, m, `/api/v1/invoices/${m.parsed.data.object.id}`);
      }
      for (const m of of('subscription.past_due')) {
        checkBody(m);
        await sameAsGet(w, m, `/api/v1/subscriptions/${m.parsed.data.object.id}`);
        assert.equal(m.parsed.data.previousAttributes!.status, 'ACTIVE');
      }
      assert.equal(of('invoice.payment_action_required')[0]!.parsed.data.object.lastPaymentError.code, 'authentication_required');

      const s2 = await track(w);
      const session = await ok(
        w.api.post(`/api/v1/customers/${declined.customerId}/payment_method_sessions`, {
          successUrl: 'https://s.example/ok',
          cancelUrl: 'https://s.example/no',
        }),
      );
      const seen = fake.eventsOf('checkout.session.completed').length;
      fake.completeSetupSession(session.id, 'pm_card_visa');
      for (const e of fake.eventsOf('checkout.session.completed').slice(seen)) await postStripeEvent(w, c, e);
      const after = await s2.messages();
      assert.deepEqual(types(after), ['invoice.paid', 'subscription.recovered']);
      for (const m of after) checkBody(m);
      await sameAsGet(w, after[1]!, `/api/v1/subscriptions/${declined.sub.id}`);
      assert.equal(after[1]!.parsed.data.previousAttributes!.status, 'PAST_DUE');
      assert.ok(authenticated.sub.id);
    } finally {
      t.deps.config.stripeApiBase = null;
      await fake.close();
    }
  });

  it('POST /api/v1/credit_notes: credit_note.created with the GET’s credit note, ordered by its subscription; a replay writes none', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    const [invoice] = await invoicesOf(w, sub.id);
    await ok(w.api.post(`/api/v1/invoices/${invoice!.id}/finalize`, {}));
    const s = await track(w);
    const body = { invoiceId: invoice!.id, reason: 'other', memo: 'goodwill', lines: [{ description: 'Goodwill', amount: '5.00' }] };
    const note = await ok(w.api.post('/api/v1/credit_notes', body, { 'idempotency-key': 'note-once' }));
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['credit_note.created']);
    checkBody(ms[0]!);
    assert.equal(ms[0]!.orderingKey, sub.id);
    await sameAsGet(w, ms[0]!, `/api/v1/credit_notes/${note.id}`);
    await replayWritesNone(w.api.post('/api/v1/credit_notes', body, { 'idempotency-key': 'note-once' }), s, ms);
  });

  it('a credit note refunding a manual payment out of band: credit_note.created, then payment.refunded with the GET’s payment and its amountRefunded before', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    const [invoice] = await invoicesOf(w, sub.id);
    await ok(w.api.post(`/api/v1/invoices/${invoice!.id}/finalize`, {}));
    await ok(w.api.post(`/api/v1/invoices/${invoice!.id}/payments`, { amount: '30.00' }));
    const s = await track(w);
    const note = await ok(
      w.api.post('/api/v1/credit_notes', {
        invoiceId: invoice!.id,
        reason: 'other',
        lines: [{ description: 'Goodwill', amount: '7.50' }],
        refund: { method: 'out_of_band' },
      }),
    );
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['credit_note.created', 'payment.refunded']);
    const refunded = ms[1]!;
    checkBody(refunded);
    assert.equal(refunded.orderingKey, sub.id);
    assert.equal(refunded.parsed.data.object.id, note.refunds[0].paymentId);
    assert.deepEqual([refunded.parsed.data.object.amountRefunded, refunded.parsed.data.previousAttributes], ['7.50', { amountRefunded: '0.00' }]);
    await sameAsGet(w, refunded, `/api/v1/payments/${note.refunds[0].paymentId}`);
  });
});

describe('200 credits.granted, credits.voided, credits.topped_up, credits.expired, credits.balance_low and credits.exhausted', () => {
  it('a grant: credits.granted with the GET’s grant, ordered by its customer, a replay writing none; its void: credits.voided with what it had left before', async () => {
    const w = await world(['*']);
    const customer = await ok(w.api.post('/api/v1/customers', { name: 'Prepaid' }));
    const s = await track(w);
    const body = { customerId: customer.id, amount: '50.00', currency: 'USD', priority: 10 };
    const grant = await ok(w.api.post('/api/v1/credit_grants', body, { 'idempotency-key': 'grant-once' }));
    const granted = await s.messages();
    assert.deepEqual(types(granted), ['credits.granted']);
    checkBody(granted[0]!);
    assert.equal(granted[0]!.orderingKey, customer.id);
    await sameAsGet(w, granted[0]!, `/api/v1/credit_grants/${grant.id}`);
    await replayWritesNone(w.api.post('/api/v1/credit_grants', body, { 'idempotency-key': 'grant-once' }), s, granted);

    const s2 = await track(w);
    await ok(w.api.post(`/api/v1/credit_grants/${grant.id}/void`, {}));
    const voided = await s2.messages();
    assert.deepEqual(types(voided), ['credits.voided']);
    checkBody(voided[0]!);
    assert.deepEqual(voided[0]!.parsed.data.previousAttributes, { status: 'active', remaining: '50.00', voidedAt: null });
    await sameAsGet(w, voided[0]!, `/api/v1/credit_grants/${grant.id}`);
  });

  it('a purchase: credits.granted (pending) with its invoice; paid, credits.topped_up with the GET’s grant, previousAttributes.status pending', async () => {
    const w = await world(['*']);
    const customer = await ok(w.api.post('/api/v1/customers', { name: 'Buyer' }));
    const s = await track(w);
    const grant = await ok(
      w.api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '50.00', cost: '45.00', currency: 'USD', source: 'purchased' }),
    );
    assert.deepEqual(types(await s.messages()), ['invoice.created', 'invoice.finalized', 'credits.granted']);
    const s2 = await track(w);
    await ok(w.api.post(`/api/v1/invoices/${grant.invoiceId}/pay`, {}));
    const paid = await s2.messages();
    assert.deepEqual(types(paid), ['invoice.paid', 'credits.topped_up']);
    const toppedUp = paid[1]!;
    checkBody(toppedUp);
    assert.equal(toppedUp.orderingKey, customer.id);
    assert.deepEqual(toppedUp.parsed.data.previousAttributes, { status: 'pending' });
    await sameAsGet(w, toppedUp, `/api/v1/credit_grants/${grant.id}`);
  });

  it('the check’s live balance: credits.balance_low below the customer’s threshold, credits.exhausted at zero, each once per crossing', async () => {
    const w = await world(['*']);
    const prepaid = await ok(
      w.api.post('/api/v1/offerings', {
        productId: w.env.productId,
        name: 'Prepaid',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        billingMode: 'PREPAID',
        overage: 'BLOCK',
        ratePlanIds: (await ok(w.api.get(`/api/v1/offerings/${w.off.basic}`))).ratePlanIds,
      }),
    );
    const customer = await ok(w.api.post('/api/v1/customers', { name: 'Prepaid', testClockId: w.clockId }));
    const sub = await ok(w.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: prepaid.id }));
    await ok(w.api.put(`/api/v1/customers/${customer.id}/credit_settings/USD`, { lowBalanceThreshold: '5.00' }));
    await ok(w.api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '6.00', currency: 'USD' }));
    const check = () => ok(w.api.get(`/v1/entitlements/check?accessorId=${customer.id}&productId=${w.env.productId}`));
    const use = (quantity: number) =>
      ok(w.api.post('/v1/ingest/batch', { events: [{ customerId: customer.id, metricName: 'api_calls', quantity, occurredAt: iso(APRIL) }] }));
    const s = await track(w);
    // 1,000 free, then 0.01 each: 1,200 calls are 2.00, leaving 4.00.
    await use(1200);
    await check();
    await check();
    const low = await s.messages();
    assert.deepEqual(types(low), ['credits.balance_low']);
    checkBody(low[0]!);
    assert.equal(low[0]!.orderingKey, customer.id);
    assert.deepEqual(low[0]!.parsed.data.object, {
      object: 'credit_balance_alert',
      customerId: customer.id,
      currency: 'USD',
      balance: '4.00',
      threshold: '5.00',
      subscriptionId: sub.id,
    });
    const s2 = await track(w);
    await use(450);
    await check();
    const exhausted = await s2.messages();
    assert.deepEqual(types(exhausted), ['credits.exhausted']);
    assert.deepEqual([exhausted[0]!.parsed.data.object.balance, exhausted[0]!.parsed.data.object.threshold], ['-0.50', null]);
  });

  it('an expiry: credits.expired from the billing job once nothing can draw from the grant, with what it had left before', async () => {
    const w = await world(['*']);
    const customer = await ok(w.api.post('/api/v1/customers', { name: 'Expiring' }));
    const expiresAt = new Date(t.clock.now() + 60_000).toISOString();
    const grant = await ok(w.api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '12.50', currency: 'USD', expiresAt }));
    const s = await track(w);
    t.clock.advance(120_000);
    await runBilling(t.deps, boundCredentials, { testClock: null });
    const expired = await s.messages();
    assert.deepEqual(types(expired), ['credits.expired']);
    checkBody(expired[0]!);
    assert.equal(expired[0]!.orderingKey, customer.id);
    assert.deepEqual(expired[0]!.parsed.data.previousAttributes, { status: 'active', remaining: '12.50' });
    await sameAsGet(w, expired[0]!, `/api/v1/credit_grants/${grant.id}`);
  });
});

describe('200 usage.limit_alert', () => {
  async function alerting(app: TestApp, w: World) {
    const customer = await ok(w.api.post('/api/v1/customers', { name: 'Real time' }));
    const sub = await ok(
      w.api.post('/api/v1/subscriptions', {
        customerId: customer.id,
        offeringId: w.off.basic,
        usageLimits: [{ metricName: 'api_calls', limit: 100, enforcement: 'ALERT' }],
      }),
    );
    const ingest = (quantity: number) =>
      ok(w.api.post('/v1/ingest/batch', { events: [{ customerId: customer.id, metricName: 'api_calls', quantity, occurredAt: iso(app.clock.now()) }] }));
    return { customer, sub, ingest };
  }

  it('once per limit and period: the batch that crosses it writes one, later batches none', async () => {
    const w = await world(['usage.*']);
    const { customer, sub, ingest } = await alerting(t, w);
    const s = await track(w);
    await ingest(60);
    assert.deepEqual(await s.messages(), []);
    await ingest(90);
    await ingest(500);
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['usage.limit_alert']);
    checkBody(ms[0]!);
    assert.equal(ms[0]!.orderingKey, sub.id);
    assert.deepEqual(ms[0]!.parsed.data, {
      object: {
        object: 'usage_limit_alert',
        subscriptionId: sub.id,
        customerId: customer.id,
        metricName: 'api_calls',
        limit: 100,
        usage: '150',
        periodStart: sub.currentPeriodStart,
        periodEnd: sub.currentPeriodEnd,
        enforcement: 'ALERT',
      },
    });
  });

  it('on a file database as well (SQLite: through the usage writer thread): one message, in the batch’s transaction', async () => {
    const app = await createTestApp({ ...appOptions, sqliteFile: true });
    const saved = t;
    t = app;
    try {
      app.clock.set(APRIL);
      const w = await world(['*']);
      const { sub, ingest } = await alerting(app, w);
      const s = await track(w);
      await ingest(150);
      await ingest(10);
      const ms = await s.messages();
      assert.deepEqual(types(ms), ['usage.limit_alert']);
      assert.equal(ms[0]!.orderingKey, sub.id);
      assert.equal(ms[0]!.parsed.data.object.usage, '150');
      assert.equal((await listDeliveriesOfMessage(app.deps.db, w.tenant, ms[0]!.id)).length, 1);
    } finally {
      t = saved;
      await app.close();
    }
  });
});

describe('200 api_key events', () => {
  it('rotate, roll, revoke: the old key as its GET shows it, what it was before, the new key’s id; never a secret; a replay writes none', async () => {
    const w = await world(['api_key.*']);
    const sub = await subscribe(w, w.off.basic);
    const product = await ok(w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'customer', subscriptionId: sub.id }));
    const workspace = await ok(w.api.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'ops', scopes: ['ingest'] }));
    const other = await ok(w.api.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'spare', scopes: ['ingest'] }));
    const s = await track(w);
    const rotated = await ok(w.api.post(`/api/v1/api-keys/${product.id}/rotate`, undefined, { 'idempotency-key': 'rotate-once' }));
    const rolled = await ok(w.api.post(`/api/v1/api-keys/${workspace.id}/roll`));
    await ok(w.api.delete(`/api/v1/api-keys/${other.id}`));
    await ok(w.api.delete(`/api/v1/api-keys/${other.id}`)); // already revoked: nothing changes, nothing is sent
    const again = await w.api.post(`/api/v1/api-keys/${product.id}/rotate`, undefined, { 'idempotency-key': 'rotate-once' });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const ms = await s.messages();
    assert.deepEqual(types(ms), ['api_key.rotated', 'api_key.rolled', 'api_key.revoked']);
    const secrets = [product.fullToken, workspace.fullToken, other.fullToken, rotated.fullToken, rolled.fullToken];
    for (const m of ms) {
      checkBody(m, secrets);
      await sameAsGet(w, m, `/api/v1/api-keys/${m.parsed.data.object.id}`);
    }
    const [r, l, v] = ms as [Sent, Sent, Sent];
    assert.deepEqual([r.parsed.data.object.id, r.orderingKey, r.parsed.data.object.status], [product.id, sub.id, 'ROTATED']);
    // Its subscription lives on a test clock: the grace runs in the clock's time, and expiresAt stays null until the clock passes it.
    assert.deepEqual(r.parsed.data.previousAttributes, { status: 'ACTIVE', replacedById: null });
    assert.deepEqual(r.parsed.data.details, {
      newKeyId: rotated.id,
      graceEndsAt: null,
      testClockId: w.clockId,
      graceEndsAtClock: rotated.previousKeyExpiresAt,
    });
    assert.deepEqual([l.parsed.data.object.id, l.orderingKey, l.parsed.data.object.status], [workspace.id, null, 'REVOKED']);
    assert.deepEqual(l.parsed.data.details, { newKeyId: rolled.id, graceEndsAt: null, testClockId: null, graceEndsAtClock: null });
    assert.deepEqual([v.parsed.data.object.id, v.orderingKey], [other.id, null]);
    assert.deepEqual(v.parsed.data.previousAttributes, { status: 'ACTIVE', revokedAt: null });
    assert.deepEqual(v.parsed.data.details, { reason: 'requested' });
  });

  it('api_key.grace_used: once per rotated key, however many requests (API calls, /v1/keys/verify) use it in its grace; never for a key in use normally', async () => {
    const w = await world(['*']);
    // A customer in real time: the 300 s grace runs on the service's clock.
    const customer = await ok(w.api.post('/api/v1/customers', { name: 'Real time' }));
    const sub = await ok(w.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: w.off.basic }));
    const product = await ok(w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'customer', subscriptionId: sub.id }));
    const workspace = await ok(w.api.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'ops', scopes: ['admin'] }));
    const s = await track(w);
    const useAll = async (productKey: { id: string; fullToken: string }, workspaceToken: string) => {
      for (let i = 0; i < 3; i++) {
        await ok(t.seed.client(workspaceToken).get('/api/v1/subscriptions'));
        await ok(t.seed.client(productKey.fullToken).get(`/api/v1/api-keys/${productKey.id}`));
        assert.equal((await ok(w.api.post('/v1/keys/verify', { key: productKey.fullToken }))).valid, true);
      }
    };
    await useAll(product, workspace.fullToken);
    assert.deepEqual(await s.messages(), [], 'keys in normal use send nothing');

    const newProduct = await ok(w.api.post(`/api/v1/api-keys/${product.id}/rotate`));
    const newWorkspace = await ok(w.api.post(`/api/v1/api-keys/${workspace.id}/rotate`));
    // In real time the grace ends on the service's clock: graceEndsAt is set, no test clock.
    const rotations = await s.messages();
    assert.deepEqual(types(rotations), ['api_key.rotated', 'api_key.rotated']);
    for (const [m, next] of [
      [rotations[0]!, newProduct],
      [rotations[1]!, newWorkspace],
    ] as const) {
      assert.deepEqual(m.parsed.data.details, { newKeyId: next.id, graceEndsAt: iso(APRIL + 300_000), testClockId: null, graceEndsAtClock: null });
      assert.deepEqual(m.parsed.data.previousAttributes, { status: 'ACTIVE', expiresAt: null, replacedById: null });
    }
    const s2 = await track(w);
    await useAll(newProduct, newWorkspace.fullToken);
    assert.deepEqual(await s2.messages(), [], 'the new keys are keys in normal use');
    await useAll(product, workspace.fullToken);
    t.clock.advance(299_000);
    await useAll(product, workspace.fullToken);
    const ms = await s2.messages();
    assert.deepEqual(types(ms), ['api_key.grace_used', 'api_key.grace_used']);
    const byKey = new Map(ms.map((m) => [m.parsed.data.object.id, m]));
    assert.deepEqual([...byKey.keys()].sort(), [product.id, workspace.id].sort());
    for (const m of ms) {
      checkBody(m, [product.fullToken, workspace.fullToken, newProduct.fullToken, newWorkspace.fullToken]);
      await sameAsGet(w, m, `/api/v1/api-keys/${m.parsed.data.object.id}`);
      assert.equal(m.parsed.data.object.status, 'ROTATED');
      assert.deepEqual(m.parsed.data.details, { usedAt: iso(APRIL) });
    }
    assert.equal(byKey.get(product.id)!.orderingKey, sub.id);
    assert.equal(byKey.get(workspace.id)!.orderingKey, null);
    const audit = await t.deps.db
      .selectFrom('auditEvents')
      .select(['targetId', 'severity'])
      .where('eventType', '=', 'api_key.grace_used')
      .where('workspaceId', '=', w.tenant.workspaceId)
      .execute();
    assert.deepEqual(
      audit.map((a) => [a.targetId, a.severity]).sort(),
      [
        [product.id, 'WARN'],
        [workspace.id, 'WARN'],
      ].sort(),
    );

    // The database says once, whatever a node remembers: another node (or a restart) records nothing.
    assert.equal(await recordGraceUse(t.deps, w.ctx, product.id), false);
    // After the grace the old key is refused, and nothing more is sent.
    t.clock.advance(1000);
    assert.equal((await t.seed.client(workspace.fullToken).get('/api/v1/subscriptions')).status, 401);
    assert.equal((await ok(w.api.post('/v1/keys/verify', { key: product.fullToken }))).valid, false);
    assert.equal((await s2.messages()).length, 2);
  });
});

describe('200 filters: only what an endpoint subscribes to', () => {
  it('no endpoint at all: a subscription’s whole life writes no message and no delivery', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    await ok(change(w, sub.id, { offeringId: w.off.plus }));
    await ok(w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, {}));
    assert.deepEqual(await listTenantMessages(t.deps.db, w.tenant), []);
    const deliveries = await t.deps.db.selectFrom('webhookDeliveries').select('messageId').where('workspaceId', '=', w.tenant.workspaceId).execute();
    assert.deepEqual(deliveries, []);
  });

  it('an endpoint on invoice.* gets the invoice events only; one on * gets them all', async () => {
    const w = await world(['invoice.*']);
    const s = await track(w);
    const sub = await subscribe(w, w.off.basic);
    assert.deepEqual(types(await s.messages()), ['invoice.created'], 'nobody subscribes to subscription.created: no message');

    const all = await ok(w.api.post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/all', eventTypes: ['*'] }));
    const s2 = await track(w);
    await advance(w, MID);
    await ok(change(w, sub.id, { offeringId: w.off.plus }));
    const ms = await s2.messages();
    assert.ok(ms.some((m) => m.eventType === 'subscription.upgraded'));
    for (const m of ms) {
      const to = (await listDeliveriesOfMessage(t.deps.db, w.tenant, m.id)).map((d) => d.endpointId).sort();
      assert.deepEqual(to, m.eventType.startsWith('invoice.') ? [w.endpointIds[0], all.id].sort() : [all.id], m.eventType);
    }
  });
});

describe('409 and rolled back: a change that does not commit writes no message', () => {
  it('a second plan change at the same instant is refused (409) after its credit note was issued: the credit note and its message roll back together', async () => {
    const w = await world(['*']);
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    await ok(change(w, sub.id, { offeringId: w.off.plus }));
    const s = await track(w);
    const notesBefore = (await ok(w.api.get('/api/v1/credit_notes?limit=100'))).data.length;
    const res = await change(w, sub.id, { offeringId: w.off.basic });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    // Refused by the change's invoice, which comes after the credit note in the transaction.
    assert.match(res.body.errors[0].message, /changed at this instant already/);
    assert.equal((await ok(w.api.get('/api/v1/credit_notes?limit=100'))).data.length, notesBefore);
    assert.deepEqual(await s.messages(), []);
  });

  it('a forced failure after the emit rolls the messages back with the change (subscription, invoice transition)', async () => {
    const w = await world(['*']);
    const s = await track(w);
    const sub = await subscribe(w, w.off.basic);
    const [invoice] = await invoicesOf(w, sub.id);
    await ok(w.api.post(`/api/v1/invoices/${invoice!.id}/finalize`, {}));
    const committed = await s.messages();
    assert.equal(committed.length, 3);
    const forced = new Error('forced after the emit');
    await assert.rejects(
      transaction(t.deps.db, async (trx) => {
        const txDeps = { ...t.deps, db: trx };
        await createSubscription(txDeps, w.ctx, { customerId: w.customerId, offeringId: w.off.plus }, subscriptionBilling);
        await transitionInvoice(txDeps, w.ctx, invoice!.id, 'pay');
        // Written in the transaction…
        assert.deepEqual(
          (await listTenantMessages(trx, w.tenant)).slice(committed.length).map((m) => m.eventType),
          ['subscription.created', 'invoice.created', 'invoice.paid'],
        );
        throw forced;
      }),
      forced,
    );
    // …and gone with it.
    assert.deepEqual(await s.messages(), committed);
    assert.equal((await ok(w.api.get(`/api/v1/invoices/${invoice!.id}`))).status, 'finalized');
  });
});

describe('the documented examples, against the messages this file’s changes wrote', () => {
  it('every type but webhook.test was written; each example’s previousAttributes names only fields a real change altered', () => {
    assert.deepEqual([...changedFields.keys()].sort(), subscribableTypes.slice().sort(), 'every subscribable type is exercised here');
    for (const [type, seen] of changedFields) {
      const documented = Object.keys(webhookExample(type as CatalogType).data.previousAttributes ?? {});
      for (const k of documented) assert.ok(seen.has(k), `${type}: the example's previousAttributes.${k} is a field a real ${type} changes`);
      if (seen.size > 0) assert.ok(documented.length > 0, `${type}: the real messages carry previousAttributes, so the example shows them`);
    }
  });
});
