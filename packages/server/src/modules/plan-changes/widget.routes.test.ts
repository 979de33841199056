import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeOffering, type Offering, type RatePlan } from '@tollgate/pricing';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { widgetDemo, type WidgetDemo } from '../../../test/helpers/widget-demo.js';

/**
 * The widget's backend through the real server: a seller mints a widget session for the demo
 * customer's Pro subscription, and the buyer's browser (the session token, an Origin) lists
 * candidates, previews, upgrades, schedules and withdraws a change, and cancels. Amounts are the
 * operator API's (plan-change.routes.test.ts); here: the session's reach, channel EMBED, and what
 * a buyer sees of the subscription.
 */

let t: TestApp;
const START = Date.UTC(2026, 3, 1);
const MID = Date.UTC(2026, 3, 16);
const SHOP = 'https://shop.example.com';

before(async () => {
  t = await createTestApp();
});
after(async () => t.close());
beforeEach(() => t.clock.set(START));

interface Setup extends WidgetDemo {
  agentsId: string;
  starterId: string;
}

async function setup(): Promise<Setup> {
  const demo = await widgetDemo(t, MID, [SHOP]);
  return { ...demo, agentsId: demo.offerings.get('Agents')!, starterId: demo.offerings.get('Starter')! };
}

const from = { origin: SHOP };

describe('the widget session’s reach', () => {
  it('reads its one subscription, as a buyer may see it, and its candidates', async () => {
    const s = await setup();
    const sub = await s.widget.get('/v1/widget/subscription', from);
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    assert.equal(sub.headers['access-control-allow-origin'], SHOP);
    assert.deepEqual(
      [sub.body.object, sub.body.id, sub.body.status, sub.body.offering.name, sub.body.offering.priceText],
      ['widget_subscription', s.env.subscriptionId, 'ACTIVE', 'Pro', '$49.00/mo'],
    );
    assert.equal(sub.body.metadata, undefined, 'never the seller’s metadata');
    assert.equal(sub.body.usageLimits, undefined);
    const candidates = await s.widget.get('/v1/widget/change-candidates', from);
    assert.deepEqual(
      candidates.body.data.map((c: { name: string; kind: string }) => [c.name, c.kind]),
      // Pro paid yearly is cheaper per month than Pro monthly (40.83 against 49): a downgrade.
      [
        ['Starter', 'DOWNGRADE'],
        ['Pro', 'DOWNGRADE'],
        ['Agents', 'UPGRADE'],
      ],
    );
  });

  it('reads the published pricing of its offering and candidates, which the pricing display module words as the candidates list does', async () => {
    const s = await setup();
    const config = await s.widget.get('/v1/widget/config', from);
    assert.equal(config.status, 200, JSON.stringify(config.body));
    assert.equal(config.headers['access-control-allow-origin'], SHOP);
    assert.equal(config.body.object, 'widget_config');
    const offerings = config.body.offerings as Array<Offering & { id: string }>;
    assert.equal(config.body.currentOfferingId, offerings[0]!.id, 'the current offering first');
    assert.deepEqual(
      offerings.map((o) => o.name),
      ['Pro', 'Starter', 'Pro', 'Agents'],
    );
    const plans = config.body.ratePlans as RatePlan[];
    for (const o of offerings)
      for (const id of o.ratePlanIds)
        assert.ok(
          plans.some((p) => p.id === id),
          `${o.name}: plan ${id} is included`,
        );
    for (const p of plans)
      for (const u of p.metrics) assert.equal((u as unknown as Record<string, unknown>).toolMultipliers, undefined, 'never rating-only multipliers');
    const candidates = (await s.widget.get('/v1/widget/change-candidates', from)).body.data as Array<{ offeringId: string; priceText: string }>;
    for (const c of candidates) {
      const o = offerings.find((x) => x.id === c.offeringId)!;
      assert.equal(describeOffering(o, plans).price, c.priceText, 'the same words in the browser as on the server');
    }
  });

  it('a secret key is refused on widget routes, and the session token everywhere else', async () => {
    const s = await setup();
    assert.equal((await s.api.get('/v1/widget/subscription', from)).status, 401);
    assert.equal((await s.widget.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).status, 401);
    assert.equal((await s.widget.post(`/api/v1/subscriptions/${s.env.subscriptionId}/cancel`, {})).status, 401);
    const elsewhere = await s.widget.get('/v1/widget/subscription', { origin: 'https://evil.example' });
    assert.equal(elsewhere.status, 403);
  });

  it('an expired session says so (SESSION_EXPIRED)', async () => {
    const s = await setup();
    t.clock.set(MID + 901_000);
    const res = await s.widget.post('/v1/widget/preview-change', { offeringId: s.agentsId }, from);
    assert.deepEqual([res.status, res.body.errors[0].code], [401, 'SESSION_EXPIRED']);
    assert.match(res.body.errors[0].message, /expired/);
  });
});

