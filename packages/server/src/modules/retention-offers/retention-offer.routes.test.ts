import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';

/**
 * Retention offers through the real HTTP API, grouped by status: the offer of every reason,
 * accepting it (once per subscription and reason, audited), what is refused, and the discount on
 * the next three renewal invoices driven by a test clock, checked against amounts worked out by
 * hand and against the upcoming-invoice preview.
 */

let t: TestApp;
const START = Date.UTC(2026, 0, 15, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

before(async () => {
  t = await createTestApp();
});
after(async () => t.close());
beforeEach(() => t.clock.set(START));

interface Demo {
  env: DemoEnvironment;
  api: Client;
}

/** The demo workspace: Acme on Pro (49 USD a month); Starter (usage only) is cheaper, Agents dearer. */
async function demo(): Promise<Demo> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  return { env: d.environments.test, api: t.seed.client(d.environments.test.secretKey) };
}

async function ok(res: Promise<{ status: number; body: any }>) {
  const r = await res;
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

const offerOf = (d: Demo, reason: string) => d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}/retention-offers?reason=${reason}`);
const accept = (d: Demo, body: Record<string, unknown>, subscriptionId = d.env.subscriptionId) =>
  d.api.post(`/api/v1/subscriptions/${subscriptionId}/retention-offer`, body);

async function refusal(res: Promise<{ status: number; body: any }>, status: number, code: string, field?: string) {
  const r = await res;
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.errors[0].code, code);
  if (field) assert.equal(r.body.errors[0].field, field);
  return r.body.errors[0] as { message: string };
}

const discountOffer = { type: 'DISCOUNT_20_PERCENT', percentOff: '20', periods: 3, description: '20% off your next 3 invoices' };

describe('GET /api/v1/subscriptions/{id}/retention-offers', () => {
  it('200 the offer fixed for each of the six reasons', async () => {
    const d = await demo();
    await ok(d.api.patch('/api/v1/billing/settings', { supportUrl: 'https://help.example.com/stay' }));
    const starter = (await ok(d.api.get('/api/v1/offerings?limit=100'))).data.find((o: { name: string }) => o.name === 'Starter');
    const expected: Record<string, object> = {
      TOO_EXPENSIVE: discountOffer,
      SWITCHED_SERVICE: discountOffer,
      UNUSED: {
        type: 'DOWNGRADE_PROMPT',
        offeringId: starter.id,
        offeringName: 'Starter',
        entryPrice: null,
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        description: 'Switch to Starter (Usage-based)',
      },
      MISSING_FEATURES: {
        type: 'SUPPORT_HANDOFF',
        url: 'https://help.example.com/stay',
        description: 'Tell our team what you are missing: it may be there already, or on its way',
      },
      TECHNICAL_ISSUES: { type: 'SUPPORT_HANDOFF', url: 'https://help.example.com/stay', description: 'Let our support team fix the problem with you' },
      OTHER: { type: 'NONE' },
    };
    for (const [reason, offer] of Object.entries(expected)) {
      const view = await ok(offerOf(d, reason));
      assert.deepEqual(view, { object: 'retention_offer', subscriptionId: d.env.subscriptionId, reason, offer, acceptanceId: null }, reason);
    }
  });

  it('200 NONE for a support hand-off without a support address, and for UNUSED on the cheapest offering', async () => {
    const d = await demo();
    assert.deepEqual((await ok(offerOf(d, 'TECHNICAL_ISSUES'))).offer, { type: 'NONE' });
    const starter = (await ok(d.api.get('/api/v1/offerings?limit=100'))).data.find((o: { name: string }) => o.name === 'Starter');
    const onStarter = await ok(d.api.post('/api/v1/subscriptions', { customerId: d.env.customerId, offeringId: starter.id }));
    const view = await ok(d.api.get(`/api/v1/subscriptions/${onStarter.id}/retention-offers?reason=UNUSED`));
    assert.deepEqual(view.offer, { type: 'NONE' });
  });

  it('400 names query.reason; 404 for another workspace’s subscription; 409 once cancelled', async () => {
    const d = await demo();
    await refusal(offerOf(d, 'BORED'), 400, 'VALIDATION_FAILED', 'query.reason');
    const stranger = t.seed.client((await t.seed.workspace()).test.secretKey);
    assert.equal((await stranger.get(`/api/v1/subscriptions/${d.env.subscriptionId}/retention-offers?reason=OTHER`)).status, 404);
    await ok(d.api.post(`/api/v1/subscriptions/${d.env.subscriptionId}/cancel`, {}));
    await refusal(offerOf(d, 'TOO_EXPENSIVE'), 409, 'SUBSCRIPTION_NOT_ACTIVE');
  });
});

describe('PATCH /api/v1/billing/settings supportUrl', () => {
  it('200 takes https:// and mailto: addresses and null; 400 names body.supportUrl for anything else', async () => {
    const d = await demo();
    assert.equal((await ok(d.api.get('/api/v1/billing/settings'))).supportUrl, null);
    assert.equal((await ok(d.api.patch('/api/v1/billing/settings', { supportUrl: 'mailto:help@example.com' }))).supportUrl, 'mailto:help@example.com');
    assert.equal((await ok(d.api.patch('/api/v1/billing/settings', { invoicePrefix: 'ACME' }))).supportUrl, 'mailto:help@example.com', 'kept when not sent');
    for (const bad of [
      'javascript:alert(1)',
      'ftp://example.com',
      'https://',
      'mailto:nobody',
      'https://example.com/a b',
      `https://example.com/${'a'.repeat(490)}`,
    ]) {
      await refusal(d.api.patch('/api/v1/billing/settings', { supportUrl: bad }), 400, 'VALIDATION_FAILED', 'body.supportUrl');
    }
    assert.equal((await ok(d.api.patch('/api/v1/billing/settings', { supportUrl: null }))).supportUrl, null);
  });
});

