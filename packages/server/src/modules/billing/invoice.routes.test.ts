import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';
import { boundCredentials } from '../authentication/bound-credentials.js';
import { findSubscription, updateSubscriptionIfVersion } from '../subscriptions/subscription.repository.js';
import { runBilling } from './run-billing.js';

/**
 * Invoices through the real HTTP API, grouped by status: drafts (issued at subscribing and by
 * renewals), finalized (numbered, frozen, late usage as adjustments), paid/void/uncollectible,
 * credit notes, and test clocks driving renewals. The billing job runs as the scheduler runs it
 * (runBilling on real time); test clocks run it through POST /advance.
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
  ctx: { workspaceId: string; environment: 'test' };
}

async function demo(): Promise<Demo> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  return { env: d.environments.test, api: t.seed.client(d.environments.test.secretKey), ctx: { workspaceId: d.workspaceId, environment: 'test' } };
}

/** The billing job on real time, as the scheduler runs it. */
const runJob = () => runBilling(t.deps, boundCredentials, { testClock: null });

/**
 * Sends events as they happen: real time is moved up to the latest of them first (never back),
 * unless the customer lives on a test clock (`onClock`), whose time is what its events are checked against.
 */
async function ingest(api: Client, customerId: string, events: Array<{ metricName: string; quantity: number; at: number }>, opts = { onClock: false }) {
  if (!opts.onClock) t.clock.set(Math.max(t.clock.now(), ...events.map((e) => e.at)));
  const res = await api.post('/v1/ingest/batch', {
    events: events.map((e) => ({ customerId, metricName: e.metricName, quantity: e.quantity, occurredAt: iso(e.at) })),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

type Line = { type: string; metricName: string | null; amount: string; periodStart: string; periodEnd: string; adjustsInvoiceId: string | null };
const brief = (lines: Line[]) => lines.map((l) => [l.type, l.metricName, l.amount]);

async function invoicesOf(api: Client, subscriptionId: string) {
  const res = await api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // Newest first in the list; oldest first is easier to read here.
  return [...res.body.data].reverse();
}

describe('draft invoices', () => {
  it('subscribing issues a draft: the first period’s entry price, in advance', async () => {
    const { env, api } = await demo();
    const [inv, ...rest] = await invoicesOf(api, env.subscriptionId);
    assert.equal(rest.length, 0);
    assert.match(inv.id, /^inv_/);
    assert.equal(inv.object, 'invoice');
    assert.equal(inv.status, 'draft');
    assert.equal(inv.number, null);
    assert.equal(inv.billingReason, 'subscription_create');
    assert.equal(inv.customerId, env.customerId);
    assert.deepEqual(brief(inv.lines), [['entry_price', null, '49.00']]);
    assert.deepEqual([inv.periodStart, inv.periodEnd], [iso(START), '2026-02-15T12:00:00.000Z']);
    assert.equal(inv.finalizeAt, iso(START + HOUR), 'the default grace period is an hour');
    assert.deepEqual([inv.total, inv.amountRemaining, inv.creditedTotal, inv.amountPaid], ['49.00', '49.00', '0.00', '0.00']);
    assert.match(inv.priceVersionId, /^pv_/);
    const customers = await api.get(`/api/v1/customers/${env.customerId}/invoices`);
    assert.deepEqual(
      customers.body.data.map((i: { id: string }) => i.id),
      [inv.id],
    );
  });

  it('a renewal issues a draft with the closed period’s usage in arrears and the next period’s entry price in advance, once', async () => {
    const { env, api } = await demo();
    await ingest(api, 'acme', [
      { metricName: 'api_calls', quantity: 123_456, at: START + DAY },
      { metricName: 'tokens', quantity: 2_500_000, at: START + 2 * DAY },
      { metricName: 'seats', quantity: 7, at: START + 3 * DAY },
    ]);
    const end = Date.UTC(2026, 1, 15, 12);
    t.clock.set(end + 5 * 60_000);
    await runJob();
    const invoices = await invoicesOf(api, env.subscriptionId);
    const cycle = invoices.find((i) => i.billingReason === 'subscription_cycle');
    assert.deepEqual(brief(cycle.lines), [
      ['entry_price', null, '49.00'],
      ['usage', 'api_calls', '36.00'],
      ['usage', 'tokens', '25.00'],
      ['usage', 'seats', '40.00'],
    ]);
    assert.deepEqual([cycle.lines[0].periodStart, cycle.lines[0].periodEnd], [iso(end), '2026-03-15T12:00:00.000Z'], 'entry price: the coming period');
    assert.deepEqual([cycle.lines[1].periodStart, cycle.lines[1].periodEnd], [iso(START), iso(end)], 'usage: the closed period');
    assert.deepEqual([cycle.periodStart, cycle.periodEnd, cycle.total], [iso(START), iso(end), '150.00']);
    assert.equal(cycle.finalizeAt, iso(end + HOUR), 'the grace period runs from the period end');
    const sub = (await api.get(`/api/v1/subscriptions/${env.subscriptionId}`)).body;
    assert.deepEqual([sub.currentPeriodStart, sub.currentPeriodEnd], [iso(end), '2026-03-15T12:00:00.000Z']);
    const events = await api.get(`/v1/events?targetId=${env.subscriptionId}&limit=100`);
    assert.ok(events.body.data.some((e: { eventType: string }) => e.eventType === 'subscription.renewed'));
    // Again, as a second node would: nothing is issued twice.
    await runJob();
    assert.equal((await invoicesOf(api, env.subscriptionId)).filter((i) => i.billingReason === 'subscription_cycle').length, 1);
  });

  it('cancelling now bills the period’s usage so far on a last invoice', async () => {
    const { env, api } = await demo();
    await ingest(api, 'acme', [{ metricName: 'seats', quantity: 7, at: START + DAY }]);
    t.clock.set(START + 2 * DAY);
    const cancelled = await api.post(`/api/v1/subscriptions/${env.subscriptionId}/cancel`, {});
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const last = (await invoicesOf(api, env.subscriptionId)).find((i) => i.billingReason === 'subscription_cancel');
    assert.deepEqual([last.periodStart, last.periodEnd, last.status, last.total], [iso(START), iso(START + 2 * DAY), 'draft', '40.00']);
    assert.deepEqual(brief(last.lines), [
      ['usage', 'api_calls', '0.00'],
      ['usage', 'tokens', '0.00'],
      ['usage', 'seats', '40.00'],
    ]);
  });

  it('an event at 11:59:59.999 before a noon renewal is billed in the closed period, one at 12:00:00.000 in the next', async () => {
    const { env, api } = await demo();
    const end = Date.UTC(2026, 1, 15, 12);
    t.clock.set(end + 60_000);
    await ingest(api, 'acme', [
      { metricName: 'seats', quantity: 3, at: end - 1 },
      { metricName: 'seats', quantity: 30, at: end },
    ]);
    await runJob();
    const cycle = (await invoicesOf(api, env.subscriptionId)).find((i) => i.billingReason === 'subscription_cycle');
    const seats = cycle.lines.find((l: Line) => l.metricName === 'seats');
    // STAIRCASE: 3 seats land in the first step (a flat 0 up to 5 in the demo: see the demo catalog).
    const upcoming = (await api.get(`/api/v1/subscriptions/${env.subscriptionId}/upcoming-invoice`)).body;
    const next = upcoming.lines.find((l: Line) => l.metricName === 'seats');
    assert.equal(seats.quantity, '3');
    assert.equal(next.quantity, '30');
  });
});

describe('finalized invoices', () => {
  it('the job finalizes each draft once its grace period has passed, with gapless numbers in period order', async () => {
    const { env, api } = await demo();
    t.clock.set(START + HOUR - 1);
    await runJob();
    assert.equal((await invoicesOf(api, env.subscriptionId))[0].status, 'draft', 'still in its grace period');
    t.clock.set(START + HOUR);
    await runJob();
    const [first] = await invoicesOf(api, env.subscriptionId);
    assert.equal(first.status, 'finalized');
    assert.equal(first.number, 'INV-2026-000001');
    assert.equal(first.finalizedAt, iso(START + HOUR));
    t.clock.set(Date.UTC(2026, 1, 15, 13));
    await runJob();
    const numbers = (await invoicesOf(api, env.subscriptionId)).map((i) => [i.billingReason, i.status, i.number]);
    assert.deepEqual(numbers, [
      ['subscription_create', 'finalized', 'INV-2026-000001'],
      ['subscription_cycle', 'finalized', 'INV-2026-000002'],
    ]);
    const finalized = await api.get(`/v1/events?type=invoice.finalized&limit=10`);
    assert.equal(finalized.body.data.length, 2, JSON.stringify(finalized.body));
  });

  it('usage that arrives in the grace period lands on the draft; after finalization it becomes an adjustment on the next invoice, and the finalized one never changes', async () => {
    const { env, api } = await demo();
    const end = Date.UTC(2026, 1, 15, 12);
    await ingest(api, 'acme', [{ metricName: 'api_calls', quantity: 100_000, at: START + DAY }]);
    t.clock.set(end + 10 * 60_000);
    await runJob(); // the renewal: a draft
    // In the grace period: 2,000 more calls of the closed period.
    await ingest(api, 'acme', [{ metricName: 'api_calls', quantity: 2_000, at: end - 60_000 }]);
    t.clock.set(end + HOUR);
    await runJob(); // finalized, with them
    const cycle = (await invoicesOf(api, env.subscriptionId)).find((i) => i.billingReason === 'subscription_cycle');
    assert.equal(cycle.status, 'finalized');
    assert.deepEqual(
      cycle.lines.find((l: Line) => l.metricName === 'api_calls'),
      { ...cycle.lines.find((l: Line) => l.metricName === 'api_calls'), quantity: '102000', amount: '3.00' },
      '2,000 over 100,000 free: 2 blocks of 1,000 at 1.50',
    );
    // Later still: 1,500 more calls of that period, and a new price for the offering.
    await ingest(api, 'acme', [{ metricName: 'api_calls', quantity: 1_500, at: end - 30_000 }]);
    const pro = (await api.get(`/api/v1/offerings/${env.offeringId}`)).body;
    await api.patch(`/api/v1/offerings/${env.offeringId}`, { overrides: [{ ratePlanId: pro.ratePlanIds[0], metricName: 'api_calls', rate: '9' }] });
    const frozen = (await api.get(`/api/v1/invoices/${cycle.id}`)).body;
    assert.deepEqual(frozen, cycle, 'a finalized invoice never changes');
    // The next renewal bills the late usage at the prices of the period it belongs to.
    t.clock.set(Date.UTC(2026, 2, 15, 12) + HOUR);
    await runJob();
    const next = (await invoicesOf(api, env.subscriptionId)).filter((i) => i.billingReason === 'subscription_cycle')[1];
    assert.equal(next.status, 'finalized');
    const adjustment = next.lines.find((l: Line) => l.type === 'adjustment');
    // 103,500 calls: 4 blocks (6.00) against the 3.00 billed.
    assert.equal(adjustment.amount, '3.00');
    assert.equal(adjustment.adjustsInvoiceId, cycle.id);
    assert.deepEqual([adjustment.periodStart, adjustment.periodEnd], [iso(START), iso(end)]);
    assert.match(adjustment.description, /INV-2026-000002/);
    // And the entry price of the period after that: the offering's new prices apply from the next period.
    const apiCalls = next.lines.find((l: Line) => l.metricName === 'api_calls');
    assert.equal(apiCalls.rate, '1.5', 'the period that had started keeps its prices');
  });

  it('POST /finalize finalizes a draft now; 409 for an invoice that is not a draft; 404 for an unknown one', async () => {
    const { env, api } = await demo();
    const [draft] = await invoicesOf(api, env.subscriptionId);
    const res = await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'finalized');
    assert.equal(res.body.number, 'INV-2026-000001');
    const again = await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    assert.equal(again.status, 409);
    assert.equal((await api.post('/api/v1/invoices/inv_nope/finalize', {})).status, 404);
  });

  it('collection: charge_automatically by default with no due date; send_invoice sets the due date at finalization, daysUntilDue later', async () => {
    const { env, api } = await demo();
    const defaults = (await api.get('/api/v1/billing/settings')).body;
    assert.deepEqual([defaults.collectionMethod, defaults.daysUntilDue], ['charge_automatically', 30]);
    const [first] = await invoicesOf(api, env.subscriptionId);
    assert.deepEqual([first.collectionMethod, first.dueDate, first.amountDue], ['charge_automatically', null, '49.00']);
    const finalizedFirst = (await api.post(`/api/v1/invoices/${first.id}/finalize`, {})).body;
    assert.deepEqual([finalizedFirst.collectionMethod, finalizedFirst.dueDate], ['charge_automatically', null]);

    const changed = await api.patch('/api/v1/billing/settings', { collectionMethod: 'send_invoice', daysUntilDue: 14 });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.collectionMethod, changed.body.daysUntilDue], ['send_invoice', 14]);
    const end = Date.UTC(2026, 1, 15, 12);
    t.clock.set(end + HOUR);
    await runJob();
    const cycle = (await invoicesOf(api, env.subscriptionId)).find((i) => i.billingReason === 'subscription_cycle');
    assert.deepEqual([cycle.status, cycle.collectionMethod, cycle.dueDate], ['finalized', 'send_invoice', iso(end + HOUR + 14 * DAY)]);

    for (const [body, field] of [
      [{ collectionMethod: 'charge_later' }, 'body.collectionMethod'],
      [{ daysUntilDue: 366 }, 'body.daysUntilDue'],
      [{ daysUntilDue: -1 }, 'body.daysUntilDue'],
    ] as const) {
      const bad = await api.patch('/api/v1/billing/settings', body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.errors[0].field, field);
    }
  });

  it('numbers follow the workspace’s prefix, and the grace period is the workspace’s', async () => {
    const { env, api } = await demo();
    const settings = await api.patch('/api/v1/billing/settings', { invoicePrefix: 'ACME', invoiceGraceSeconds: 60 });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    assert.deepEqual([settings.body.invoicePrefix, settings.body.invoiceGraceSeconds, settings.body.creditNotePrefix], ['ACME', 60, 'CN']);
    assert.equal((await api.get('/api/v1/billing/settings')).body.invoicePrefix, 'ACME');
    const [draft] = await invoicesOf(api, env.subscriptionId);
    assert.equal((await api.post(`/api/v1/invoices/${draft.id}/finalize`, {})).body.number, 'ACME-2026-000001');
    const end = Date.UTC(2026, 1, 15, 12);
    t.clock.set(end + 60_000);
    await runJob();
    const cycle = (await invoicesOf(api, env.subscriptionId)).find((i) => i.billingReason === 'subscription_cycle');
    assert.equal(cycle.status, 'finalized', 'a 60 s grace period had passed');
    assert.equal(cycle.number, 'ACME-2026-000002');
    const bad = await api.patch('/api/v1/billing/settings', { invoicePrefix: 'inv 1' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'body.invoicePrefix');
  });
});

describe('paid, void and uncollectible invoices', () => {
  it('an operator marks a finalized invoice paid; paid is final', async () => {
    const { env, api } = await demo();
    const [draft] = await invoicesOf(api, env.subscriptionId);
    const early = await api.post(`/api/v1/invoices/${draft.id}/pay`, {});
    assert.equal(early.status, 409, 'a draft is finalized first');
    assert.match(early.body.errors[0].message, /finalize it first/);
    await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    const paid = await api.post(`/api/v1/invoices/${draft.id}/pay`, {});
    assert.equal(paid.status, 200);
    assert.deepEqual([paid.body.status, paid.body.amountPaid, paid.body.amountRemaining, paid.body.paidAt], ['paid', '49.00', '0.00', iso(START)]);
    assert.equal((await api.post(`/api/v1/invoices/${draft.id}/void`, {})).status, 409);
    const events = await api.get(`/v1/events?targetId=${draft.id}&limit=10`);
    assert.deepEqual(events.body.data.map((e: { eventType: string }) => e.eventType).sort(), ['invoice.created', 'invoice.finalized', 'invoice.paid']);
  });

  it('uncollectible, then void; each state listed by the status filter', async () => {
    const { env, api } = await demo();
    const [draft] = await invoicesOf(api, env.subscriptionId);
    await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    const lost = await api.post(`/api/v1/invoices/${draft.id}/mark_uncollectible`, {});
    assert.equal(lost.body.status, 'uncollectible');
    assert.equal(lost.body.amountRemaining, '49.00');
    assert.deepEqual(
      (await api.get(`/api/v1/invoices?status=uncollectible&subscriptionId=${env.subscriptionId}`)).body.data.map((i: { id: string }) => i.id),
      [draft.id],
    );
    const voided = await api.post(`/api/v1/invoices/${draft.id}/void`, {});
    assert.deepEqual([voided.body.status, voided.body.amountRemaining, voided.body.number], ['void', '0.00', 'INV-2026-000001']);
    assert.equal((await api.get(`/api/v1/invoices?status=draft&subscriptionId=${env.subscriptionId}`)).body.data.length, 0);
    const bad = await api.get('/api/v1/invoices?status=open');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'query.status');
  });

  it('the period filter lists the invoices whose period overlaps it', async () => {
    const { env, api } = await demo();
    t.clock.set(Date.UTC(2026, 2, 15, 13));
    await runJob();
    const inFebruary = await api.get(`/api/v1/invoices?subscriptionId=${env.subscriptionId}&periodFrom=2026-02-16T00:00:00Z&periodTo=2026-02-17T00:00:00Z`);
    assert.deepEqual(
      inFebruary.body.data.map((i: { periodStart: string }) => i.periodStart),
      ['2026-02-15T12:00:00.000Z'],
    );
  });
});

