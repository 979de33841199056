import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';

/**
 * Plan changes and cancellations through the real HTTP API, on a test clock, grouped by what they
 * do: candidates and previews, IMMEDIATE changes (invoice or credit note), PERIOD_END changes
 * (applied by the renewal), cancellations, and refusals. Every amount is worked out by hand in the
 * comments: a 30-day April, changes on April 16 at 00:00 (15 days of 30 unused) unless said.
 */

let t: TestApp;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const APRIL = Date.UTC(2026, 3, 1);
const MAY = Date.UTC(2026, 4, 1);
const MID = Date.UTC(2026, 3, 16);
const iso = (ms: number) => new Date(ms).toISOString();

before(async () => {
  t = await createTestApp();
});
after(async () => t.close());
beforeEach(() => t.clock.set(APRIL));

interface World {
  env: DemoEnvironment;
  api: Client;
  clockId: string;
  customerId: string;
  /** Offering ids: Basic 30/mo, Twin 30/mo, Plus 60/mo, Yearly 360/yr (30 a month), Free (usage only); prices as `prices` says. */
  off: Record<'basic' | 'twin' | 'plus' | 'yearly' | 'free', string>;
}

const USD = { currency: 'USD', rate: '0.01', basic: '30', plus: '60', yearly: '360' };
type Prices = typeof USD;

/**
 * The demo workspace plus a small catalog of its own on the demo product: api_calls at 0.01 each
 * with 1,000 free a period, on every offering; a customer on a test clock frozen at April 1.
 */
async function world(prices: Prices = USD): Promise<World> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  const env = d.environments.test;
  const api = t.seed.client(env.secretKey);
  const ok = async (path: string, body: unknown) => {
    const res = await api.post(path, body);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const plan = async (billingPeriod: string) =>
    (
      await ok('/api/v1/rate-plans', {
        name: `Calls ${billingPeriod}`,
        currency: prices.currency,
        billingPeriod,
        metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: prices.rate, includedFree: 1000 }],
      })
    ).id as string;
  const monthly = await plan('MONTHLY');
  const annual = await plan('ANNUAL');
  const offering = async (name: string, entryPrice: string | null, billingPeriod = 'MONTHLY') =>
    (
      await ok('/api/v1/offerings', {
        productId: env.productId,
        name,
        currency: prices.currency,
        billingPeriod,
        entryPrice,
        ratePlanIds: [billingPeriod === 'ANNUAL' ? annual : monthly],
      })
    ).id as string;
  const off = {
    basic: await offering('Basic', prices.basic),
    twin: await offering('Twin', prices.basic),
    plus: await offering('Plus', prices.plus),
    yearly: await offering('Yearly', prices.yearly, 'ANNUAL'),
    free: await offering('Free', null),
  };
  const storefront = await ok('/api/v1/storefronts', { name: 'Plans', offeringIds: Object.values(off) });
  await ok(`/api/v1/storefronts/${storefront.id}/publish`, {});
  const clock = await ok('/api/v1/test_clocks', { frozenTime: iso(APRIL) });
  const customer = await ok('/api/v1/customers', { name: 'Clocked', externalId: 'clocked', testClockId: clock.id });
  return { env, api, clockId: clock.id, customerId: customer.id, off };
}