describe('POST /api/v1/subscriptions/{id}/retention-offer', () => {
  it('200 TOO_EXPENSIVE: the acceptance, the discount on the subscription (version + 1), and retention_offer.accepted', async () => {
    const d = await demo();
    const before = await ok(d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`));
    assert.equal(before.discount, null);
    t.clock.set(START + HOUR);
    const accepted = await ok(accept(d, { reason: 'TOO_EXPENSIVE', offerType: 'DISCOUNT_20_PERCENT' }));
    assert.match(accepted.id, /^roa_[0-9a-z]{26}$/);
    assert.deepEqual(accepted, {
      object: 'retention_offer_acceptance',
      id: accepted.id,
      subscriptionId: d.env.subscriptionId,
      reason: 'TOO_EXPENSIVE',
      offer: discountOffer,
      channel: 'API',
      acceptedAt: iso(START + HOUR),
    });
    const after = await ok(d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`));
    assert.deepEqual(after.discount, { percentOff: '20', periods: 3, periodsLeft: 3, source: 'retention_offer', acceptanceId: accepted.id });
    assert.equal(after.version, before.version + 1);
    const events = await ok(d.api.get(`/v1/events?type=retention_offer.accepted&targetId=${d.env.subscriptionId}`));
    assert.equal(events.data.length, 1);
    assert.deepEqual(
      [events.data[0].payload.reason, events.data[0].payload.offerType, events.data[0].payload.channel, events.data[0].payload.acceptanceId],
      ['TOO_EXPENSIVE', 'DISCOUNT_20_PERCENT', 'API', accepted.id],
    );
    assert.equal((await ok(offerOf(d, 'TOO_EXPENSIVE'))).acceptanceId, accepted.id);
  });

  it('200 once per subscription and reason: accepting again returns the first record and grants no second discount', async () => {
    const d = await demo();
    const first = await ok(accept(d, { reason: 'TOO_EXPENSIVE' }));
    const version = (await ok(d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`))).version;
    t.clock.set(START + DAY);
    const again = await ok(accept(d, { reason: 'TOO_EXPENSIVE', offerType: 'DISCOUNT_20_PERCENT' }));
    assert.deepEqual(again, first);
    const sub = await ok(d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`));
    assert.equal(sub.version, version, 'nothing changed');
    assert.equal(sub.discount.acceptanceId, first.id);
    const events = await ok(d.api.get(`/v1/events?type=retention_offer.accepted&targetId=${d.env.subscriptionId}`));
    assert.equal(events.data.length, 1);
    const rows = await t.deps.db.selectFrom('retentionOfferAcceptances').select('id').where('subscriptionId', '=', d.env.subscriptionId).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [first.id],
    );
  });

  it('200 two accepts of one reason at once: one record, one discount, both answered with it', async () => {
    const d = await demo();
    const [a, b] = await Promise.all([accept(d, { reason: 'SWITCHED_SERVICE' }), accept(d, { reason: 'SWITCHED_SERVICE' })]);
    assert.deepEqual([a.status, b.status], [200, 200], JSON.stringify([a.body, b.body]));
    assert.equal(a.body.id, b.body.id);
    const sub = await ok(d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`));
    assert.deepEqual([sub.version, sub.discount.acceptanceId], [2, a.body.id]);
    const events = await ok(d.api.get(`/v1/events?type=retention_offer.accepted&targetId=${d.env.subscriptionId}`));
    assert.equal(events.data.length, 1);
  });

  it('200 UNUSED records the downgrade prompt (the plan change is the caller’s next call); MISSING_FEATURES the hand-off', async () => {
    const d = await demo();
    const unused = await ok(accept(d, { reason: 'UNUSED' }));
    assert.deepEqual([unused.offer.type, unused.offer.offeringName], ['DOWNGRADE_PROMPT', 'Starter']);
    await ok(d.api.patch('/api/v1/billing/settings', { supportUrl: 'mailto:help@example.com' }));
    const handoff = await ok(accept(d, { reason: 'MISSING_FEATURES', offerType: 'SUPPORT_HANDOFF' }));
    assert.deepEqual(handoff.offer, {
      type: 'SUPPORT_HANDOFF',
      url: 'mailto:help@example.com',
      description: 'Tell our team what you are missing: it may be there already, or on its way',
    });
    const sub = await ok(d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`));
    assert.deepEqual([sub.discount, sub.version, sub.offeringId], [null, 1, d.env.offeringId], 'neither changes the subscription');
  });

  it('422 OFFER_NOT_AVAILABLE: PAUSE_3_MONTHS, another offer than the reason’s, a reason without one, a second discount while one runs', async () => {
    const d = await demo();
    const pause = await refusal(accept(d, { reason: 'TOO_EXPENSIVE', offerType: 'PAUSE_3_MONTHS' }), 422, 'OFFER_NOT_AVAILABLE', 'body.offerType');
    assert.equal(pause.message, 'Pausing a subscription for 3 months is not available.');
    const other = await refusal(accept(d, { reason: 'UNUSED', offerType: 'DISCOUNT_20_PERCENT' }), 422, 'OFFER_NOT_AVAILABLE', 'body.offerType');
    assert.match(other.message, /UNUSED is DOWNGRADE_PROMPT, not DISCOUNT_20_PERCENT/);
    await refusal(accept(d, { reason: 'OTHER' }), 422, 'OFFER_NOT_AVAILABLE', 'body.reason');
    await refusal(accept(d, { reason: 'TECHNICAL_ISSUES' }), 422, 'OFFER_NOT_AVAILABLE', 'body.reason');
    await ok(accept(d, { reason: 'TOO_EXPENSIVE' }));
    const twice = await refusal(accept(d, { reason: 'SWITCHED_SERVICE' }), 422, 'OFFER_NOT_AVAILABLE', 'body.reason');
    assert.match(twice.message, /3 of 3 invoices left/);
    // Named after it was accepted, PAUSE_3_MONTHS is still refused, never the stored record.
    await refusal(accept(d, { reason: 'TOO_EXPENSIVE', offerType: 'PAUSE_3_MONTHS' }), 422, 'OFFER_NOT_AVAILABLE', 'body.offerType');
    const rows = await t.deps.db.selectFrom('retentionOfferAcceptances').select('reason').where('subscriptionId', '=', d.env.subscriptionId).execute();
    assert.deepEqual(
      rows.map((r) => r.reason),
      ['TOO_EXPENSIVE'],
    );
    const events = await ok(d.api.get(`/v1/events?type=retention_offer.accepted&targetId=${d.env.subscriptionId}`));
    assert.equal(events.data.length, 1, 'refusals write nothing');
  });

  it('400 names body.reason and body.offerType; 404 unknown subscription; 409 a cancelled one', async () => {
    const d = await demo();
    await refusal(accept(d, { reason: 'BORED' }), 400, 'VALIDATION_FAILED', 'body.reason');
    await refusal(accept(d, { reason: 'OTHER', offerType: 'FREE_MONTH' }), 400, 'VALIDATION_FAILED', 'body.offerType');
    await refusal(accept(d, {}), 400, 'VALIDATION_FAILED');
    await refusal(accept(d, { reason: 'TOO_EXPENSIVE' }, 'sub_nope'), 404, 'NOT_FOUND');
    await ok(d.api.post(`/api/v1/subscriptions/${d.env.subscriptionId}/cancel`, {}));
    await refusal(accept(d, { reason: 'TOO_EXPENSIVE' }), 409, 'SUBSCRIPTION_NOT_ACTIVE');
  });

  it('401 without a key, 403 without the admin scope', async () => {
    const d = await demo();
    assert.equal((await t.seed.client(null).post(`/api/v1/subscriptions/${d.env.subscriptionId}/retention-offer`, { reason: 'OTHER' })).status, 401);
    const ws = await t.seed.workspace();
    const ingestOnly = t.seed.client((await t.seed.workspaceKey(ws.test, ['ingest'])).token);
    assert.equal((await ingestOnly.post('/api/v1/subscriptions/sub_x/retention-offer', { reason: 'OTHER' })).status, 403);
    assert.equal((await ingestOnly.get('/api/v1/subscriptions/sub_x/retention-offers?reason=OTHER')).status, 403);
  });
});