describe('credit notes', () => {
  it('a credit note against a finalized invoice lowers what is owed, numbered in its own sequence; never more than is left', async () => {
    const { env, api } = await demo();
    const [draft] = await invoicesOf(api, env.subscriptionId);
    const notYet = await api.post('/api/v1/credit_notes', { invoiceId: draft.id, reason: 'duplicate', lines: [{ description: 'x', amount: '1.00' }] });
    assert.equal(notYet.status, 409);
    assert.equal(notYet.body.errors[0].field, 'body.invoiceId');
    await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    const note = await api.post('/api/v1/credit_notes', {
      invoiceId: draft.id,
      reason: 'product_unsatisfactory',
      memo: 'Outage on the 20th',
      lines: [{ description: 'Service credit', amount: '9.5', invoiceLineIndex: 0 }],
    });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    assert.match(note.body.id, /^cn_/);
    assert.deepEqual([note.body.number, note.body.total, note.body.currency, note.body.status], ['CN-2026-000001', '9.50', 'USD', 'issued']);
    const invoice = (await api.get(`/api/v1/invoices/${draft.id}`)).body;
    assert.deepEqual([invoice.total, invoice.creditedTotal, invoice.amountRemaining], ['49.00', '9.50', '39.50']);
    assert.deepEqual(brief(invoice.lines), [['entry_price', null, '49.00']], 'the invoice’s lines never change');
    const tooMuch = await api.post('/api/v1/credit_notes', { invoiceId: draft.id, reason: 'other', lines: [{ description: 'rest', amount: '39.51' }] });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.errors[0].field, 'body.lines');
    assert.match(tooMuch.body.errors[0].message, /39\.50 left/);
    const overLine = await api.post('/api/v1/credit_notes', {
      invoiceId: draft.id,
      reason: 'other',
      lines: [{ description: 'x', amount: '50', invoiceLineIndex: 0 }],
    });
    assert.equal(overLine.body.errors[0].field, 'body.lines.0.amount');
    const rest = await api.post('/api/v1/credit_notes', { invoiceId: draft.id, reason: 'other', lines: [{ description: 'rest', amount: '39.50' }] });
    assert.equal(rest.body.number, 'CN-2026-000002');
    assert.equal((await api.get(`/api/v1/invoices/${draft.id}`)).body.amountRemaining, '0.00');
    const list = await api.get(`/api/v1/credit_notes?invoiceId=${draft.id}`);
    assert.deepEqual(
      list.body.data.map((c: { number: string }) => c.number),
      ['CN-2026-000002', 'CN-2026-000001'],
    );
    assert.equal((await api.get(`/api/v1/credit_notes/${note.body.id}`)).body.memo, 'Outage on the 20th');
    assert.equal((await api.get('/api/v1/credit_notes/cn_nope')).status, 404);
  });
});