async function subscribe(w: World, offeringId: string) {
  const res = await w.api.post('/api/v1/subscriptions', { customerId: w.customerId, offeringId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string; version: number };
}

async function advance(w: World, to: number) {
  const res = await w.api.post(`/api/v1/test_clocks/${w.clockId}/advance`, { frozenTime: iso(to) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function calls(w: World, quantity: number, at: number) {
  const res = await w.api.post('/v1/ingest/batch', { events: [{ customerId: w.customerId, metricName: 'api_calls', quantity, occurredAt: iso(at) }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

type Line = { type: string; description: string; amount: string };
async function invoicesOf(w: World, subscriptionId: string) {
  const res = await w.api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return [...res.body.data].reverse() as Array<{ id: string; billingReason: string; status: string; total: string; creditedTotal: string; lines: Line[] }>;
}
const brief = (lines: Line[]) => lines.map((l) => [l.type, l.amount]);

const preview = (w: World, subId: string, body: unknown) => w.api.post(`/api/v1/subscriptions/${subId}/preview-change`, body);
const change = (w: World, subId: string, body: unknown, key = `k-${Math.random()}`) =>
  w.api.post(`/api/v1/subscriptions/${subId}/upgrade`, body, { 'idempotency-key': key });

describe('candidates and previews', () => {
  it('lists every published offering of the product and currency, cheapest per month first, each with its kind', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    const res = await w.api.get(`/api/v1/subscriptions/${sub.id}/change-candidates`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const got = res.body.data.map((c: { name: string; kind: string; priceText: string }) => [c.name, c.kind, c.priceText]);
    // The demo storefront's Pro (49 a month, or 490 a year: 40.83 a month) and Agents (199) are on
    // the same product too; Starter and Free are usage-only.
    assert.deepEqual(got, [
      ['Free', 'DOWNGRADE', 'Usage-based'],
      ['Starter', 'DOWNGRADE', 'Usage-based'],
      ['Twin', 'LATERAL', '$30.00/mo'],
      ['Yearly', 'LATERAL', '$360.00/yr'],
      ['Pro', 'UPGRADE', '$490.00/yr'],
      ['Pro', 'UPGRADE', '$49.00/mo'],
      ['Plus', 'UPGRADE', '$60.00/mo'],
      ['Agents', 'UPGRADE', '$199.00/mo'],
    ]);
  });

  it('previews an immediate upgrade with exactly the figures the change then invoices', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, APRIL + 4 * DAY);
    await calls(w, 1500, APRIL + 4 * DAY); // 500 over the 1,000 free: 5.00 on Basic
    await advance(w, MID);
    const p = await preview(w, sub.id, { offeringId: w.off.plus });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.object, 'change_preview');
    assert.equal(p.body.action, 'UPGRADE');
    assert.deepEqual(
      [p.body.credit, p.body.debit, p.body.netChargeToday, p.body.usageToDate, p.body.invoiceTotal, p.body.nextRenewalAt, p.body.nextRenewalAmount],
      ['15.00', '30.00', '15.00', '5.00', '20.00', iso(MAY), '60.00'],
    );
    assert.equal(
      p.body.summary,
      'Switch to Plus now. $30.00 for the rest of this period, less $15.00 for unused time on Basic: $15.00 today. Usage so far ($5.00) is billed now. From May 1, 2026: $60.00/mo.',
    );
    const done = await change(w, sub.id, { offeringId: w.off.plus, expectedVersion: p.body.subscriptionVersion });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const invoice = (await invoicesOf(w, sub.id)).find((i) => i.id === done.body.invoiceId)!;
    assert.equal(invoice.total, p.body.invoiceTotal);
    assert.deepEqual(brief(invoice.lines), [
      ['proration', p.body.debit],
      ['proration', `-${p.body.credit}`],
      ['usage', p.body.usageToDate],
    ]);
  });

  it('previews a cancellation now without a refund figure; the credit note comes with the result', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const p = await preview(w, sub.id, { cancel: true, reason: 'TOO_EXPENSIVE' });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual([p.body.action, p.body.credit, p.body.netChargeToday, p.body.nextRenewalAt], ['CANCEL', null, null, null]);
    assert.equal(p.body.summary, 'Cancel now: Basic ends immediately and its API keys stop working. Unused time is credited on a credit note.');
    const again = await preview(w, sub.id, { cancel: true, applyAt: 'PERIOD_END' });
    assert.equal(again.body.effectiveAt, iso(MAY));
    assert.equal(again.body.summary, 'Cancel on May 1, 2026: Basic stays active until then, and nothing is charged after it.');
  });
});

describe('every apply-at × change kind, through the renewal that follows', () => {
  // 1,500 calls on April 5 (500 over the 1,000 free: 5.00) and 700 on April 20. IMMEDIATE: the
  // first 5.00 on the change's invoice; after it the allowance is used up, so 700 x 0.01 = 7.00 at
  // the renewal. PERIOD_END: the whole period on the old plan at the renewal, 1,200 over: 12.00.
  type Row = {
    applyAt: 'IMMEDIATE' | 'PERIOD_END';
    from: keyof World['off'];
    to: keyof World['off'];
    kind: string;
    changeInvoice: Array<[string, string]> | null;
    creditNote: string | null;
    renewal: Array<[string, string]>;
  };
  const rows: Row[] = [
    {
      applyAt: 'IMMEDIATE',
      from: 'basic',
      to: 'plus',
      kind: 'UPGRADE',
      changeInvoice: [
        ['proration', '30.00'],
        ['proration', '-15.00'],
        ['usage', '5.00'],
      ],
      creditNote: null,
      renewal: [
        ['entry_price', '60.00'],
        ['usage', '7.00'],
      ],
    },
    {
      applyAt: 'IMMEDIATE',
      from: 'plus',
      to: 'basic',
      kind: 'DOWNGRADE',
      changeInvoice: [
        ['proration', '15.00'],
        ['usage', '5.00'],
      ],
      creditNote: '30.00',
      renewal: [
        ['entry_price', '30.00'],
        ['usage', '7.00'],
      ],
    },
    {
      applyAt: 'IMMEDIATE',
      from: 'basic',
      to: 'twin',
      kind: 'LATERAL',
      changeInvoice: [
        ['proration', '15.00'],
        ['proration', '-15.00'],
        ['usage', '5.00'],
      ],
      creditNote: null,
      renewal: [
        ['entry_price', '30.00'],
        ['usage', '7.00'],
      ],
    },
    {
      applyAt: 'PERIOD_END',
      from: 'basic',
      to: 'plus',
      kind: 'UPGRADE',
      changeInvoice: null,
      creditNote: null,
      renewal: [
        ['entry_price', '60.00'],
        ['usage', '12.00'],
      ],
    },
    {
      applyAt: 'PERIOD_END',
      from: 'plus',
      to: 'basic',
      kind: 'DOWNGRADE',
      changeInvoice: null,
      creditNote: null,
      renewal: [
        ['entry_price', '30.00'],
        ['usage', '12.00'],
      ],
    },
    {
      applyAt: 'PERIOD_END',
      from: 'basic',
      to: 'yearly',
      kind: 'LATERAL',
      changeInvoice: null,
      creditNote: null,
      renewal: [
        ['entry_price', '360.00'],
        ['usage', '12.00'],
      ],
    },
  ];
  for (const r of rows) {
    it(`${r.applyAt} ${r.kind}: ${r.from} to ${r.to}`, async () => {
      const w = await world();
      const sub = await subscribe(w, w.off[r.from]);
      await advance(w, APRIL + 4 * DAY);
      await calls(w, 1500, APRIL + 4 * DAY);
      await advance(w, MID);
      const p = await preview(w, sub.id, { offeringId: w.off[r.to], applyAt: r.applyAt });
      assert.equal(p.status, 200, JSON.stringify(p.body));
      assert.equal(p.body.action, r.kind);
      const done = await change(w, sub.id, { offeringId: w.off[r.to], applyAt: r.applyAt, expectedVersion: p.body.subscriptionVersion });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.status, r.applyAt === 'IMMEDIATE' ? 'ACTIVE' : 'ACTIVE_PENDING_CHANGE');
      const invoices = await invoicesOf(w, sub.id);
      const changeInvoice = invoices.find((i) => i.billingReason === 'subscription_update');
      assert.deepEqual(changeInvoice ? brief(changeInvoice.lines) : null, r.changeInvoice);
      assert.equal(done.body.invoiceId, changeInvoice?.id ?? null);
      // The preview's figures are the amounts issued.
      assert.equal(p.body.invoiceTotal, changeInvoice?.total ?? null);
      assert.equal(done.body.creditNoteAmount, r.creditNote);
      if (r.creditNote) assert.equal(p.body.credit, r.creditNote);
      if (r.applyAt === 'PERIOD_END') assert.equal(done.body.scheduledAt, iso(MAY));
      await advance(w, MID + 4 * DAY);
      await calls(w, 700, MID + 4 * DAY);
      await advance(w, MAY + 2 * HOUR);
      const renewal = (await invoicesOf(w, sub.id)).find((i) => i.billingReason === 'subscription_cycle')!;
      assert.deepEqual(brief(renewal.lines), r.renewal);
      assert.equal(renewal.status, 'finalized');
      const after = (await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body;
      assert.deepEqual([after.status, after.offeringId], ['ACTIVE', w.off[r.to]]);
      // Yearly bills on another period: its schedule restarts at the renewal that applies it.
      if (r.to === 'yearly')
        assert.deepEqual([after.billingPeriod, after.currentPeriodStart, after.currentPeriodEnd], ['ANNUAL', iso(MAY), '2027-05-01T00:00:00.000Z']);
      const event = r.kind === 'UPGRADE' ? 'subscription.upgraded' : r.kind === 'DOWNGRADE' ? 'subscription.downgraded' : 'subscription.plan_changed';
      const events = await w.api.get(`/v1/events?targetId=${sub.id}&type=${event}`);
      assert.equal(events.body.data.length, 1, `${event} once`);
    });
  }
});

describe('minor units', () => {
  // Changes on April 21 (10 of 30 days unused).
  const cases: Array<[string, Prices, [string, string, string]]> = [
    [
      'JPY has none: 10/30 of 3,000 is 1,000; of 10,000 is 3,333.3 (3,333)',
      { currency: 'JPY', rate: '1', basic: '3000', plus: '10000', yearly: '36000' },
      ['1000', '3333', '2333'],
    ],
    [
      'KWD has three: 10/30 of 10.001 is 3.3336… (3.333); of 20.003 is 6.6676… (6.667): both rounded down',
      { currency: 'KWD', rate: '0.005', basic: '10.001', plus: '20.003', yearly: '120.012' },
      ['3.333', '6.667', '3.334'],
    ],
  ];
  for (const [rule, prices, [credit, debit, net]] of cases) {
    it(rule, async () => {
      const w = await world(prices);
      const sub = await subscribe(w, w.off.basic);
      await advance(w, Date.UTC(2026, 3, 21));
      const p = await preview(w, sub.id, { offeringId: w.off.plus });
      assert.deepEqual([p.body.credit, p.body.debit, p.body.netChargeToday], [credit, debit, net]);
      const done = await change(w, sub.id, { offeringId: w.off.plus });
      const inv = (await invoicesOf(w, sub.id)).find((i) => i.id === done.body.invoiceId)!;
      assert.equal(inv.total, p.body.invoiceTotal);
      assert.deepEqual(brief(inv.lines).slice(0, 2), [
        ['proration', debit],
        ['proration', `-${credit}`],
      ]);
    });
  }
});

describe('IMMEDIATE changes', () => {
  it('an upgrade: one invoice finalized at once (debit, credit, usage so far), entitlements at once, and the rest of the period rated on the new plan with what is left of the allowance', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, APRIL + 4 * DAY);
    await calls(w, 1500, APRIL + 4 * DAY);
    await advance(w, MID);
    const done = await change(w, sub.id, { offeringId: w.off.plus });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(
      [done.body.object, done.body.action, done.body.status, done.body.offeringName, done.body.creditNoteId, done.body.channel],
      ['subscription_change', 'UPGRADE', 'ACTIVE', 'Plus', null, 'API'],
    );
    assert.match(done.body.invoiceId, /^inv_/);
    assert.equal(done.body.subscription.offeringId, w.off.plus);
    assert.deepEqual([done.body.subscription.currentPeriodStart, done.body.subscription.currentPeriodEnd], [iso(MID), iso(MAY)]);
    const invoices = await invoicesOf(w, sub.id);
    const inv = invoices.find((i) => i.id === done.body.invoiceId)!;
    assert.deepEqual([inv.billingReason, inv.status, inv.total], ['subscription_update', 'finalized', '20.00']);
    // 200 more calls after the change: the 1,500 before already used the period's 1,000 free.
    await advance(w, MID + 4 * DAY);
    await calls(w, 200, MID + 4 * DAY);
    await advance(w, MAY + 2 * HOUR);
    const cycle = (await invoicesOf(w, sub.id)).find((i) => i.billingReason === 'subscription_cycle')!;
    assert.deepEqual(brief(cycle.lines), [
      ['entry_price', '60.00'],
      ['usage', '2.00'],
    ]);
    const events = await w.api.get(`/v1/events?targetId=${sub.id}&type=subscription.upgraded`);
    assert.equal(events.body.data.length, 1);
    assert.deepEqual([events.body.data[0].payload.credit, events.body.data[0].payload.debit], ['15.00', '30.00']);
  });

  it('a downgrade: a credit note for the unused time against the invoice that charged it, and an invoice for the rest of the period', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.plus);
    await advance(w, MID);
    const p = await preview(w, sub.id, { offeringId: w.off.basic });
    assert.deepEqual(
      [p.body.action, p.body.credit, p.body.debit, p.body.netChargeToday, p.body.invoiceTotal],
      ['DOWNGRADE', '30.00', '15.00', '-15.00', '15.00'],
    );
    const done = await change(w, sub.id, { offeringId: w.off.basic });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.match(done.body.creditNoteId, /^cn_/);
    assert.equal(done.body.creditNoteAmount, '30.00');
    const note = (await w.api.get(`/api/v1/credit_notes/${done.body.creditNoteId}`)).body;
    assert.deepEqual([note.reason, note.total], ['proration', '30.00']);
    const invoices = await invoicesOf(w, sub.id);
    const first = invoices.find((i) => i.billingReason === 'subscription_create')!;
    assert.equal(note.invoiceId, first.id);
    assert.deepEqual([first.status, first.creditedTotal], ['finalized', '30.00']);
    const rest = invoices.find((i) => i.id === done.body.invoiceId)!;
    // Usage lines are there for every priced unit, as on renewals: none was used.
    assert.deepEqual(brief(rest.lines), [
      ['proration', '15.00'],
      ['usage', '0.00'],
    ]);
    // A second change in the same period credits the 15.00 paid for its rest, not the 60.00.
    await advance(w, MID + 5 * DAY); // 10 of the 15 days left
    const second = await preview(w, sub.id, { offeringId: w.off.free });
    assert.deepEqual([second.body.credit, second.body.debit], ['10.00', '0.00']);
  });

  it('a change to another billing period restarts the period at the change (Stripe’s rule)', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const done = await change(w, sub.id, { offeringId: w.off.yearly });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.action, 'LATERAL');
    const s = done.body.subscription;
    assert.deepEqual([s.billingPeriod, s.currentPeriodStart, s.currentPeriodEnd], ['ANNUAL', iso(MID), '2027-04-16T00:00:00.000Z']);
    const inv = (await invoicesOf(w, sub.id)).find((i) => i.id === done.body.invoiceId)!;
    assert.deepEqual(brief(inv.lines), [
      ['entry_price', '360.00'],
      ['proration', '-15.00'],
      ['usage', '0.00'],
    ]);
    assert.equal(inv.total, '345.00');
  });

  it('late usage of an earlier, finalized period is not on the change’s invoice (it matches its preview) but on the next renewal’s', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MAY + 2 * HOUR); // April's renewal invoice finalized: no usage
    await calls(w, 1500, MAY - 10 * DAY); // late, for April: 500 over, 5.00
    const JUNE = Date.UTC(2026, 5, 1);
    const midMay = Date.UTC(2026, 4, 16, 12); // 15.5 of 31 days unused
    await advance(w, midMay);
    const p = await preview(w, sub.id, { offeringId: w.off.plus });
    const done = await change(w, sub.id, { offeringId: w.off.plus });
    const inv = (await invoicesOf(w, sub.id)).find((i) => i.id === done.body.invoiceId)!;
    assert.equal(inv.total, p.body.invoiceTotal);
    assert.ok(!inv.lines.some((l) => l.type === 'adjustment'));
    await advance(w, JUNE + 2 * HOUR);
    const june = (await invoicesOf(w, sub.id)).filter((i) => i.billingReason === 'subscription_cycle').at(-1)!;
    assert.deepEqual(
      june.lines.filter((l) => l.type === 'adjustment').map((l) => l.amount),
      ['5.00'],
    );
  });

  it('the same Idempotency-Key changes once and replays the result', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const a = await change(w, sub.id, { offeringId: w.off.plus }, 'double-click');
    const b = await change(w, sub.id, { offeringId: w.off.plus }, 'double-click');
    assert.equal(b.status, 200);
    assert.equal(b.headers['idempotent-replayed'], 'true');
    assert.equal(b.body.invoiceId, a.body.invoiceId);
    assert.equal((await invoicesOf(w, sub.id)).filter((i) => i.billingReason === 'subscription_update').length, 1);
  });
});