describe('the retention discount on renewal invoices', () => {
  type Line = { type: string; description: string; rate: string | null; amount: string };
  const brief = (lines: Line[]) => lines.map((l) => [l.type, l.amount]);

  /** An offering with an entry price and api_calls at `rate` each, on a customer of a new test clock. */
  async function clockedSubscription(d: Demo, currency: string, entryPrice: string, rate: string, externalId: string) {
    const plan = await ok(
      d.api.post('/api/v1/rate-plans', {
        name: `${currency} calls`,
        currency,
        billingPeriod: 'MONTHLY',
        metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate }],
      }),
    );
    const offering = await ok(
      d.api.post('/api/v1/offerings', {
        productId: d.env.productId,
        name: `${currency} plan`,
        currency,
        billingPeriod: 'MONTHLY',
        entryPrice,
        ratePlanIds: [plan.id],
      }),
    );
    const clock = await ok(d.api.post('/api/v1/test_clocks', { frozenTime: iso(START) }));
    const customer = await ok(d.api.post('/api/v1/customers', { name: externalId, externalId, testClockId: clock.id }));
    const sub = await ok(d.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: offering.id }));
    return { clockId: clock.id as string, sub };
  }

  const advance = (d: Demo, clockId: string, to: number) => ok(d.api.post(`/api/v1/test_clocks/${clockId}/advance`, { frozenTime: iso(to) }));
  const calls = async (d: Demo, customerId: string, quantity: number, at: number) =>
    ok(d.api.post('/v1/ingest/batch', { events: [{ customerId, metricName: 'api_calls', quantity, occurredAt: iso(at) }] }));
  const cycles = async (d: Demo, subscriptionId: string) =>
    [...(await ok(d.api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}&limit=100`))).data]
      .reverse()
      .filter((i) => i.billingReason === 'subscription_cycle');

  /**
   * Three renewals with the discount and a fourth without: each period's calls are sent on the
   * clock, the upcoming invoice is read just before the period ends, and the renewal (run past the
   * grace period, so finalized at once) must issue exactly what it showed.
   */
  async function fourRenewals(d: Demo, c: { clockId: string; sub: { id: string; currentPeriodEnd: string } }, externalId: string, callsPerPeriod: number[]) {
    let periodEnd = Date.parse(c.sub.currentPeriodEnd);
    const previews = [];
    for (const quantity of callsPerPeriod) {
      const start = periodEnd - 28 * DAY;
      await advance(d, c.clockId, start + DAY);
      if (quantity > 0) await calls(d, externalId, quantity, start + DAY);
      await advance(d, c.clockId, periodEnd - HOUR);
      previews.push(await ok(d.api.get(`/api/v1/subscriptions/${c.sub.id}/upcoming-invoice`)));
      await advance(d, c.clockId, periodEnd + 2 * HOUR);
      periodEnd = Date.parse((await ok(d.api.get(`/api/v1/subscriptions/${c.sub.id}`))).currentPeriodEnd);
    }
    const issued = await cycles(d, c.sub.id);
    assert.equal(issued.length, 4);
    for (const [k, inv] of issued.entries()) {
      assert.equal(inv.status, 'finalized');
      const strip = (l: Line) => [l.type, l.description, l.rate, l.amount];
      assert.deepEqual(previews[k].lines.map(strip), inv.lines.map(strip), `renewal ${k + 1}: the preview lists the lines the invoice has`);
      assert.deepEqual([previews[k].subtotal, previews[k].total], [inv.subtotal, inv.total], `renewal ${k + 1}: the preview's totals are the invoice's`);
    }
    return { issued, previews };
  }

  it('USD: -20% of each of the next three renewal invoices, rounded half up to the cent; the fourth is full price', async () => {
    const d = await demo();
    const c = await clockedSubscription(d, 'USD', '49.99', '0.01', 'usd-co');
    const accepted = await ok(accept(d, { reason: 'TOO_EXPENSIVE' }, c.sub.id));
    const { issued, previews } = await fourRenewals(d, c, 'usd-co', [1_234, 1_001, 3, 500]);
    // 49.99 + 12.34 = 62.33, 20% = 12.466 -> 12.47; 49.99 + 10.01 = 60.00 -> 12.00; 49.99 + 0.03 = 50.02, 10.004 -> 10.00.
    assert.deepEqual(
      issued.map((i) => brief(i.lines)),
      [
        [
          ['entry_price', '49.99'],
          ['usage', '12.34'],
          ['discount', '-12.47'],
        ],
        [
          ['entry_price', '49.99'],
          ['usage', '10.01'],
          ['discount', '-12.00'],
        ],
        [
          ['entry_price', '49.99'],
          ['usage', '0.03'],
          ['discount', '-10.00'],
        ],
        [
          ['entry_price', '49.99'],
          ['usage', '5.00'],
        ],
      ],
    );
    assert.deepEqual(
      issued.map((i) => i.total),
      ['49.86', '48.00', '40.02', '54.99'],
    );
    assert.deepEqual(
      issued.slice(0, 3).map((i) => i.lines.at(-1).description),
      ['Retention discount: 20% off (invoice 1 of 3)', 'Retention discount: 20% off (invoice 2 of 3)', 'Retention discount: 20% off (invoice 3 of 3)'],
    );
    assert.equal(issued[0].lines.at(-1).rate, '20');
    assert.deepEqual(
      previews.map((p) => p.discountAmount),
      ['-12.47', '-12.00', '-10.00', '0.00'],
    );
    const sub = await ok(d.api.get(`/api/v1/subscriptions/${c.sub.id}`));
    assert.equal(sub.discount, null, 'used up');
    // Accepting the same reason again grants nothing more.
    assert.equal((await ok(accept(d, { reason: 'TOO_EXPENSIVE' }, c.sub.id))).id, accepted.id);
    assert.equal((await ok(d.api.get(`/api/v1/subscriptions/${c.sub.id}`))).discount, null);
  });

  it('JPY: rounded half up to the yen', async () => {
    const d = await demo();
    const c = await clockedSubscription(d, 'JPY', '4980', '1', 'jpy-co');
    await ok(accept(d, { reason: 'SWITCHED_SERVICE' }, c.sub.id));
    const { issued } = await fourRenewals(d, c, 'jpy-co', [3, 12, 0, 7]);
    // 4983 x 20% = 996.6 -> 997; 4992 -> 998.4 -> 998; 4980 -> 996 exactly.
    assert.deepEqual(
      issued.map((i) => [i.lines.find((l: Line) => l.type === 'discount')?.amount ?? null, i.total]),
      [
        ['-997', '3986'],
        ['-998', '3994'],
        ['-996', '3984'],
        [null, '4987'],
      ],
    );
  });

  it('a draft re-rated at finalization recomputes its discount from the re-rated lines, once', async () => {
    const d = await demo();
    const c = await clockedSubscription(d, 'USD', '49.99', '0.01', 'late-co');
    await ok(accept(d, { reason: 'TOO_EXPENSIVE' }, c.sub.id));
    const periodEnd = Date.parse(c.sub.currentPeriodEnd);
    await advance(d, c.clockId, START + DAY);
    await calls(d, 'late-co', 1_234, START + DAY);
    await advance(d, c.clockId, periodEnd + 30 * 60_000);
    const [draft] = await cycles(d, c.sub.id);
    assert.equal(draft.status, 'draft');
    assert.deepEqual(brief(draft.lines), [
      ['entry_price', '49.99'],
      ['usage', '12.34'],
      ['discount', '-12.47'],
    ]);
    // Late usage of the closed period, within the grace hour.
    await calls(d, 'late-co', 766, periodEnd - HOUR);
    await advance(d, c.clockId, periodEnd + 2 * HOUR);
    const [finalized] = await cycles(d, c.sub.id);
    // 49.99 + 20.00 = 69.99, 20% = 13.998 -> 14.00.
    assert.deepEqual(brief(finalized.lines), [
      ['entry_price', '49.99'],
      ['usage', '20.00'],
      ['discount', '-14.00'],
    ]);
    assert.deepEqual([finalized.status, finalized.total], ['finalized', '55.99']);
    const sub = await ok(d.api.get(`/api/v1/subscriptions/${c.sub.id}`));
    assert.equal(sub.discount.periodsLeft, 2, 'one invoice carried it');
  });

  it('a subscription cancelled at the period end gets no discount on its last invoice, and the preview shows none', async () => {
    const d = await demo();
    const c = await clockedSubscription(d, 'USD', '49.99', '0.01', 'leaving-co');
    await ok(accept(d, { reason: 'TOO_EXPENSIVE' }, c.sub.id));
    await ok(d.api.patch(`/api/v1/subscriptions/${c.sub.id}`, { cancelAtPeriodEnd: true }));
    await advance(d, c.clockId, START + DAY);
    await calls(d, 'leaving-co', 100, START + DAY);
    const preview = await ok(d.api.get(`/api/v1/subscriptions/${c.sub.id}/upcoming-invoice`));
    assert.deepEqual(brief(preview.lines), [['usage', '1.00']]);
    await advance(d, c.clockId, Date.parse(c.sub.currentPeriodEnd) + 2 * HOUR);
    const invoices = [...(await ok(d.api.get(`/api/v1/invoices?subscriptionId=${c.sub.id}&limit=100`))).data];
    const last = invoices.find((i) => i.billingReason === 'subscription_cancel');
    assert.deepEqual([brief(last.lines), last.total], [[['usage', '1.00']], '1.00']);
  });
});
