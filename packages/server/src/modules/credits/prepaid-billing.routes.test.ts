import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { ok } from '../../../test/helpers/expect.js';
import { Decimal } from '@tollgate/pricing';

/**
 * PREPAID subscriptions billed through the real server on test clocks (issue 41): a closed
 * period's usage draws from the customer's grants in time order and draw order, the invoice shows
 * a negative credits line per grant, late usage in the grace period draws the difference at
 * finalization, and what credits do not cover is billed. Every figure is computed by hand.
 */

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let productId: string;
let planId: string;

const iso = (ms: number) => new Date(ms).toISOString();
const MAR = (day: number, hour = 0) => Date.UTC(2026, 2, day, hour);

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  await ok(api.post('/api/v1/metrics', { name: 'calls' }));
  await ok(api.post('/api/v1/metrics', { name: 'images' }));
  productId = (await ok(api.post('/api/v1/products', { name: 'Agent API', kind: 'STANDARD_API' }))).id;
  // 0.01 a call, nothing free: 100 calls are 1.00.
  planId = (
    await ok(
      api.post('/api/v1/rate-plans', {
        name: 'Calls',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        metrics: [{ metricName: 'calls', pricingModel: 'PER_UNIT', rate: '0.01' }],
      }),
    )
  ).id;
});
after(() => t.close());

/** A customer on a new test clock at `start`, subscribed to a new PREPAID offering. */
async function prepaidCustomer(start: number, offering: Record<string, unknown> = {}) {
  const clock = await ok(api.post('/api/v1/test_clocks', { frozenTime: iso(start), name: 'Prepaid' }));
  const customer = await ok(api.post('/api/v1/customers', { name: 'Prepaid buyer', testClockId: clock.id }));
  const off = await ok(
    api.post('/api/v1/offerings', {
      productId,
      name: 'Prepaid',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      billingMode: 'PREPAID',
      ratePlanIds: [planId],
      ...offering,
    }),
  );
  const sub = await ok(api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: off.id }));
  return { clockId: clock.id as string, customerId: customer.id as string, subscriptionId: sub.id as string };
}

const grant = (customerId: string, body: Record<string, unknown>) => ok(api.post('/api/v1/credit_grants', { customerId, currency: 'USD', ...body }));

/** Usage at `at` in the customer's time: its clock is moved there first, unless it is already past (late usage). */
async function calls(customerId: string, quantity: number, at: number, clockId?: string) {
  if (clockId) {
    const clock = await ok(api.get(`/api/v1/test_clocks/${clockId}`));
    if (Date.parse(clock.frozenTime) < at) await advance(clockId, at);
  }
  await ok(api.post('/v1/ingest/batch', { events: [{ customerId, metricName: 'calls', quantity, occurredAt: iso(at) }] }));
}

async function advance(clockId: string, to: number) {
  const res = await ok(api.post(`/api/v1/test_clocks/${clockId}/advance`, { frozenTime: iso(to) }));
  assert.equal(res.status, 'ready');
}