describe('changes from the widget', () => {
  it('previews and confirms an immediate upgrade once, stamped EMBED, with the invoice number', async () => {
    const s = await setup();
    const p = await s.widget.post('/v1/widget/preview-change', { offeringId: s.agentsId }, from);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.action, 'UPGRADE');
    const body = { offeringId: s.agentsId, expectedVersion: p.body.subscriptionVersion };
    const noKey = await s.widget.post('/v1/widget/upgrade', body, from);
    assert.deepEqual([noKey.status, noKey.body.errors[0].field], [400, 'headers.idempotency-key']);
    const done = await s.widget.post('/v1/widget/upgrade', body, { ...from, 'idempotency-key': 'click-1' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual([done.body.channel, done.body.status, done.body.offeringName], ['EMBED', 'ACTIVE', 'Agents']);
    assert.match(done.body.invoiceId, /^inv_/);
    assert.equal(done.body.subscription.object, 'widget_subscription');
    const invoice = (await s.api.get(`/api/v1/invoices/${done.body.invoiceId}`)).body;
    assert.equal(invoice.total, p.body.invoiceTotal);
    // What the buyer reads on the invoice: its number, finalized at once.
    assert.match(done.body.invoiceNumber, /^INV-2026-\d{6}$/);
    assert.equal(done.body.invoiceNumber, invoice.number);
    assert.equal(done.body.creditNoteNumber, null);
    const again = await s.widget.post('/v1/widget/upgrade', body, { ...from, 'idempotency-key': 'click-1' });
    assert.equal(again.body.invoiceId, done.body.invoiceId, 'a double click charges once');
    const stale = await s.widget.post(
      '/v1/widget/upgrade',
      { offeringId: s.starterId, expectedVersion: p.body.subscriptionVersion },
      { ...from, 'idempotency-key': 'click-2' },
    );
    assert.deepEqual([stale.status, stale.body.errors[0].code], [409, 'SUBSCRIPTION_CHANGED']);
    const events = await s.api.get(`/v1/events?targetId=${s.env.subscriptionId}&type=subscription.upgraded`);
    assert.deepEqual([events.body.data[0].payload.channel, events.body.data[0].actorType], ['EMBED', 'WIDGET_SESSION']);
  });

  it('schedules a downgrade for the period end and withdraws it', async () => {
    const s = await setup();
    const done = await s.widget.post('/v1/widget/upgrade', { offeringId: s.starterId, applyAt: 'PERIOD_END' }, { ...from, 'idempotency-key': 'later' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(
      [done.body.status, done.body.scheduledAt, done.body.subscription.scheduledChange.offeringName],
      ['ACTIVE_PENDING_CHANGE', '2026-05-01T00:00:00.000Z', 'Starter'],
    );
    const withdrawn = await s.widget.post('/v1/widget/withdraw-change', {}, from);
    assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.body));
    assert.deepEqual([withdrawn.body.status, withdrawn.body.scheduledChange], ['ACTIVE', null]);
  });

  it('cancels at the period end with a reason, stamped cancel_channel EMBED; now, with the credit note and its number in the result', async () => {
    const s = await setup();
    const later = await s.widget.post('/v1/widget/cancel', { reason: 'TOO_EXPENSIVE', applyAt: 'PERIOD_END' }, from);
    assert.equal(later.status, 200, JSON.stringify(later.body));
    assert.deepEqual(
      [later.body.action, later.body.status, later.body.effectiveAt, later.body.creditNoteId, later.body.creditNoteNumber, later.body.invoiceNumber],
      ['CANCEL', 'ACTIVE_PENDING_CHANGE', '2026-05-01T00:00:00.000Z', null, null, null],
    );
    const scheduled = await s.api.get(`/v1/events?targetId=${s.env.subscriptionId}&type=subscription.change_scheduled`);
    assert.deepEqual([scheduled.body.data[0].payload.channel, scheduled.body.data[0].payload.reason], ['EMBED', 'TOO_EXPENSIVE']);
    await s.widget.post('/v1/widget/withdraw-change', {}, from);
    const now = await s.widget.post('/v1/widget/cancel', { reason: 'UNUSED' }, from);
    assert.equal(now.status, 200, JSON.stringify(now.body));
    assert.equal(now.body.status, 'CANCELLED');
    assert.match(now.body.creditNoteId, /^cn_/);
    // Pro's 49.00 for April 1 to May 1, 15 of 30 days unused: 24.50.
    assert.equal(now.body.creditNoteAmount, '24.50');
    const note = (await s.api.get(`/api/v1/credit_notes/${now.body.creditNoteId}`)).body;
    assert.match(now.body.creditNoteNumber, /^CN-2026-\d{6}$/);
    assert.equal(now.body.creditNoteNumber, note.number);
    // The last usage invoice is a draft until its grace period ends: no number yet.
    const last = (await s.api.get(`/api/v1/invoices/${now.body.invoiceId}`)).body;
    assert.equal(now.body.invoiceNumber, last.number);
    const cancelled = await s.api.get(`/v1/events?targetId=${s.env.subscriptionId}&type=subscription.cancelled`);
    assert.equal(cancelled.body.data[0].payload.channel, 'EMBED');
    // The session still reads the result after the cancellation.
    assert.equal((await s.widget.get('/v1/widget/subscription', from)).body.status, 'CANCELLED');
  });
});

describe('retention offers in the cancel step', () => {
  it('the cancel preview carries the reason’s offer; accepting it from the widget is recorded once, stamped EMBED', async () => {
    const s = await setup();
    const p = await s.widget.post('/v1/widget/preview-change', { cancel: true, reason: 'TOO_EXPENSIVE', applyAt: 'PERIOD_END' }, from);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual([p.body.retentionOffer.type, p.body.retentionOffer.percentOff, p.body.retentionOffer.periods], ['DISCOUNT_20_PERCENT', '20', 3]);
    const unused = await s.widget.get('/v1/widget/retention-offers?reason=UNUSED', from);
    assert.deepEqual([unused.body.offer.type, unused.body.offer.offeringName], ['DOWNGRADE_PROMPT', 'Starter']);
    const pause = await s.widget.post('/v1/widget/retention-offer', { reason: 'TOO_EXPENSIVE', offerType: 'PAUSE_3_MONTHS' }, from);
    assert.deepEqual([pause.status, pause.body.errors[0].code], [422, 'OFFER_NOT_AVAILABLE']);
    const accepted = await s.widget.post('/v1/widget/retention-offer', { reason: 'TOO_EXPENSIVE' }, from);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.channel, accepted.body.offer.type], ['EMBED', 'DISCOUNT_20_PERCENT']);
    const again = await s.widget.post('/v1/widget/retention-offer', { reason: 'TOO_EXPENSIVE' }, from);
    assert.equal(again.body.id, accepted.body.id);
    const sub = (await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body;
    assert.deepEqual([sub.discount.percentOff, sub.discount.periodsLeft, sub.status], ['20', 3, 'ACTIVE']);
  });
});