describe('PERIOD_END changes', () => {
  it('an upgrade waits for the renewal: nothing billed now, ACTIVE_PENDING_CHANGE, then the new offering from the period end', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const p = await preview(w, sub.id, { offeringId: w.off.plus, applyAt: 'PERIOD_END' });
    assert.deepEqual([p.body.credit, p.body.debit, p.body.invoiceTotal, p.body.nextRenewalAmount], ['0.00', '0.00', null, '60.00']);
    const done = await change(w, sub.id, { offeringId: w.off.plus, applyAt: 'PERIOD_END' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual([done.body.status, done.body.scheduledAt, done.body.invoiceId, done.body.offeringName], ['ACTIVE_PENDING_CHANGE', iso(MAY), null, 'Plus']);
    assert.equal(done.body.subscription.offeringId, w.off.basic, 'entitlements stay until the renewal');
    assert.equal((await invoicesOf(w, sub.id)).length, 1);
    await advance(w, MID + DAY);
    await calls(w, 1200, MID + DAY); // 200 over on Basic: 2.00
    await advance(w, MAY + 2 * HOUR);
    const after = (await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual([after.status, after.offeringId, after.scheduledChange], ['ACTIVE', w.off.plus, null]);
    const cycle = (await invoicesOf(w, sub.id)).find((i) => i.billingReason === 'subscription_cycle')!;
    assert.deepEqual(brief(cycle.lines), [
      ['entry_price', '60.00'],
      ['usage', '2.00'],
    ]);
    const events = await w.api.get(`/v1/events?targetId=${sub.id}&type=subscription.upgraded`);
    assert.equal(events.body.data[0].payload.applyAt, 'PERIOD_END');
  });

  it('a downgrade to a usage-only offering at the period end: the renewal charges no entry price', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.plus);
    await advance(w, MID);
    const done = await change(w, sub.id, { offeringId: w.off.free, applyAt: 'PERIOD_END' });
    assert.equal(done.body.action, 'DOWNGRADE');
    await advance(w, MAY + 2 * HOUR);
    const cycle = (await invoicesOf(w, sub.id)).find((i) => i.billingReason === 'subscription_cycle')!;
    assert.deepEqual(brief(cycle.lines), [['usage', '0.00']], 'no entry price on Free');
    assert.equal((await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body.offeringId, w.off.free);
  });

  it('a pending change can be withdrawn; another change is refused while one waits', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await change(w, sub.id, { offeringId: w.off.plus, applyAt: 'PERIOD_END' });
    const refused = await change(w, sub.id, { offeringId: w.off.free });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.errors[0].code, 'CHANGE_PENDING');
    const withdrawn = await w.api.post(`/api/v1/subscriptions/${sub.id}/withdraw-change`, {});
    assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.body));
    assert.deepEqual([withdrawn.body.status, withdrawn.body.scheduledChange], ['ACTIVE', null]);
    assert.equal((await w.api.post(`/api/v1/subscriptions/${sub.id}/withdraw-change`, {})).status, 409);
    await advance(w, MAY + 2 * HOUR);
    assert.equal((await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body.offeringId, w.off.basic);
  });
});