async function cycleInvoice(subscriptionId: string) {
  const list = await ok(api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}&limit=10`));
  const cycle = list.data.filter((i: any) => i.billingReason === 'subscription_cycle');
  assert.equal(cycle.length, 1, JSON.stringify(list.data));
  return cycle[0];
}

const lines = (invoice: any) => invoice.lines.map((l: any) => [l.type, l.amount, l.creditGrantId ?? null]);
const ledger = async (customerId: string) => (await ok(api.get(`/api/v1/customers/${customerId}/credit_ledger?currency=USD&limit=100`))).data.reverse();
const balance = async (customerId: string) => (await ok(api.get(`/api/v1/customers/${customerId}/credit_balance`))).balances[0].balance;

describe('PREPAID: a period’s usage draws from credits at its close', () => {
  it('three grants of different priority, expiry and start: each pays only for usage while it was effective, lowest priority number first', async () => {
    const c = await prepaidCustomer(MAR(1));
    // A: 5.00, priority 10, expires 15 March. B: 20.00, priority 50, never expires. C: 3.00,
    // priority 5, effective from 20 March.
    const a = await grant(c.customerId, { amount: '5', priority: 10, expiresAt: iso(MAR(15)) });
    const b = await grant(c.customerId, { amount: '20', priority: 50 });
    const g = await grant(c.customerId, { amount: '3', priority: 5, effectiveAt: iso(MAR(20)) });
    // 10 March, 300 calls (3.00): A and B are effective, C not yet; A goes first → A pays 3.00 (2.00 left).
    // 16 March, 400 calls (4.00): A has expired → B pays 4.00 (16.00 left).
    // 25 March, 500 calls (5.00): C (priority 5) then B → C pays 3.00, B 2.00 (14.00 left).
    await calls(c.customerId, 300, MAR(10), c.clockId);
    await calls(c.customerId, 400, MAR(16), c.clockId);
    await calls(c.customerId, 500, MAR(25), c.clockId);

    // Ten minutes after the close: the draft, inside its hour of grace, has drawn already.
    await advance(c.clockId, Date.UTC(2026, 3, 1, 0, 10));
    const draft = await cycleInvoice(c.subscriptionId);
    assert.equal(draft.status, 'draft');
    assert.deepEqual(lines(draft), [
      ['usage', '12.00', null],
      ['credits', '-3.00', g.id],
      ['credits', '-3.00', a.id],
      ['credits', '-6.00', b.id],
    ]);
    assert.equal(draft.total, '0.00');
    assert.equal(await balance(c.customerId), '16.00', '28.00 granted, 12.00 drawn');

    // 12 March, 100 more calls (1.00) reported in the grace period: at finalization A, which was
    // effective then, pays 1.00 more; the ledger gets only that difference.
    await calls(c.customerId, 100, MAR(12), c.clockId);
    await advance(c.clockId, Date.UTC(2026, 3, 1, 2));
    const final = await cycleInvoice(c.subscriptionId);
    assert.equal(final.status, 'finalized');
    assert.deepEqual(lines(final), [
      ['usage', '13.00', null],
      ['credits', '-3.00', g.id],
      ['credits', '-4.00', a.id],
      ['credits', '-6.00', b.id],
    ]);
    assert.equal(final.total, '0.00');
    assert.equal(final.amountDue, '0.00');
    assert.match(final.lines[2].description, new RegExp(`^Prepaid credits: promotional grant ${a.id}, expires 2026-03-15$`));

    const entries = await ledger(c.customerId);
    assert.deepEqual(
      entries.map((e: any) => [e.type, e.grantId, e.amount, e.invoiceId]),
      [
        ['grant', a.id, '5.00', null],
        ['grant', b.id, '20.00', null],
        ['grant', g.id, '3.00', null],
        ['draw', a.id, '-3.00', final.id],
        ['draw', b.id, '-6.00', final.id],
        ['draw', g.id, '-3.00', final.id],
        ['draw', a.id, '-1.00', final.id],
        // A expired on 15 March; once March's invoice is final nothing can draw from it: its 1.00 goes.
        ['expiry', a.id, '-1.00', null],
      ],
    );
    assert.deepEqual(
      entries.map((e: any) => e.balanceAfter),
      ['5.00', '25.00', '28.00', '25.00', '19.00', '16.00', '15.00', '14.00'],
    );
    assert.equal(entries.at(-1).occurredAt, iso(MAR(15)), 'dated at the expiry');
    const state = async (id: string) => {
      const x = await ok(api.get(`/api/v1/credit_grants/${id}`));
      return [x.status, x.remaining];
    };
    assert.deepEqual(
      [await state(a.id), await state(b.id), await state(g.id)],
      [
        ['expired', '0.00'],
        ['active', '14.00'],
        ['active', '0.00'],
      ],
    );
    assert.equal(await balance(c.customerId), '14.00');
  });

  it('overage BILL: what the credits do not cover is billed in arrears', async () => {
    const c = await prepaidCustomer(MAR(1));
    const a = await grant(c.customerId, { amount: '2.50' });
    await calls(c.customerId, 730, MAR(5), c.clockId);
    await advance(c.clockId, Date.UTC(2026, 3, 1, 2));
    const invoice = await cycleInvoice(c.subscriptionId);
    assert.deepEqual(lines(invoice), [
      ['usage', '7.30', null],
      ['credits', '-2.50', a.id],
    ]);
    assert.deepEqual([invoice.status, invoice.total, invoice.amountDue], ['finalized', '4.80', '4.80']);
    assert.equal(await balance(c.customerId), '0.00');
  });

  it('a grant limited to other metrics or to another subscription pays nothing here', async () => {
    const c = await prepaidCustomer(MAR(1));
    await grant(c.customerId, { amount: '10', metricNames: ['images'] });
    const empty = await ok(api.post('/api/v1/offerings', { productId, name: 'Nothing billed', currency: 'USD', billingPeriod: 'MONTHLY' }));
    const other = await ok(api.post('/api/v1/subscriptions', { customerId: c.customerId, offeringId: empty.id }));
    await grant(c.customerId, { amount: '5', subscriptionId: other.id });
    await calls(c.customerId, 100, MAR(5), c.clockId);
    await advance(c.clockId, Date.UTC(2026, 3, 1, 2));
    assert.deepEqual(lines(await cycleInvoice(c.subscriptionId)), [['usage', '1.00', null]]);
    assert.equal(await balance(c.customerId), '15.00');
  });

  it('a POSTPAID subscription never draws', async () => {
    const clock = await ok(api.post('/api/v1/test_clocks', { frozenTime: iso(MAR(1)) }));
    const customer = await ok(api.post('/api/v1/customers', { name: 'Postpaid buyer', testClockId: clock.id }));
    const postpaid = await ok(api.post('/api/v1/offerings', { productId, name: 'Postpaid', currency: 'USD', billingPeriod: 'MONTHLY', ratePlanIds: [planId] }));
    const sub = await ok(api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: postpaid.id }));
    await grant(customer.id, { amount: '10' });
    await calls(customer.id, 100, MAR(5), clock.id);
    await advance(clock.id, Date.UTC(2026, 3, 1, 2));
    assert.deepEqual(lines(await cycleInvoice(sub.id)), [['usage', '1.00', null]]);
    assert.equal(await balance(customer.id), '10.00');
  });
});

describe('PREPAID: the entitlement check knows the live balance', () => {
  const check = async (customerId: string) => ok(api.get(`/v1/entitlements/check?accessorId=${customerId}&productId=${productId}`));

  it('overage BLOCK: allowed while credits are left, CREDITS_EXHAUSTED at zero, allowed again after a grant', async () => {
    const c = await prepaidCustomer(MAR(1), { overage: 'BLOCK' });
    let answer = await check(c.customerId);
    assert.deepEqual(
      [answer.allowed, answer.reason, answer.creditsRemaining, answer.budgetRemaining],
      [false, 'CREDITS_EXHAUSTED', '0.00', 0],
      'no credits yet',
    );

    await grant(c.customerId, { amount: '2.50' });
    answer = await check(c.customerId);
    assert.deepEqual([answer.allowed, answer.reason, answer.creditsRemaining, answer.budgetRemaining], [true, 'OK', '2.50', 2.5]);

    // 200 calls (2.00) so far this period: 0.50 left.
    await calls(c.customerId, 200, MAR(3), c.clockId);
    answer = await check(c.customerId);
    assert.deepEqual([answer.allowed, answer.creditsRemaining, answer.budgetRemainingAmount], [true, '0.50', '0.5']);

    // 60 more (0.60): 0.10 past what the credits pay.
    await calls(c.customerId, 60, MAR(4), c.clockId);
    answer = await check(c.customerId);
    assert.deepEqual([answer.allowed, answer.reason, answer.creditsRemaining, answer.budgetRemaining], [false, 'CREDITS_EXHAUSTED', '0.00', 0]);

    await grant(c.customerId, { amount: '1.00' });
    answer = await check(c.customerId);
    assert.deepEqual([answer.allowed, answer.reason, answer.creditsRemaining], [true, 'OK', '0.90']);
  });

  it('overage BILL: never refused for credits; creditsRemaining still says what is left', async () => {
    const c = await prepaidCustomer(MAR(1));
    await grant(c.customerId, { amount: '1.00' });
    await calls(c.customerId, 300, MAR(3), c.clockId);
    const answer = await check(c.customerId);
    assert.deepEqual([answer.allowed, answer.reason, answer.creditsRemaining, answer.budgetUnlimited], [true, 'OK', '0.00', true]);
  });

  it('a grant that expired, or is not yet effective, is not counted; the closed period’s draws are', async () => {
    const c = await prepaidCustomer(MAR(1), { overage: 'BLOCK' });
    const early = await grant(c.customerId, { amount: '4.00', expiresAt: iso(MAR(10)) });
    await grant(c.customerId, { amount: '6.00', effectiveAt: iso(MAR(20)) });
    await calls(c.customerId, 100, MAR(5), c.clockId);
    assert.equal((await check(c.customerId)).creditsRemaining, '3.00');
    await calls(c.customerId, 100, MAR(12), c.clockId);
    // The first grant has expired and the second is not effective yet.
    assert.deepEqual([(await check(c.customerId)).allowed, (await check(c.customerId)).reason], [false, 'CREDITS_EXHAUSTED']);
    await calls(c.customerId, 100, MAR(21), c.clockId);
    // Usage so far (3.00) is counted against the grant effective now (6.00): 3.00 left. (The
    // invoice's burn-down is exact: the 5 March usage is the expired grant's, see above.)
    assert.equal((await check(c.customerId)).creditsRemaining, '3.00');
    await advance(c.clockId, Date.UTC(2026, 3, 1, 0, 10));
    // Closed: 5 March's 1.00 drawn from the first grant, 21 March's from the second, 12 March's
    // billed (no grant was effective then): the second grant has 5.00 left for April.
    assert.equal((await check(c.customerId)).creditsRemaining, '5.00');
    // The expired grant keeps its 3.00 while March's invoice is a draft (late usage before 10 March could still draw it).
    assert.deepEqual(
      [(await ok(api.get(`/api/v1/credit_grants/${early.id}`))).status, (await ok(api.get(`/api/v1/credit_grants/${early.id}`))).remaining],
      ['active', '3.00'],
    );
    await advance(c.clockId, Date.UTC(2026, 3, 1, 2));
    const expired = await ok(api.get(`/api/v1/credit_grants/${early.id}`));
    assert.deepEqual([expired.status, expired.remaining], ['expired', '0.00']);
    assert.deepEqual((await ledger(c.customerId)).at(-1), { ...(await ledger(c.customerId)).at(-1), type: 'expiry', amount: '-3.00', grantId: early.id });
    assert.deepEqual(
      lines(await cycleInvoice(c.subscriptionId)).map((l: unknown[]) => l.slice(0, 2)),
      [
        ['usage', '3.00'],
        ['credits', '-1.00'],
        ['credits', '-1.00'],
      ],
    );
  });
});

describe('PREPAID: recurring credits and rollover', () => {
  it('20.00 each period; at a close the unused part rolls over up to the 15.00 cap, the rest expires', async () => {
    const c = await prepaidCustomer(MAR(1), { recurringCredits: { amount: '20', rolloverCap: '15' } });
    const grants = async () => {
      const list = await ok(api.get(`/api/v1/credit_grants?customerId=${c.customerId}&limit=100`));
      return [...list.data].reverse().map((g: any) => [g.source, g.amount, g.remaining, g.status, g.effectiveAt, g.expiresAt]);
    };
    assert.deepEqual(await grants(), [['recurring', '20.00', '20.00', 'active', iso(MAR(1)), iso(Date.UTC(2026, 3, 1))]]);

    // March: 300 calls (3.00) drawn from March's 20.00, 17.00 left: 15.00 (the cap) rolls over, 2.00 expires.
    await calls(c.customerId, 300, MAR(10), c.clockId);
    await advance(c.clockId, Date.UTC(2026, 3, 1, 2));
    const APR = Date.UTC(2026, 3, 1);
    const MAY = Date.UTC(2026, 4, 1);
    assert.deepEqual(await grants(), [
      ['recurring', '20.00', '0.00', 'expired', iso(MAR(1)), iso(APR)],
      ['recurring', '20.00', '20.00', 'active', iso(APR), iso(MAY)],
      ['rollover', '15.00', '15.00', 'active', iso(APR), iso(MAY)],
    ]);
    assert.equal(await balance(c.customerId), '35.00');
    assert.deepEqual(
      (await ledger(c.customerId)).map((e: any) => [e.type, e.amount, e.balanceAfter]),
      [
        ['grant', '20.00', '20.00'],
        // The renewal grants April's credits, then finalizes March's invoice (its draws), then rolls over.
        ['grant', '20.00', '40.00'],
        ['draw', '-3.00', '37.00'],
        ['rollover', '15.00', '52.00'],
        ['expiry', '-17.00', '35.00'],
      ],
    );
    assert.deepEqual(
      lines(await cycleInvoice(c.subscriptionId)).map((l: unknown[]) => l.slice(0, 2)),
      [
        ['usage', '3.00'],
        ['credits', '-3.00'],
      ],
    );

    // April: 500 calls (5.00), drawn from April's recurring grant (equal priority and expiry: the older grant first); 30.00 left, 15.00 rolls over.
    await calls(c.customerId, 500, Date.UTC(2026, 3, 10), c.clockId);
    await advance(c.clockId, Date.UTC(2026, 4, 1, 2));
    const JUN = Date.UTC(2026, 5, 1);
    assert.deepEqual((await grants()).slice(1), [
      ['recurring', '20.00', '0.00', 'expired', iso(APR), iso(MAY)],
      ['rollover', '15.00', '0.00', 'expired', iso(APR), iso(MAY)],
      ['recurring', '20.00', '20.00', 'active', iso(MAY), iso(JUN)],
      ['rollover', '15.00', '15.00', 'active', iso(MAY), iso(JUN)],
    ]);
    assert.equal(await balance(c.customerId), '35.00');
  });

  it('400 names body.recurringCredits on a POSTPAID offering, and its amount when it is 0 or finer than the currency', async () => {
    const base = { productId, name: 'Bad', currency: 'USD', billingPeriod: 'MONTHLY' };
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await api.post('/api/v1/offerings', { ...base, ...body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].field, field);
    };
    await refused({ recurringCredits: { amount: '20' } }, 'body.recurringCredits');
    await refused({ billingMode: 'PREPAID', recurringCredits: { amount: '0' } }, 'body.recurringCredits.amount');
    await refused({ billingMode: 'PREPAID', recurringCredits: { amount: '20.001' } }, 'body.recurringCredits.amount');
    await refused({ billingMode: 'PREPAID', recurringCredits: { amount: '20', rolloverCap: '-1' } }, 'body.recurringCredits.rolloverCap');
    const ok200 = await ok(api.post('/api/v1/offerings', { ...base, billingMode: 'PREPAID', recurringCredits: { amount: '20' } }));
    assert.deepEqual(ok200.recurringCredits, { amount: '20.00', priority: 50, rolloverCap: null });
  });
});

describe('PREPAID: buying credits', () => {
  it('a purchase: pending with a finalized invoice for its cost; paid, it is active, entered as top_up, and the check allows again', async () => {
    const c = await prepaidCustomer(MAR(1), { overage: 'BLOCK' });
    const bought = await grant(c.customerId, { amount: '50', cost: '45', source: 'purchased', priority: 20 });
    assert.deepEqual([bought.status, bought.source, bought.cost, bought.remaining], ['pending', 'purchased', '45.00', '50.00']);
    const invoice = await ok(api.get(`/api/v1/invoices/${bought.invoiceId}`));
    assert.deepEqual(
      [invoice.billingReason, invoice.status, invoice.total, invoice.customerId, invoice.subscriptionId],
      ['credit_purchase', 'finalized', '45.00', c.customerId, null],
    );
    assert.deepEqual(lines(invoice), [['credit_purchase', '45.00', bought.id]]);
    assert.match(invoice.number, /^INV-/);
    // Not paid yet: nothing in the ledger, and the check still refuses.
    assert.deepEqual(await ledger(c.customerId), []);
    const check = async () => ok(api.get(`/v1/entitlements/check?accessorId=${c.customerId}&productId=${productId}`));
    assert.equal((await check()).reason, 'CREDITS_EXHAUSTED');

    await advance(c.clockId, MAR(2));
    await ok(api.post(`/api/v1/invoices/${bought.invoiceId}/pay`, {}));
    const active = await ok(api.get(`/api/v1/credit_grants/${bought.id}`));
    assert.deepEqual([active.status, active.remaining, active.effectiveAt], ['active', '50.00', iso(MAR(2))], 'effective from when it was paid');
    assert.deepEqual(
      (await ledger(c.customerId)).map((e: any) => [e.type, e.amount, e.balanceAfter, e.invoiceId]),
      [['top_up', '50.00', '50.00', bought.invoiceId]],
    );
    assert.deepEqual([(await check()).allowed, (await check()).creditsRemaining], [true, '50.00']);
  });

  it('a purchase whose invoice is voided is voided too, never having counted; a purchase in JPY is whole yen', async () => {
    const c = await prepaidCustomer(MAR(1));
    const bought = await grant(c.customerId, { amount: '10', source: 'purchased' });
    assert.equal(bought.cost, '10.00', 'the cost is the amount unless given');
    await ok(api.post(`/api/v1/invoices/${bought.invoiceId}/void`, {}));
    const voided = await ok(api.get(`/api/v1/credit_grants/${bought.id}`));
    assert.deepEqual([voided.status, voided.remaining], ['voided', '0.00']);
    assert.deepEqual(await ledger(c.customerId), []);

    const yen = await ok(api.post('/api/v1/customers', { name: '株式会社テスト' }));
    const jpy = await ok(api.post('/api/v1/credit_grants', { customerId: yen.id, currency: 'JPY', amount: '5000', cost: '4500', source: 'purchased' }));
    assert.deepEqual([jpy.amount, jpy.cost], ['5000', '4500']);
    assert.equal((await ok(api.get(`/api/v1/invoices/${jpy.invoiceId}`))).total, '4500');
    const refused = await api.post('/api/v1/credit_grants', { customerId: yen.id, currency: 'JPY', amount: '10', cost: '4.5', source: 'purchased' });
    assert.deepEqual([refused.status, refused.body.errors[0].field], [400, 'body.cost']);
  });
});

describe('PREPAID: credit settings (alerts and automatic top-ups)', () => {
  it('a low-balance alert once per crossing, an automatic top-up once per crossing and at most twice a period, the exhausted alert at zero', async () => {
    const c = await prepaidCustomer(MAR(1), { overage: 'BLOCK' });
    const put = await ok(
      api.put(`/api/v1/customers/${c.customerId}/credit_settings/USD`, {
        lowBalanceThreshold: '3',
        autoTopUp: { threshold: '1.00', amount: '10.00', cost: '9.00', maxPerPeriod: 2 },
      }),
    );
    assert.deepEqual(
      [put.object, put.lowBalanceThreshold, put.autoTopUp],
      ['credit_settings', '3.00', { threshold: '1.00', amount: '10.00', cost: '9.00', maxPerPeriod: 2, toppedUpThisPeriod: 0, armed: true }],
    );
    await grant(c.customerId, { amount: '5.00' });
    const check = async () => ok(api.get(`/v1/entitlements/check?accessorId=${c.customerId}&productId=${productId}`));
    // What the audit log records (the webhook messages are written only for subscribed endpoints).
    const purchases = async () =>
      (await ok(api.get(`/api/v1/credit_grants?customerId=${c.customerId}&limit=100`))).data.filter((g: any) => g.source === 'purchased');
    const messages = async () => {
      const ids = [c.customerId, ...(await purchases()).map((g: any) => g.id)];
      const rows = await t.deps.db
        .selectFrom('auditEvents')
        .select(['eventType'])
        .where('workspaceId', '=', ws.workspaceId)
        .where('targetId', 'in', ids)
        .where('eventType', 'in', ['credit_balance.low', 'credit_balance.exhausted', 'credit_grant.topped_up'])
        .orderBy('seq')
        .execute();
      return rows.map((r) => r.eventType);
    };
    // 2.50 used: 2.50 left, below 3.00: one alert, however many checks see it.
    await calls(c.customerId, 250, MAR(2), c.clockId);
    for (let i = 0; i < 3; i++) assert.equal((await check()).creditsRemaining, '2.50');
    assert.deepEqual(await messages(), ['credit_balance.low']);

    // 2.00 more: 0.50 left, below 1.00: one top-up (10.00 for 9.00), pending until paid; checks meanwhile buy nothing more.
    await calls(c.customerId, 200, MAR(3), c.clockId);
    for (let i = 0; i < 3; i++) await check();
    let bought = await purchases();
    assert.equal(bought.length, 1);
    assert.deepEqual([bought[0].status, bought[0].amount, bought[0].cost], ['pending', '10.00', '9.00']);
    assert.equal((await ok(api.get(`/api/v1/invoices/${bought[0].invoiceId}`))).total, '9.00');
    await ok(api.post(`/api/v1/invoices/${bought[0].invoiceId}/pay`, {}));
    // 10.50 left: above both thresholds again; the next crossings may fire.
    assert.equal((await check()).creditsRemaining, '10.50');
    assert.deepEqual((await ok(api.get(`/api/v1/customers/${c.customerId}/credit_settings`))).data[0].autoTopUp.toppedUpThisPeriod, 1);

    // 10.00 more: 0.50 left: the alert again and a second top-up (the period's last).
    await calls(c.customerId, 1000, MAR(4), c.clockId);
    await check();
    bought = await purchases();
    assert.equal(bought.length, 2);
    await ok(api.post(`/api/v1/invoices/${bought[0].invoiceId}/pay`, {}));
    // 11.00 more: 0.50 short: exhausted, refused, and no third top-up this period.
    await calls(c.customerId, 1100, MAR(5), c.clockId);
    const refused = await check();
    assert.deepEqual([refused.allowed, refused.reason], [false, 'CREDITS_EXHAUSTED']);
    assert.equal((await purchases()).length, 2);
    assert.deepEqual(await messages(), [
      'credit_balance.low',
      'credit_grant.topped_up',
      'credit_balance.low',
      'credit_grant.topped_up',
      'credit_balance.exhausted',
    ]);
    // The ledger still sums to the balance.
    const entries = await ledger(c.customerId);
    const sum = entries.reduce((acc: Decimal, e: any) => acc.plus(e.amount), new Decimal(0));
    assert.equal(sum.toFixed(2), await balance(c.customerId));
  });

  it('400 names the field: a negative threshold, an amount of 0, one finer than the currency', async () => {
    const customer = await ok(api.post('/api/v1/customers', { name: 'Settings' }));
    const refused = async (currency: string, body: Record<string, unknown>, field: string) => {
      const res = await api.put(`/api/v1/customers/${customer.id}/credit_settings/${currency}`, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].field, field);
    };
    await refused('USD', { lowBalanceThreshold: '-1' }, 'body.lowBalanceThreshold');
    await refused('USD', { autoTopUp: { threshold: '1', amount: '0' } }, 'body.autoTopUp.amount');
    await refused('JPY', { autoTopUp: { threshold: '1.5', amount: '100' } }, 'body.autoTopUp.threshold');
    await refused('USD', { autoTopUp: { threshold: '1', amount: '5', maxPerPeriod: 0 } }, 'body.autoTopUp.maxPerPeriod');
  });
});

describe('PREPAID: held-out money cases through the API', () => {
  it('a void after a partial draw takes only what is left; what was drawn stays on the invoice', async () => {
    const c = await prepaidCustomer(MAR(1));
    const g = await grant(c.customerId, { amount: '5.00' });
    await calls(c.customerId, 200, MAR(4), c.clockId);
    await advance(c.clockId, Date.UTC(2026, 3, 1, 2));
    assert.deepEqual(lines(await cycleInvoice(c.subscriptionId)), [
      ['usage', '2.00', null],
      ['credits', '-2.00', g.id],
    ]);
    const voided = await ok(api.post(`/api/v1/credit_grants/${g.id}/void`, {}));
    assert.deepEqual([voided.status, voided.remaining, voided.amount], ['voided', '0.00', '5.00']);
    assert.deepEqual(
      (await ledger(c.customerId)).map((e: any) => [e.type, e.amount, e.balanceAfter]),
      [
        ['grant', '5.00', '5.00'],
        ['draw', '-2.00', '3.00'],
        ['void', '-3.00', '0.00'],
      ],
    );
    const again = await api.post(`/api/v1/credit_grants/${g.id}/void`, {});
    assert.equal(again.status, 409, 'nothing is left to void');
  });

  it('JPY: whole yen drawn; KWD: three decimals drawn, by hand', async () => {
    const jpyPlan = await ok(
      api.post('/api/v1/rate-plans', {
        name: 'Yen calls',
        currency: 'JPY',
        billingPeriod: 'MONTHLY',
        metrics: [{ metricName: 'calls', pricingModel: 'PER_UNIT', rate: '3' }],
      }),
    );
    const kwdPlan = await ok(
      api.post('/api/v1/rate-plans', {
        name: 'Dinar calls',
        currency: 'KWD',
        billingPeriod: 'MONTHLY',
        metrics: [{ metricName: 'calls', pricingModel: 'PER_UNIT', rate: '0.0125' }],
      }),
    );
    // 7 calls at 3 yen: 21 yen, from a 1,000 yen grant: 979 left. 9 calls at 0.0125 KWD: 0.113 (0.1125 rounded half up), from 0.100: 0.013 billed.
    for (const [currency, plan, amount, n, expected] of [
      [
        'JPY',
        jpyPlan.id,
        '1000',
        7,
        [
          ['usage', '21', null],
          ['credits', '-21', 'g'],
        ] as unknown[][],
      ],
      [
        'KWD',
        kwdPlan.id,
        '0.100',
        9,
        [
          ['usage', '0.113', null],
          ['credits', '-0.100', 'g'],
        ] as unknown[][],
      ],
    ] as const) {
      const clock = await ok(api.post('/api/v1/test_clocks', { frozenTime: iso(MAR(1)) }));
      const customer = await ok(api.post('/api/v1/customers', { name: `${currency} buyer`, testClockId: clock.id }));
      const off = await ok(
        api.post('/api/v1/offerings', {
          productId,
          name: `${currency} prepaid`,
          currency,
          billingPeriod: 'MONTHLY',
          billingMode: 'PREPAID',
          ratePlanIds: [plan],
        }),
      );
      const sub = await ok(api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: off.id }));
      const g = await ok(api.post('/api/v1/credit_grants', { customerId: customer.id, currency, amount }));
      await calls(customer.id, n, MAR(6), clock.id);
      await advance(clock.id, Date.UTC(2026, 3, 1, 2));
      const invoice = await cycleInvoice(sub.id);
      assert.deepEqual(
        lines(invoice),
        expected.map((l) => (l[2] === 'g' ? [l[0], l[1], g.id] : l)),
        currency,
      );
      assert.equal(invoice.total, currency === 'JPY' ? '0' : '0.013');
      assert.equal((await ok(api.get(`/api/v1/customers/${customer.id}/credit_balance`))).balances[0].balance, currency === 'JPY' ? '979' : '0.000');
    }
  });
});