describe('how the widget’s cancellation was made', () => {
  it('the subscription keeps the reason, cancel_channel EMBED, the comment and when, on GET and in the list; a withdrawal clears them', async () => {
    const s = await setup();
    const read = async () => (await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body;
    assert.equal((await read()).cancellationDetails, null);
    const later = await s.widget.post('/v1/widget/cancel', { reason: 'MISSING_FEATURES', applyAt: 'PERIOD_END', comment: 'No SSO' }, from);
    assert.equal(later.status, 200, JSON.stringify(later.body));
    const scheduled = { reason: 'MISSING_FEATURES', cancel_channel: 'EMBED', comment: 'No SSO', requestedAt: new Date(MID).toISOString() };
    assert.deepEqual((await read()).cancellationDetails, scheduled);
    assert.equal(later.body.subscription.cancellationDetails, undefined, 'the buyer’s view of the subscription stays as it was');
    await s.widget.post('/v1/widget/withdraw-change', {}, from);
    assert.equal((await read()).cancellationDetails, null, 'a withdrawn cancellation was never made');

    t.clock.set(MID + 60_000);
    const now = await s.widget.post('/v1/widget/cancel', { reason: 'TOO_EXPENSIVE' }, { ...from, 'idempotency-key': 'cancel-1' });
    assert.equal(now.status, 200, JSON.stringify(now.body));
    const details = { reason: 'TOO_EXPENSIVE', cancel_channel: 'EMBED', comment: null, requestedAt: new Date(MID + 60_000).toISOString() };
    const sub = await read();
    assert.deepEqual([sub.status, sub.cancellationDetails], ['CANCELLED', details]);
    const listed = (await s.api.get(`/api/v1/subscriptions?customerId=${sub.customerId}`)).body.data as Array<{ id: string; cancellationDetails: unknown }>;
    assert.deepEqual(listed.find((x) => x.id === sub.id)?.cancellationDetails, details);
  });

  it('400 names the field of a reason or comment out of bounds, and keeps nothing', async () => {
    const s = await setup();
    const badReason = await s.widget.post('/v1/widget/cancel', { reason: 'BORED' }, from);
    assert.deepEqual([badReason.status, badReason.body.errors[0].code, badReason.body.errors[0].field], [400, 'VALIDATION_FAILED', 'body.reason']);
    const longComment = await s.widget.post('/v1/widget/cancel', { reason: 'OTHER', comment: 'x'.repeat(501) }, from);
    assert.deepEqual([longComment.status, longComment.body.errors[0].code, longComment.body.errors[0].field], [400, 'VALIDATION_FAILED', 'body.comment']);
    const sub = (await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body;
    assert.deepEqual([sub.status, sub.cancellationDetails], ['ACTIVE', null]);
  });
});
