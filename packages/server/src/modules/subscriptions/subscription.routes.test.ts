import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

const iso = (ms: number) => new Date(ms).toISOString();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);

/** A fresh customer and product in the test environment of the shared workspace. */
async function customerAndProduct() {
  const customer = await t.seed.customer(ws.test);
  const product = await t.seed.product(ws.test);
  return { customerId: customer.id, productId: product.id };
}

async function subscribe(extra: Record<string, unknown> = {}) {
  const res = await api.post('/api/v1/subscriptions', { ...(await customerAndProduct()), ...extra });
  assert.equal(res.status, 200);
  return res.body;
}

describe('POST /api/v1/subscriptions', () => {
  it('200 starts an ACTIVE subscription at version 1 with a sub_ id and a monthly period from now', async () => {
    const { customerId, productId } = await customerAndProduct();
    const res = await api.post('/api/v1/subscriptions', { customerId, productId, metadata: { seats: '3' } });
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^sub_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'subscription');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.customerId, customerId);
    assert.equal(res.body.productId, productId);
    assert.equal(res.body.status, 'ACTIVE');
    assert.equal(res.body.version, 1);
    assert.equal(res.body.billingPeriod, 'MONTHLY');
    // The frozen clock stands at 2026-01-15T12:00:00Z.
    assert.equal(res.body.currentPeriodStart, iso(t.clock.now()));
    assert.equal(res.body.currentPeriodStart, '2026-01-15T12:00:00.000Z');
    assert.equal(res.body.currentPeriodEnd, '2026-02-15T12:00:00.000Z', 'anniversary billing: a month to the millisecond');
    assert.equal(res.body.periodAlignment, 'anniversary');
    assert.equal(res.body.billingCycleAnchor, res.body.currentPeriodStart);
    assert.equal(res.body.cancelAtPeriodEnd, false);
    assert.equal(res.body.scheduledChange, null);
    assert.equal(res.body.testClockId, null);
    assert.equal(res.body.priceVersionId, null, 'no offering, no price version');
    assert.equal(res.body.startedAt, res.body.currentPeriodStart);
    assert.equal(res.body.cancelledAt, null);
    assert.deepEqual(res.body.metadata, { seats: '3' });
    assert.deepEqual((await api.get(`/api/v1/subscriptions/${res.body.id}`)).body, res.body);
  });

  it('200 with billingPeriod QUARTERLY ends the first period three months later, or at the next calendar quarter when calendar-aligned', async () => {
    const sub = await subscribe({ billingPeriod: 'QUARTERLY' });
    assert.equal(sub.billingPeriod, 'QUARTERLY');
    assert.equal(sub.currentPeriodStart, iso(t.clock.now()));
    assert.equal(sub.currentPeriodEnd, '2026-04-15T12:00:00.000Z');
    const calendar = await subscribe({ billingPeriod: 'QUARTERLY', periodAlignment: 'calendar' });
    assert.equal(calendar.periodAlignment, 'calendar');
    assert.equal(calendar.currentPeriodStart, iso(t.clock.now()));
    assert.equal(calendar.currentPeriodEnd, '2026-04-01T00:00:00.000Z');
  });

  it('200 with billingPeriod ANNUAL ends the first period a year later, or on January 1st when calendar-aligned', async () => {
    assert.equal((await subscribe({ billingPeriod: 'ANNUAL' })).currentPeriodEnd, '2027-01-15T12:00:00.000Z');
    assert.equal((await subscribe({ billingPeriod: 'ANNUAL', periodAlignment: 'calendar' })).currentPeriodEnd, '2027-01-01T00:00:00.000Z');
  });

  it('400 names body.periodAlignment for an unknown alignment', async () => {
    const res = await api.post('/api/v1/subscriptions', { ...(await customerAndProduct()), periodAlignment: 'fortnightly' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.periodAlignment');
  });

  it('200 replays the first response for the same Idempotency-Key and body, creating nothing twice', async () => {
    const body = await customerAndProduct();
    const headers = { 'idempotency-key': 'subscribe-once' };
    const first = await api.post('/api/v1/subscriptions', body, headers);
    const second = await api.post('/api/v1/subscriptions', body, headers);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    const list = await api.get(`/api/v1/subscriptions?customerId=${body.customerId}`);
    assert.deepEqual(ids(list), [first.body.id]);
  });

  it('422 when the Idempotency-Key is reused for a different subscription', async () => {
    await api.post('/api/v1/subscriptions', await customerAndProduct(), { 'idempotency-key': 'subscribe-k' });
    const res = await api.post('/api/v1/subscriptions', await customerAndProduct(), { 'idempotency-key': 'subscribe-k' });
    assert.equal(res.status, 422);
    assert.equal(res.body.errors[0].code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('200 on Jan 31 ends the first monthly period on the last day of February (or, calendar-aligned, on February 1st)', async () => {
    t.clock.set(Date.UTC(2026, 0, 31, 9, 30, 15, 250));
    const sub = await subscribe();
    assert.equal(sub.currentPeriodStart, '2026-01-31T09:30:15.250Z');
    assert.equal(sub.currentPeriodEnd, '2026-02-28T09:30:15.250Z');
    const calendar = await subscribe({ periodAlignment: 'calendar' });
    assert.equal(calendar.currentPeriodEnd, '2026-02-01T00:00:00.000Z');
  });

  it('404 names body.customerId for an unknown customer', async () => {
    const { productId } = await customerAndProduct();
    const res = await api.post('/api/v1/subscriptions', { customerId: 'cus_nope', productId });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal(res.body.errors[0].field, 'body.customerId');
  });

  it("200 takes the customer's externalId too, as ingestion names customers; the subscription and its audit event carry the cus_ id", async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const acme = await t.seed.customer(other.test, { externalId: 'acme' });
    const product = await t.seed.product(other.test);
    const byExternalId = await c.post('/api/v1/subscriptions', { customerId: 'acme', productId: product.id });
    assert.equal(byExternalId.status, 200, JSON.stringify(byExternalId.body));
    assert.equal(byExternalId.body.customerId, acme.id);
    const byId = await c.post('/api/v1/subscriptions', { customerId: acme.id, productId: product.id });
    assert.equal(byId.body.customerId, acme.id);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${acme.id}`)), [byId.body.id, byExternalId.body.id]);
    const [event] = await t.deps.db
      .selectFrom('auditEvents')
      .select('payload')
      .where('workspaceId', '=', other.workspaceId)
      .where('targetId', '=', byExternalId.body.id)
      .where('eventType', '=', 'subscription.created')
      .execute();
    assert.equal(JSON.parse(event!.payload).customerId, acme.id);
  });

  it('404 names body.customerId for an externalId that names nobody here, or only a customer of the other environment, subscribing nothing', async () => {
    const other = await t.seed.workspace();
    await t.seed.customer(other.live, { externalId: 'live-only' });
    const product = await t.seed.product(other.test);
    const c = t.seed.client(other.test.secretKey);
    for (const ref of ['nobody', 'live-only', 'cus_nope']) {
      const res = await c.post('/api/v1/subscriptions', { customerId: ref, productId: product.id });
      assert.equal(res.status, 404, ref);
      assert.deepEqual(res.body.errors, [
        { code: 'NOT_FOUND', field: 'body.customerId', message: `No customer with id or externalId '${ref}' exists in this workspace and environment.` },
      ]);
    }
    assert.deepEqual(ids(await c.get('/api/v1/subscriptions')), []);
  });

  it('404 names body.productId for an unknown product', async () => {
    const { customerId } = await customerAndProduct();
    const res = await api.post('/api/v1/subscriptions', { customerId, productId: 'prod_nope' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal(res.body.errors[0].field, 'body.productId');
    const list = await api.get(`/api/v1/subscriptions?customerId=${customerId}`);
    assert.deepEqual(list.body.data, []);
  });

  it('404 for a customer of the live environment, subscribing nothing', async () => {
    const liveCustomer = await t.seed.customer(ws.live);
    const { productId } = await customerAndProduct();
    const res = await api.post('/api/v1/subscriptions', { customerId: liveCustomer.id, productId });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].field, 'body.customerId');
    const live = await t.seed.client(ws.live.secretKey).get(`/api/v1/subscriptions?customerId=${liveCustomer.id}`);
    assert.deepEqual(live.body.data, []);
  });

  it('404 for a product of the live environment', async () => {
    const { customerId } = await customerAndProduct();
    const liveProduct = await t.seed.product(ws.live);
    const res = await api.post('/api/v1/subscriptions', { customerId, productId: liveProduct.id });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].field, 'body.productId');
  });

  it("404 for another workspace's customer", async () => {
    const other = await t.seed.workspace();
    const foreign = await t.seed.customer(other.test);
    const { productId } = await customerAndProduct();
    const res = await api.post('/api/v1/subscriptions', { customerId: foreign.id, productId });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].field, 'body.customerId');
  });

  it('400 for an unknown billingPeriod, listing the allowed ones', async () => {
    const res = await api.post('/api/v1/subscriptions', { ...(await customerAndProduct()), billingPeriod: 'WEEKLY' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.billingPeriod');
    assert.match(res.body.errors[0].message, /MONTHLY, QUARTERLY, ANNUAL/);
  });

  it('200 keeps the ISO 4217 currency sent, whatever its minor unit (JPY 0, KWD 3)', async () => {
    for (const currency of ['JPY', 'KWD']) assert.equal((await subscribe({ currency })).currency, currency);
  });

  it('400 names body.currency for three capitals pricing cannot rate (XAU, XXX, ABC), subscribing nothing', async () => {
    for (const currency of ['XAU', 'XXX', 'ABC']) {
      const { customerId, productId } = await customerAndProduct();
      const res = await api.post('/api/v1/subscriptions', { customerId, productId, currency });
      assert.equal(res.status, 400, currency);
      assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].field, 'body.currency');
      assert.match(res.body.errors[0].message, new RegExp(`'${currency}'.*ISO 4217`));
      assert.deepEqual((await api.get(`/api/v1/subscriptions?customerId=${customerId}`)).body.data, []);
    }
  });

  it('400 names a missing customerId', async () => {
    const res = await api.post('/api/v1/subscriptions', {});
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['body.customerId'],
    );
  });

  it('400 names body.productId when neither offeringId nor productId is sent', async () => {
    const customer = await t.seed.customer(ws.test);
    const res = await api.post('/api/v1/subscriptions', { customerId: customer.id });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.productId');
    assert.match(res.body.errors[0].message, /offeringId/);
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).post('/api/v1/subscriptions', { customerId: 'cus_x', productId: 'prod_x' });
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/subscriptions', await customerAndProduct());
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/subscriptions', () => {
  it('200 filters by customerId, productId and status', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const alice = await t.seed.customer(other.test);
    const bob = await t.seed.customer(other.test);
    const api1 = await t.seed.product(other.test);
    const api2 = await t.seed.product(other.test);
    const a1 = (await c.post('/api/v1/subscriptions', { customerId: alice.id, productId: api1.id })).body.id;
    t.clock.advance(1);
    const a2 = (await c.post('/api/v1/subscriptions', { customerId: alice.id, productId: api2.id })).body.id;
    t.clock.advance(1);
    const b1 = (await c.post('/api/v1/subscriptions', { customerId: bob.id, productId: api1.id })).body.id;
    t.clock.advance(1);
    assert.equal((await c.post(`/api/v1/subscriptions/${a1}/cancel`)).status, 200);

    assert.deepEqual(ids(await c.get('/api/v1/subscriptions')), [b1, a2, a1]);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${alice.id}`)), [a2, a1]);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${bob.id}`)), [b1]);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?productId=${api1.id}`)), [b1, a1]);
    assert.deepEqual(ids(await c.get('/api/v1/subscriptions?status=ACTIVE')), [b1, a2]);
    assert.deepEqual(ids(await c.get('/api/v1/subscriptions?status=CANCELLED')), [a1]);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${alice.id}&status=ACTIVE`)), [a2]);
    assert.deepEqual(ids(await c.get('/api/v1/subscriptions?customerId=cus_nobody')), []);
  });

  it("200 customerId takes the customer's externalId too, as ingestion names customers; one naming nobody here matches nothing", async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const acme = await t.seed.customer(other.test, { externalId: 'acme' });
    // An externalId that looks like another customer's id: the id match wins, as in ingestion.
    const bob = await t.seed.customer(other.test);
    const tricky = await t.seed.customer(other.test, { externalId: bob.id });
    const product = await t.seed.product(other.test);
    const mine = (await c.post('/api/v1/subscriptions', { customerId: acme.id, productId: product.id })).body.id;
    const bobs = (await c.post('/api/v1/subscriptions', { customerId: bob.id, productId: product.id })).body.id;
    await c.post('/api/v1/subscriptions', { customerId: tricky.id, productId: product.id });
    const liveAcme = await t.seed.customer(other.live, { externalId: 'elsewhere' });
    assert.ok(liveAcme.id);

    assert.deepEqual(ids(await c.get('/api/v1/subscriptions?customerId=acme')), [mine]);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${acme.id}`)), [mine]);
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${bob.id}`)), [bobs]);
    assert.deepEqual(ids(await c.get('/api/v1/subscriptions?customerId=elsewhere')), [], 'the other environment’s customer');
    assert.deepEqual(ids(await c.get(`/api/v1/subscriptions?customerId=${'y'.repeat(255)}`)), [], 'an externalId as long as one may be');
  });

  it('200 pages newest first', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await t.seed.subscription(other.test)).subscription.id);
      t.clock.advance(1);
    }
    const p1 = await c.get('/api/v1/subscriptions?limit=2');
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(ids(p1), [made[2], made[1]]);
    assert.equal(p1.body.hasMore, true);
    const p2 = await c.get(`/api/v1/subscriptions?limit=2&startingAfter=${made[1]}`);
    assert.deepEqual(ids(p2), [made[0]]);
    assert.equal(p2.body.hasMore, false);
  });

  it('400 for an unknown status, naming query.status', async () => {
    const res = await api.get('/api/v1/subscriptions?status=PAUSED');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.status');
    assert.match(res.body.errors[0].message, /ACTIVE, ACTIVE_PENDING_CHANGE, PAST_DUE, CANCELLED/);
  });

  it('an sk_live_ key never sees test subscriptions', async () => {
    const sub = await subscribe();
    const live = t.seed.client(ws.live.secretKey);
    assert.ok(!ids(await live.get('/api/v1/subscriptions?limit=100')).includes(sub.id));
    assert.equal((await live.get(`/api/v1/subscriptions/${sub.id}`)).status, 404);
  });
});

describe('GET /api/v1/subscriptions/:id', () => {
  it("404 for another workspace's subscription", async () => {
    const sub = await subscribe();
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/subscriptions/${sub.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });
});

describe('PATCH /api/v1/subscriptions/:id', () => {
  it('200 changes the currency of a subscription without an offering', async () => {
    const sub = await subscribe();
    const res = await api.patch(`/api/v1/subscriptions/${sub.id}`, { currency: 'EUR' });
    assert.equal(res.status, 200);
    assert.equal(res.body.currency, 'EUR');
    assert.equal(res.body.version, 2);
  });

  it('400 names body.currency for XAU (no minor unit), changing nothing', async () => {
    const sub = await subscribe({ currency: 'EUR' });
    const res = await api.patch(`/api/v1/subscriptions/${sub.id}`, { currency: 'XAU' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.currency');
    assert.match(res.body.errors[0].message, /'XAU'.*ISO 4217/);
    assert.deepEqual((await api.get(`/api/v1/subscriptions/${sub.id}`)).body, sub);
  });
});

describe('POST /api/v1/subscriptions/:id/cancel', () => {
  it('200 cancels now: status CANCELLED, cancelledAt set, version 2, the period kept', async () => {
    const sub = await subscribe();
    t.clock.advance(60_000);
    const res = await api.post(`/api/v1/subscriptions/${sub.id}/cancel`);
    assert.equal(res.status, 200);
    const after = res.body.subscription;
    assert.equal(after.id, sub.id);
    assert.equal(after.status, 'CANCELLED');
    assert.equal(after.cancelledAt, iso(t.clock.now()));
    assert.equal(after.updatedAt, iso(t.clock.now()));
    assert.equal(after.version, 2);
    assert.equal(after.startedAt, sub.startedAt);
    assert.equal(after.currentPeriodStart, sub.currentPeriodStart);
    assert.equal(after.currentPeriodEnd, sub.currentPeriodEnd);
    // The change result's subscription is the resource without the read-only effectiveUsageLimits.
    const { effectiveUsageLimits: _limits, ...read } = (await api.get(`/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual(read, after);
  });

  it('200 answers the change result, and the subscription keeps how it was cancelled (cancel_channel API) on GET and in the list', async () => {
    const sub = await subscribe();
    assert.equal(sub.cancellationDetails, null, 'none before a cancellation');
    t.clock.advance(60_000);
    const res = await api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'SWITCHED_SERVICE', comment: 'Moved to a competitor' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const now = iso(t.clock.now());
    assert.deepEqual(
      [res.body.object, res.body.subscriptionId, res.body.action, res.body.applyAt, res.body.channel, res.body.status, res.body.effectiveAt],
      ['subscription_change', sub.id, 'CANCEL', 'IMMEDIATE', 'API', 'CANCELLED', now],
    );
    // Without an offering nothing was paid in advance: no credit note.
    assert.deepEqual([res.body.creditNoteId, res.body.creditNoteAmount], [null, null]);
    const details = { reason: 'SWITCHED_SERVICE', cancel_channel: 'API', comment: 'Moved to a competitor', requestedAt: now };
    assert.deepEqual(res.body.subscription.cancellationDetails, details);
    assert.deepEqual((await api.get(`/api/v1/subscriptions/${sub.id}`)).body.cancellationDetails, details);
    const listed = (await api.get(`/api/v1/subscriptions?customerId=${sub.customerId}`)).body.data;
    assert.deepEqual(
      listed.map((s: { id: string; cancellationDetails: unknown }) => [s.id, s.cancellationDetails]),
      [[sub.id, details]],
    );
  });

  it('409 SUBSCRIPTION_NOT_ACTIVE when cancelled again, changing nothing', async () => {
    const sub = await subscribe();
    const first = await api.post(`/api/v1/subscriptions/${sub.id}/cancel`);
    t.clock.advance(1000);
    const res = await api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'OTHER', comment: 'again' });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'SUBSCRIPTION_NOT_ACTIVE');
    const { effectiveUsageLimits: _limits, ...read } = (await api.get(`/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual(read, first.body.subscription, 'the first cancellation’s details kept');
  });

  it('200 writes a subscription.cancelled audit event under the X-Correlation-Id sent, and revokes its keys', async () => {
    const sub = await subscribe();
    const productKey = await t.seed.productKey(ws.test, sub.id);
    // Valid before: a product key reaches the API but may not call admin endpoints.
    assert.equal((await t.seed.client(productKey.token).get('/api/v1/products')).status, 403);

    const res = await api.post(`/api/v1/subscriptions/${sub.id}/cancel`, undefined, { 'x-correlation-id': 'corr-cancel-42' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-correlation-id'], 'corr-cancel-42');

    const cancelled = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'subscription.cancelled')
      .where('targetId', '=', sub.id)
      .execute();
    assert.equal(cancelled.length, 1);
    const [event] = cancelled;
    assert.equal(event!.correlationId, 'corr-cancel-42');
    assert.equal(event!.workspaceId, ws.workspaceId);
    assert.equal(event!.environment, 'test');
    assert.equal(event!.targetType, 'subscription');
    assert.equal(event!.actorType, 'WORKSPACE_KEY');
    assert.equal(event!.actorId, ws.test.keyId);
    assert.deepEqual(JSON.parse(event!.payload).revokedKeyIds, [productKey.id]);

    const revoked = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'api_key.revoked')
      .where('targetId', '=', productKey.id)
      .execute();
    assert.equal(revoked.length, 1);
    assert.equal(revoked[0]!.correlationId, 'corr-cancel-42');
    assert.equal(JSON.parse(revoked[0]!.payload).subscriptionId, sub.id);

    const after = await t.seed.client(productKey.token).get('/api/v1/products');
    assert.equal(after.status, 401);
    assert.equal(after.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('409 for a second cancel, which writes no second audit event', async () => {
    const sub = await subscribe();
    await api.post(`/api/v1/subscriptions/${sub.id}/cancel`);
    await api.post(`/api/v1/subscriptions/${sub.id}/cancel`);
    const events = await t.deps.db
      .selectFrom('auditEvents')
      .select('id')
      .where('eventType', '=', 'subscription.cancelled')
      .where('targetId', '=', sub.id)
      .execute();
    assert.equal(events.length, 1);
  });

  it("404 for another workspace's subscription, which stays ACTIVE", async () => {
    const sub = await subscribe();
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).post(`/api/v1/subscriptions/${sub.id}/cancel`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await api.get(`/api/v1/subscriptions/${sub.id}`)).body.status, 'ACTIVE');
  });

  it('404 for an unknown id', async () => {
    const res = await api.post('/api/v1/subscriptions/sub_nope/cancel');
    assert.equal(res.status, 404);
  });

  it('403 for a workspace key without the admin scope, which leaves it ACTIVE', async () => {
    const sub = await subscribe();
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post(`/api/v1/subscriptions/${sub.id}/cancel`);
    assert.equal(res.status, 403);
    assert.equal((await api.get(`/api/v1/subscriptions/${sub.id}`)).body.status, 'ACTIVE');
  });
});