describe('a customer named by its cus_ id or its externalId, as ingestion names one', () => {
  /**
   * The demo workspace: customer acme (an invoice, then a credit note on it) in both environments,
   * and a live customer, live-only, with an invoice of its own.
   */
  async function named() {
    const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
    const env = d.environments.test;
    const api = t.seed.client(env.secretKey);
    const live = t.seed.client(d.environments.live.secretKey);
    const liveOnly = await live.post('/api/v1/customers', { externalId: 'live-only' });
    const liveSub = await live.post('/api/v1/subscriptions', { customerId: liveOnly.body.id, offeringId: d.environments.live.offeringId });
    assert.equal(liveSub.status, 200, JSON.stringify(liveSub.body));
    const [invoice] = await invoicesOf(api, env.subscriptionId);
    await api.post(`/api/v1/invoices/${invoice.id}/finalize`, {});
    const note = await api.post('/api/v1/credit_notes', { invoiceId: invoice.id, reason: 'other', lines: [{ description: 'credit', amount: '1.00' }] });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    return { env, api, invoiceId: invoice.id as string, noteId: note.body.id as string };
  }
  const listed = async (api: Client, url: string) => {
    const res = await api.get(url);
    assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
    return res.body.data.map((x: { id: string; customerId: string }) => [x.id, x.customerId]);
  };

  it('GET /customers/{id}/invoices 200 by the externalId or the cus_ id; 404 names path.id for one naming nobody here, or a customer of the other environment', async () => {
    const { env, api, invoiceId } = await named();
    assert.deepEqual(await listed(api, '/api/v1/customers/acme/invoices'), [[invoiceId, env.customerId]]);
    assert.deepEqual(await listed(api, `/api/v1/customers/${env.customerId}/invoices`), [[invoiceId, env.customerId]]);
    for (const ref of ['nobody', 'live-only', 'cus_nope']) {
      const res = await api.get(`/api/v1/customers/${ref}/invoices`);
      assert.equal(res.status, 404, ref);
      assert.deepEqual(res.body.errors, [
        { code: 'NOT_FOUND', field: 'path.id', message: `No customer with id or externalId '${ref}' exists in this workspace and environment.` },
      ]);
    }
  });

  it('GET /invoices and GET /credit_notes 200 filter customerId by the externalId or the cus_ id; one naming nobody here, or a customer of the other environment, lists nothing', async () => {
    const { env, api, invoiceId, noteId } = await named();
    for (const ref of ['acme', env.customerId]) {
      assert.deepEqual(await listed(api, `/api/v1/invoices?customerId=${ref}`), [[invoiceId, env.customerId]], ref);
      assert.deepEqual(await listed(api, `/api/v1/credit_notes?customerId=${ref}`), [[noteId, env.customerId]], ref);
    }
    for (const ref of ['nobody', 'live-only', 'cus_nope']) {
      assert.deepEqual(await listed(api, `/api/v1/invoices?customerId=${ref}`), [], ref);
      assert.deepEqual(await listed(api, `/api/v1/credit_notes?customerId=${ref}`), [], ref);
    }
  });
});