describe('cancellations', () => {
  it('now: the unused time on a credit note, the keys revoked at once', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    const key = await w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'k', subscriptionId: sub.id });
    assert.equal(key.status, 200, JSON.stringify(key.body));
    await advance(w, MID);
    const res = await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'UNUSED' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'CANCELLED');
    const notes = (await w.api.get(`/api/v1/credit_notes?limit=10`)).body.data.filter((n: { subscriptionId: string }) => n.subscriptionId === sub.id);
    assert.deepEqual(
      notes.map((n: { total: string; reason: string }) => [n.total, n.reason]),
      [['15.00', 'proration']],
    );
    // The operator's answer is the widget's change result: the credit note, its amount, when.
    assert.deepEqual(
      [res.body.object, res.body.action, res.body.applyAt, res.body.channel, res.body.creditNoteId, res.body.creditNoteAmount, res.body.effectiveAt],
      ['subscription_change', 'CANCEL', 'IMMEDIATE', 'API', notes[0].id, '15.00', iso(MID)],
    );
    assert.match(res.body.invoiceId, /^inv_/, 'the last usage invoice');
    // In the subscription's time (its test clock's), not the server's.
    const details = { reason: 'UNUSED', cancel_channel: 'API', comment: null, requestedAt: iso(MID) };
    assert.deepEqual([res.body.subscription.status, res.body.subscription.cancellationDetails], ['CANCELLED', details]);
    assert.deepEqual((await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body.cancellationDetails, details);
    assert.equal((await w.api.get(`/api/v1/api-keys/${key.body.id}`)).body.status, 'REVOKED');
    const cancelled = await w.api.get(`/v1/events?targetId=${sub.id}&type=subscription.cancelled`);
    assert.deepEqual([cancelled.body.data[0].payload.reason, cancelled.body.data[0].payload.channel], ['UNUSED', 'API']);
  });

  it('at the period end: the keys keep working until the renewal cancels it', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    const key = await w.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'k', subscriptionId: sub.id });
    await advance(w, MID);
    const res = await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'OTHER', applyAt: 'PERIOD_END', comment: 'Project over' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.status, res.body.subscription.cancelAtPeriodEnd], ['ACTIVE_PENDING_CHANGE', true]);
    assert.deepEqual([res.body.effectiveAt, res.body.creditNoteId, res.body.creditNoteAmount], [iso(MAY), null, null]);
    const details = { reason: 'OTHER', cancel_channel: 'API', comment: 'Project over', requestedAt: iso(MID) };
    assert.deepEqual(res.body.subscription.cancellationDetails, details);
    assert.equal((await w.api.get(`/api/v1/api-keys/${key.body.id}`)).body.status, 'ACTIVE');
    await advance(w, MAY + 2 * HOUR);
    const after = (await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual([after.status, after.cancellationDetails], ['CANCELLED', details], 'the renewal keeps how it was asked for');
    assert.equal((await w.api.get(`/api/v1/api-keys/${key.body.id}`)).body.status, 'REVOKED');
  });
});