describe('test clocks', () => {
  async function onClock(d: Demo, frozenTime = START) {
    const clock = await d.api.post('/api/v1/test_clocks', { frozenTime: iso(frozenTime), name: 'A year of Pro' });
    assert.equal(clock.status, 200, JSON.stringify(clock.body));
    const customer = await d.api.post('/api/v1/customers', { name: 'Clocked', externalId: 'clocked', testClockId: clock.body.id });
    assert.equal(customer.status, 200, JSON.stringify(customer.body));
    const sub = await d.api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: d.env.offeringId });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    return { clockId: clock.body.id as string, customerId: customer.body.id as string, sub: sub.body };
  }
  const advance = async (api: Client, clockId: string, to: number) => {
    const res = await api.post(`/api/v1/test_clocks/${clockId}/advance`, { frozenTime: iso(to) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'ready');
    return res.body;
  };

  it('documents of a clock in another year take the workspace’s sequence and its real year, so numbers read in order', async () => {
    const d = await demo();
    const year = new Date(t.clock.now()).getUTCFullYear();
    const nextYear = Date.UTC(year + 1, 2, 1);
    const { clockId, sub } = await onClock(d, nextYear);
    await advance(d.api, clockId, nextYear + 2 * HOUR);
    t.clock.set(t.clock.now() + 2 * HOUR);
    await runJob();
    const numbers = [...(await invoicesOf(d.api, sub.id)), ...(await invoicesOf(d.api, d.env.subscriptionId))].map((i) => [i.status, i.number]);
    assert.deepEqual(
      numbers,
      [
        ['finalized', `INV-${year}-000001`],
        ['finalized', `INV-${year}-000002`],
      ],
      'the clock’s invoice of next year first, then today’s: one sequence, one year',
    );
  });

  it('a subscription on a clock starts at the clock’s time, and three periods passed at once give three invoices, in order, none twice', async () => {
    const d = await demo();
    const clockStart = Date.UTC(2025, 5, 30, 8);
    const { clockId, sub } = await onClock(d, clockStart);
    assert.equal(sub.testClockId, clockId);
    assert.deepEqual([sub.currentPeriodStart, sub.currentPeriodEnd], [iso(clockStart), '2025-07-30T08:00:00.000Z']);
    const clock = await advance(d.api, clockId, Date.UTC(2025, 9, 1));
    assert.equal(clock.frozenTime, '2025-10-01T00:00:00.000Z');
    const invoices = await invoicesOf(d.api, sub.id);
    assert.deepEqual(
      invoices.map((i) => [i.billingReason, i.periodStart, i.status, i.number]),
      [
        // Numbered in the workspace's real year (2026 here), whatever the clock's.
        ['subscription_create', '2025-06-30T08:00:00.000Z', 'finalized', 'INV-2026-000001'],
        ['subscription_cycle', '2025-06-30T08:00:00.000Z', 'finalized', 'INV-2026-000002'],
        ['subscription_cycle', '2025-07-30T08:00:00.000Z', 'finalized', 'INV-2026-000003'],
        ['subscription_cycle', '2025-08-30T08:00:00.000Z', 'finalized', 'INV-2026-000004'],
      ],
    );
    await advance(d.api, clockId, Date.UTC(2025, 9, 1));
    assert.equal((await invoicesOf(d.api, sub.id)).length, 4, 'advancing to the same time again issues nothing');
    // Real-time runs never touch a clock's subscriptions.
    t.clock.set(Date.UTC(2027, 0, 1));
    await runJob();
    assert.equal((await invoicesOf(d.api, sub.id)).length, 4);
    const advanced = await d.api.get(`/v1/events?type=test_clock.advanced&targetId=${clockId}`);
    assert.equal(advanced.body.data.length, 2);
  });

  it('subscriptions on one clock renew together; one that cannot be rated is left behind, and the others close', async () => {
    const d = await demo();
    const { clockId, customerId, sub: first } = await onClock(d);
    const more = [];
    for (let i = 0; i < 3; i++) {
      const res = await d.api.post('/api/v1/subscriptions', { customerId, offeringId: d.env.offeringId });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      more.push(res.body);
    }
    const broken = more[1];
    // A row from before currencies were checked: its usage cannot be rated.
    await t.deps.db.updateTable('subscriptions').set({ currency: 'XAU' }).where('id', '=', broken.id).execute();
    await advance(d.api, clockId, Date.UTC(2026, 1, 15, 14));
    const renewed = [first, more[0], more[2]];
    const cycles = [];
    for (const s of renewed) {
      const invoices = await invoicesOf(d.api, s.id);
      assert.deepEqual(
        invoices.map((i) => [i.billingReason, i.status]),
        [
          ['subscription_create', 'finalized'],
          ['subscription_cycle', 'finalized'],
        ],
      );
      cycles.push(invoices[1].number);
      const now = await d.api.get(`/api/v1/subscriptions/${s.id}`);
      assert.equal(now.body.currentPeriodStart, '2026-02-15T12:00:00.000Z');
    }
    // The four first invoices took 1-4; the three renewals the next three, in the order of their subscriptions.
    assert.deepEqual(cycles, ['INV-2026-000005', 'INV-2026-000006', 'INV-2026-000007']);
    assert.deepEqual(
      (await invoicesOf(d.api, broken.id)).map((i) => i.billingReason),
      ['subscription_create'],
    );
    const left = await d.api.get(`/api/v1/subscriptions/${broken.id}`);
    assert.equal(left.body.currentPeriodStart, iso(START), 'its period stays open for the next run');
  });

  it('a year of monthly renewals with usage: twelve cycle invoices, a month-end anchor that returns to the 31st, and a late event billed as an adjustment', async () => {
    const d = await demo();
    const anchor = Date.UTC(2026, 0, 31, 12);
    const { clockId, sub } = await onClock(d, anchor);
    const ends: string[] = [];
    let at = anchor;
    for (let month = 1; month <= 12; month++) {
      // Real time stays at START: a clocked customer's events are checked against its clock.
      await advance(d.api, clockId, at + DAY);
      await ingest(d.api, 'clocked', [{ metricName: 'api_calls', quantity: 101_000, at: at + DAY }], { onClock: true });
      if (month === 4) {
        // A late event for March's period, whose invoice is finalized by now.
        await ingest(d.api, 'clocked', [{ metricName: 'api_calls', quantity: 3_000, at: at - DAY }], { onClock: true });
        // The same instant is months ahead of real time for a customer on no clock.
        const refused = await d.api.post('/v1/ingest', { customerId: 'acme', metricName: 'api_calls', quantity: 1, occurredAt: iso(at - DAY) });
        assert.equal(refused.body.errors[0].code, 'TIMESTAMP_IN_FUTURE');
      }
      const current = (await d.api.get(`/api/v1/subscriptions/${sub.id}`)).body;
      ends.push(current.currentPeriodEnd);
      at = Date.parse(current.currentPeriodEnd);
      await advance(d.api, clockId, at + 2 * HOUR);
    }
    assert.deepEqual(ends.slice(0, 4), ['2026-02-28T12:00:00.000Z', '2026-03-31T12:00:00.000Z', '2026-04-30T12:00:00.000Z', '2026-05-31T12:00:00.000Z']);
    const cycles = (await invoicesOf(d.api, sub.id)).filter((i) => i.billingReason === 'subscription_cycle');
    assert.equal(cycles.length, 12);
    assert.ok(cycles.every((i) => i.status === 'finalized'));
    const numbers = cycles.map((i) => Number(i.number.slice(-6)));
    assert.deepEqual(
      numbers,
      Array.from({ length: 12 }, (_, i) => i + 2),
      'gapless, in period order (the first went to the opening invoice)',
    );
    for (const [i, inv] of cycles.entries()) {
      const calls = inv.lines.find((l: Line) => l.metricName === 'api_calls');
      assert.equal(calls.amount, '1.50', `month ${i + 1}: 1,000 over the free 100,000`);
    }
    const withAdjustment = cycles.filter((i) => i.lines.some((l: Line) => l.type === 'adjustment'));
    assert.equal(withAdjustment.length, 1);
    const adjustment = withAdjustment[0].lines.find((l: Line) => l.type === 'adjustment');
    assert.equal(adjustment.adjustsInvoiceId, cycles[2].id, 'the late event belongs to the third period');
    assert.equal(adjustment.amount, '4.50', '3,000 more calls: 3 more blocks of 1,000 at 1.50');
  });

  it('a trial ends on the clock: its period closes with subscription.trial_ended, and the first paid month is billed in advance', async () => {
    const d = await demo();
    const clock = (await d.api.post('/api/v1/test_clocks', { frozenTime: iso(START) })).body;
    const customer = (await d.api.post('/api/v1/customers', { name: 'Trial Co', testClockId: clock.id })).body;
    const agents = (await d.api.get('/api/v1/offerings?limit=100')).body.data.find((o: { name: string }) => o.name === 'Agents');
    const sub = (await d.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: agents.id })).body;
    const trialEnd = START + 14 * DAY;
    assert.deepEqual([sub.currentPeriodEnd, sub.trialEndsAt, sub.billingCycleAnchor], [iso(trialEnd), iso(trialEnd), iso(trialEnd)]);
    const [opening] = await invoicesOf(d.api, sub.id);
    assert.deepEqual(brief(opening.lines), [['entry_price', null, '0.00']]);
    assert.match(opening.lines[0].description, /trial/);
    await advance(d.api, clock.id, trialEnd + 2 * HOUR);
    const renewed = (await d.api.get(`/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual([renewed.currentPeriodStart, renewed.currentPeriodEnd], [iso(trialEnd), '2026-02-28T12:00:00.000Z']);
    const cycle = (await invoicesOf(d.api, sub.id))[1];
    assert.deepEqual(cycle.lines[0].type, 'entry_price');
    assert.deepEqual([cycle.lines[0].amount, cycle.lines[0].periodStart], ['199.00', iso(trialEnd)]);
    const events = (await d.api.get(`/v1/events?targetId=${sub.id}&limit=20`)).body.data.map((e: { eventType: string }) => e.eventType);
    assert.ok(events.includes('subscription.trial_ended'));
    assert.ok(events.includes('subscription.renewed'));
  });

  it('cancelAtPeriodEnd: at the period end the subscription is cancelled, a final usage invoice issued, and its keys revoked', async () => {
    const d = await demo();
    const patched = await d.api.patch(`/api/v1/subscriptions/${d.env.subscriptionId}`, { cancelAtPeriodEnd: true });
    assert.equal(patched.body.cancelAtPeriodEnd, true);
    await ingest(d.api, 'acme', [{ metricName: 'seats', quantity: 7, at: START + DAY }]);
    const upcoming = (await d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}/upcoming-invoice`)).body;
    assert.equal(
      upcoming.lines.some((l: Line) => l.type === 'entry_price'),
      false,
      'no next period to bill',
    );
    const verify = () => d.api.post('/v1/keys/verify', { key: d.env.productKey });
    assert.equal((await verify()).body.valid, true);
    t.clock.set(Date.UTC(2026, 1, 15, 12));
    await runJob();
    const sub = (await d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`)).body;
    assert.deepEqual([sub.status, sub.cancelledAt, sub.cancelAtPeriodEnd], ['CANCELLED', '2026-02-15T12:00:00.000Z', false]);
    const final = (await invoicesOf(d.api, d.env.subscriptionId)).find((i) => i.billingReason === 'subscription_cancel');
    assert.deepEqual(brief(final.lines), [
      ['usage', 'api_calls', '0.00'],
      ['usage', 'tokens', '0.00'],
      ['usage', 'seats', '40.00'],
    ]);
    assert.equal((await verify()).body.valid, false, 'the bound key is revoked');
  });

  it('a change scheduled for the period end is applied by the renewal, with the new offering’s prices', async () => {
    const d = await demo();
    const agents = (await d.api.get('/api/v1/offerings?limit=100')).body.data.find((o: { name: string }) => o.name === 'Agents');
    const current = (await findSubscription(t.deps.db, d.ctx, d.env.subscriptionId))!;
    assert.ok(
      await updateSubscriptionIfVersion(
        t.deps.db,
        d.ctx,
        { ...current, status: 'ACTIVE_PENDING_CHANGE', scheduledChange: { offeringId: agents.id, requestedAt: START }, version: current.version + 1 },
        current.version,
      ),
    );
    t.clock.set(Date.UTC(2026, 1, 15, 12));
    await runJob();
    const sub = (await d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`)).body;
    assert.deepEqual([sub.status, sub.offeringId, sub.scheduledChange], ['ACTIVE', agents.id, null]);
    const cycle = (await invoicesOf(d.api, d.env.subscriptionId)).find((i) => i.billingReason === 'subscription_cycle');
    assert.deepEqual(cycle.lines[0].type, 'entry_price');
    assert.equal(cycle.lines[0].amount, '199.00', 'the next period is on Agents');
    assert.ok(
      cycle.lines.some((l: Line) => l.metricName === 'api_calls'),
      'the closed period is billed on Pro',
    );
  });

  it('a pinned subscription keeps its price version through renewals; an unpinned one moves to the offering’s current prices', async () => {
    const d = await demo();
    const pinnedCustomer = (await d.api.post('/api/v1/customers', { name: 'Pinned', externalId: 'pinned' })).body;
    const pinned = (await d.api.post('/api/v1/subscriptions', { customerId: pinnedCustomer.id, offeringId: d.env.offeringId, priceVersionPinned: true })).body;
    assert.equal(pinned.priceVersionPinned, true);
    const before = (await d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`)).body.priceVersionId;
    assert.equal(pinned.priceVersionId, before, 'unchanged prices share a version');
    await d.api.patch(`/api/v1/offerings/${d.env.offeringId}`, { entryPrice: '59.00' });
    t.clock.set(Date.UTC(2026, 1, 15, 13));
    await runJob();
    const moved = (await d.api.get(`/api/v1/subscriptions/${d.env.subscriptionId}`)).body;
    const kept = (await d.api.get(`/api/v1/subscriptions/${pinned.id}`)).body;
    assert.notEqual(moved.priceVersionId, before);
    assert.equal(kept.priceVersionId, before);
    const entry = async (id: string) => (await invoicesOf(d.api, id)).find((i) => i.billingReason === 'subscription_cycle').lines[0].amount;
    assert.equal(await entry(d.env.subscriptionId), '59.00');
    assert.equal(await entry(pinned.id), '49.00');
  });

  it('a key rotated on a clock keeps its 300 s grace in the clock’s time: real time does not end it, the advance past it does', async () => {
    const d = await demo();
    const { clockId, sub } = await onClock(d);
    const key = await d.api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'clocked key', subscriptionId: sub.id });
    assert.equal(key.status, 200, JSON.stringify(key.body));
    const rotated = await d.api.post(`/api/v1/api-keys/${key.body.id}/rotate`, {});
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal(rotated.body.previousKeyExpiresAt, iso(START + 300_000), 'the grace ends 300 s later on the clock');
    const verify = async () => (await d.api.post('/v1/keys/verify', { key: key.body.fullToken })).body.valid;
    t.clock.set(START + HOUR);
    assert.equal(await verify(), true, 'an hour of real time: the clock has not moved');
    await advance(d.api, clockId, START + 299_000);
    assert.equal(await verify(), true, '299 s on the clock');
    await advance(d.api, clockId, START + 300_000);
    assert.equal(await verify(), false, '300 s on the clock: the grace is over');
    const expired = await d.api.get(`/v1/events?type=api_key.expired&targetId=${key.body.id}`);
    assert.equal(expired.body.data.length, 1);
  });

  it('test clocks are refused to live keys, move only forward, and 404 when unknown', async () => {
    const d = await demo();
    const ws = await t.seed.workspace();
    const live = t.seed.client(ws.live.secretKey);
    const refused = await live.post('/api/v1/test_clocks', {});
    assert.equal(refused.status, 400);
    assert.match(refused.body.errors[0].message, /test environment/);
    const clock = (await d.api.post('/api/v1/test_clocks', {})).body;
    assert.deepEqual([clock.object, clock.status, clock.frozenTime, clock.advanceProgress], ['test_clock', 'ready', iso(START), null]);
    const back = await d.api.post(`/api/v1/test_clocks/${clock.id}/advance`, { frozenTime: iso(START - 1) });
    assert.equal(back.status, 400);
    assert.equal(back.body.errors[0].field, 'body.frozenTime');
    const far = await d.api.post(`/api/v1/test_clocks/${clock.id}/advance`, { frozenTime: iso(START + 800 * DAY) });
    assert.equal(far.status, 400);
    assert.equal((await d.api.post('/api/v1/test_clocks/clock_nope/advance', { frozenTime: iso(START) })).status, 404);
    assert.equal((await d.api.get('/api/v1/test_clocks/clock_nope')).status, 404);
    const unknownClock = await d.api.post('/api/v1/customers', { name: 'x', testClockId: 'clock_nope' });
    assert.equal(unknownClock.status, 404);
    assert.equal(unknownClock.body.errors[0].field, 'body.testClockId');
    const listed = await d.api.get('/api/v1/test_clocks');
    assert.deepEqual(
      listed.body.data.map((c: { id: string }) => c.id),
      [clock.id],
    );
  });
});