describe('how a cancellation was made', () => {
  it('PATCH cancelAtPeriodEnd keeps cancel_channel API; a withdrawal clears the details; a cancel now replaces a scheduled one’s', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    await advance(w, MID);
    const patched = await w.api.patch(`/api/v1/subscriptions/${sub.id}`, { cancelAtPeriodEnd: true });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.cancellationDetails, { reason: null, cancel_channel: 'API', comment: null, requestedAt: iso(MID) });
    const withdrawn = await w.api.post(`/api/v1/subscriptions/${sub.id}/withdraw-change`, {});
    assert.deepEqual([withdrawn.body.status, withdrawn.body.cancellationDetails], ['ACTIVE', null]);

    await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'TOO_EXPENSIVE', applyAt: 'PERIOD_END' });
    await advance(w, MID + DAY);
    const now = await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'UNUSED', comment: 'Not needed after all' });
    assert.equal(now.status, 200, JSON.stringify(now.body));
    const details = { reason: 'UNUSED', cancel_channel: 'API', comment: 'Not needed after all', requestedAt: iso(MID + DAY) };
    assert.deepEqual((await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body.cancellationDetails, details);
  });
});

describe('refusals', () => {
  it('a submit against a subscription that changed since its preview: 409 SUBSCRIPTION_CHANGED, nothing changed', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    const p = await preview(w, sub.id, { offeringId: w.off.plus });
    await w.api.patch(`/api/v1/subscriptions/${sub.id}`, { metadata: { note: 'edited' } });
    const res = await change(w, sub.id, { offeringId: w.off.plus, expectedVersion: p.body.subscriptionVersion });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'SUBSCRIPTION_CHANGED');
    assert.equal(res.body.errors[0].field, 'body.expectedVersion');
    assert.equal((await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body.offeringId, w.off.basic);
  });

  it('bad requests name the field', async () => {
    const w = await world();
    const sub = await subscribe(w, w.off.basic);
    const noKey = await w.api.post(`/api/v1/subscriptions/${sub.id}/upgrade`, { offeringId: w.off.plus });
    assert.deepEqual([noKey.status, noKey.body.errors[0].field], [400, 'headers.idempotency-key']);
    const same = await change(w, sub.id, { offeringId: w.off.basic });
    assert.deepEqual([same.status, same.body.errors[0].field], [400, 'body.offeringId']);
    const unknown = await change(w, sub.id, { offeringId: 'off_nope' });
    assert.equal(unknown.status, 404);
    const both = await preview(w, sub.id, { offeringId: w.off.plus, cancel: true });
    assert.deepEqual([both.status, both.body.errors[0].field], [400, 'body.offeringId']);
    const badReason = await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'BORED' });
    assert.deepEqual([badReason.status, badReason.body.errors[0].field], [400, 'body.reason']);
    const longComment = await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { reason: 'OTHER', comment: 'x'.repeat(501) });
    assert.deepEqual([longComment.status, longComment.body.errors[0].field], [400, 'body.comment']);
    const untouched = (await w.api.get(`/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual([untouched.status, untouched.cancellationDetails], ['ACTIVE', null], 'nothing kept from a refused cancel');
    assert.equal((await preview(w, 'sub_nope', { cancel: true })).status, 404);
    const longest = await w.api.post(`/api/v1/subscriptions/${sub.id}/cancel`, { comment: 'x'.repeat(500) });
    assert.equal(longest.status, 200, JSON.stringify(longest.body));
    assert.equal(longest.body.subscription.cancellationDetails.comment.length, 500, 'a comment of 500 characters is kept whole');
    const gone = await change(w, sub.id, { offeringId: w.off.plus });
    assert.deepEqual([gone.status, gone.body.errors[0].code], [409, 'SUBSCRIPTION_NOT_ACTIVE']);
  });
});
