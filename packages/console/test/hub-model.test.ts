import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { contrast } from '@tollgate/pricing';
import {
  accentColors,
  cardText,
  endedKindOf,
  expiredText,
  graceText,
  hubViewOf,
  invoicePaymentText,
  linkTokenOf,
  NO_LINK_TEXT,
  payOutcomeText,
  planTitle,
  quotaFigure,
  remainingText,
  returnNoticeOf,
  sellerName,
  subscriptionLabel,
} from '../src/hub/model.js';
import { monthsAgo } from '../src/hub/usage.js';

const HEX = 'a'.repeat(64);

describe('linkTokenOf: the single-use link token from the fragment', () => {
  const cases: Array<[string, string | null]> = [
    [`#hbl_test_${HEX}`, `hbl_test_${HEX}`],
    [`#hbl_live_${HEX}`, `hbl_live_${HEX}`],
    ['', null],
    ['#', null],
    [`hbl_test_${HEX}`, null],
    [`#tgi_${HEX}`, null],
    [`#hbl_test_${HEX}&x=1`, null],
    [`#hbl_${'a'.repeat(300)}`, null],
  ];
  for (const [hash, want] of cases) it(`${hash.slice(0, 20)}… -> ${String(want).slice(0, 12)}`, () => assert.equal(linkTokenOf(hash), want));
});

describe('hubViewOf: the view a path shows', () => {
  const cases: Array<[string, string | null]> = [
    ['/hub', 'keys'],
    ['/hub/', 'keys'],
    ['/hub/usage', 'usage'],
    ['/hub/usage/', 'usage'],
    ['/hub/subscription', 'subscription'],
    ['/hub/billing', 'billing'],
    ['/hub/payment-method', 'payment-method'],
    ['/hub/nope', null],
    ['/console', null],
  ];
  for (const [path, want] of cases) it(`${path} -> ${String(want)}`, () => assert.equal(hubViewOf(path), want));
});

describe('sellerName and expiredText: whom an expired link sends the customer back to', () => {
  const cases: Array<[Parameters<typeof sellerName>[0], string]> = [
    [{ title: 'Acme developers', returnUrl: 'https://shop.example.com/account' }, 'This link has expired: ask shop.example.com for a new one.'],
    [{ title: 'Acme developers', returnUrl: null }, 'This link has expired: ask Acme developers for a new one.'],
    [{ title: null, returnUrl: 'not a url' }, 'This link has expired: ask the site that sent you here for a new one.'],
    [null, 'This link has expired: ask the site that sent you here for a new one.'],
  ];
  for (const [seller, want] of cases) it(want, () => assert.equal(expiredText(seller), want));
});

describe("accentColors: the seller's accent, legible (WCAG AA)", () => {
  const cases: Array<[string | undefined, ReturnType<typeof accentColors>]> = [
    ['#4F46E5', { accent: '#4f46e5', accentText: '#ffffff', link: '#4f46e5' }],
    // Too light for white text or for links on white: dark text on it, the default blue for links.
    ['#fde047', { accent: '#fde047', accentText: '#111111', link: '#1d4ed8' }],
    ['#000000', { accent: '#000000', accentText: '#ffffff', link: '#000000' }],
    [undefined, null],
    ['red', null],
    ['#12345', null],
  ];
  for (const [accent, want] of cases) it(`${String(accent)}`, () => assert.deepEqual(accentColors(accent), want));
  it('every pair it gives reads at 4.5:1 or better', () => {
    for (const hex of ['#4f46e5', '#fde047', '#0f766e', '#ff0000', '#808080', '#ffffff']) {
      const c = accentColors(hex)!;
      assert.ok(contrast(c.accent, c.accentText) >= 4.5, hex);
      assert.ok(contrast(c.link, '#ffffff') >= 4.5, hex);
    }
  });
});

describe('graceText and remainingText', () => {
  const now = Date.parse('2026-04-16T09:30:00.000Z');
  const cases: Array<[string | null, string]> = [
    ['2026-04-16T09:35:00.000Z', 'Works until 2026-04-16 09:35 UTC (5 min left)'],
    ['2026-04-16T09:30:01.000Z', 'Works until 2026-04-16 09:30 UTC (1 min left)'],
    ['2026-04-16T09:30:00.000Z', 'Grace period over'],
    [null, 'Grace period over'],
  ];
  for (const [at, want] of cases) it(`${String(at)} -> ${want}`, () => assert.equal(graceText(at, now), want));
  it('remaining units', () => {
    assert.equal(remainingText(1234567, false), '1,234,567');
    assert.equal(remainingText(0, false), '0');
    assert.equal(remainingText(9007199254740991, true), 'Unlimited');
  });
  it('monthsAgo: the first of a month, in UTC, across a year', () => {
    assert.equal(monthsAgo(new Date('2026-02-15T12:00:00Z'), 5), '2025-09-01T00:00:00.000Z');
    assert.equal(monthsAgo(new Date('2026-12-31T23:59:59Z'), -1), '2027-01-01T00:00:00.000Z');
  });
});

describe('planTitle: a plan as the hub names it, never by its product id', () => {
  const cases: Array<[Parameters<typeof planTitle>[0], string]> = [
    [{ productName: 'Demo Search API', plan: { offeringId: 'off_1', name: 'Pro', priceText: '$49.00/mo' } }, 'Pro (Demo Search API)'],
    [{ productName: 'Demo Search API', plan: null }, 'Demo Search API'],
    // A plan named as its product: said once.
    [{ productName: 'Pro', plan: { offeringId: 'off_1', name: 'Pro', priceText: 'Usage-based' } }, 'Pro'],
  ];
  for (const [names, want] of cases) it(want, () => assert.equal(planTitle(names), want));
});

describe("subscriptionLabel: the Create key form's choice", () => {
  const pro = { offeringId: 'off_pro', name: 'Pro', priceText: '$49.00/mo' };
  const sub = (id: string, plan: typeof pro | null, status = 'ACTIVE', productName = 'Search API') => ({ id, productName, plan, status });
  const cases: Array<[string, ReturnType<typeof sub>, Array<ReturnType<typeof sub>>, string]> = [
    ['the only one', sub('sub_1', pro), [sub('sub_1', pro)], 'Pro (Search API), active'],
    ['a status in words', sub('sub_1', pro, 'PAST_DUE'), [sub('sub_1', pro, 'PAST_DUE')], 'Pro (Search API), past due'],
    ['without a plan: the product', sub('sub_1', null), [sub('sub_1', null)], 'Search API, active'],
    ['other plans', sub('sub_1', pro), [sub('sub_1', pro), sub('sub_2', null, 'ACTIVE', 'Chat API')], 'Pro (Search API), active'],
    ['the same plan twice: the id tells them apart', sub('sub_1', pro), [sub('sub_1', pro), sub('sub_2', pro)], 'Pro (Search API), active · sub_1'],
  ];
  for (const [name, one, all, want] of cases) it(name, () => assert.equal(subscriptionLabel(one, all), want));
});

describe('quotaFigure: what is left, with the metric it is of', () => {
  const q = (quotaRemaining: number, quotaUnlimited: boolean, quotaMetric: { name: string; label: string } | null) => ({
    quotaRemaining,
    quotaUnlimited,
    quotaMetric,
  });
  const cases: Array<[ReturnType<typeof q>, { figure: string; caption: string }]> = [
    [q(100000, false, { name: 'api_calls', label: 'API calls' }), { figure: '100,000', caption: 'API calls left' }],
    [q(0, false, { name: 'tokens', label: 'Tokens' }), { figure: '0', caption: 'Tokens left' }],
    [q(2.5, false, { name: 'gpu_seconds', label: 'Gpu seconds' }), { figure: '2.5', caption: 'Gpu seconds left' }],
    [q(9007199254740991, true, null), { figure: 'Unlimited', caption: 'no usage limit' }],
    // No active subscription: nothing left, and no metric to name.
    [q(0, false, null), { figure: '0', caption: 'left' }],
  ];
  for (const [quota, want] of cases) it(`${want.figure} ${want.caption}`, () => assert.deepEqual(quotaFigure(quota), want));
});

describe('endedKindOf: a hub opened without a link is not an expired link', () => {
  const seller = { title: 'Acme developers', returnUrl: null };
  const cases: Array<[string, boolean, typeof seller | null, 'no-link' | 'expired']> = [
    ['no link, and this tab never had a session: how to get one', false, null, 'no-link'],
    ['a link that was used or expired', true, null, 'expired'],
    ['a reload after the session ended in this tab', false, seller, 'expired'],
    ['a used link in a tab that had a session', true, seller, 'expired'],
  ];
  for (const [name, hadLink, remembered, want] of cases) it(name, () => assert.equal(endedKindOf(hadLink, remembered), want));
  it('the no-link page says how to get a link', () => assert.match(NO_LINK_TEXT, /sign in to your account .* open its developer hub/));
});

describe('cardText: the card on file, as much as the API gave', () => {
  const cases: Array<[Parameters<typeof cardText>[0], string]> = [
    [{ brand: 'visa', last4: '4242', expMonth: 4, expYear: 2030 }, 'Visa ending in 4242, expires 04/2030'],
    [{ brand: 'mastercard', last4: '4444', expMonth: 12, expYear: 2031 }, 'Mastercard ending in 4444, expires 12/2031'],
    [{ brand: null, last4: '0005', expMonth: null, expYear: null }, 'Card ending in 0005'],
    [{ brand: 'amex', last4: null, expMonth: 1, expYear: null }, 'Amex'],
  ];
  for (const [card, want] of cases) it(want, () => assert.equal(cardText(card), want));
});

describe('invoicePaymentText: where an invoice’s payment stands, for the customer', () => {
  const declined = { code: 'card_declined', message: 'Your card was declined.' };
  const cases: Array<[Parameters<typeof invoicePaymentText>[0], string]> = [
    [{ paymentStatus: 'paid', lastPaymentError: null, nextPaymentAttempt: null }, 'Paid'],
    [{ paymentStatus: 'void', lastPaymentError: null, nextPaymentAttempt: null }, 'Void'],
    [{ paymentStatus: 'processing', lastPaymentError: null, nextPaymentAttempt: null }, 'Payment in progress'],
    [
      { paymentStatus: 'failed', lastPaymentError: declined, nextPaymentAttempt: '2026-01-13T02:00:00.000Z' },
      'Payment failed: Your card was declined. Next try: 2026-01-13 02:00 UTC.',
    ],
    [
      { paymentStatus: 'failed', lastPaymentError: { code: 'no_payment_method', message: null }, nextPaymentAttempt: null },
      'Payment failed: You have no card on file: add one under Payment method, then pay again.',
    ],
    [
      { paymentStatus: 'requires_action', lastPaymentError: { code: 'authentication_required', message: null }, nextPaymentAttempt: null },
      'Your bank asks you to confirm the payment: use Pay now.',
    ],
    [{ paymentStatus: 'failed', lastPaymentError: { code: 'expired_card', message: null }, nextPaymentAttempt: null }, 'Payment failed: expired card.'],
    [{ paymentStatus: 'partially_paid', lastPaymentError: null, nextPaymentAttempt: null }, 'Partly paid.'],
    [{ paymentStatus: 'unpaid', lastPaymentError: null, nextPaymentAttempt: null }, 'Unpaid.'],
  ];
  for (const [i, want] of cases) it(want, () => assert.equal(invoicePaymentText(i), want));
});

describe('payOutcomeText and returnNoticeOf: what Pay now and the provider’s pages came to', () => {
  it('paid, failed with the reason (and where to add a card), still processing', () => {
    assert.equal(payOutcomeText({ status: 'succeeded', failureCode: null, failureMessage: null }), 'Paid. Thank you!');
    assert.equal(
      payOutcomeText({ status: 'failed', failureCode: 'card_declined', failureMessage: 'Your card was declined.' }),
      'The payment failed: Your card was declined.',
    );
    assert.equal(
      payOutcomeText({ status: 'failed', failureCode: 'no_payment_method', failureMessage: 'The customer has no payment method on file.' }),
      'The payment failed: You have no card on file: add one under Payment method, then pay again.',
    );
    assert.match(payOutcomeText({ status: 'pending', failureCode: null, failureMessage: null }), /being processed/);
    assert.match(payOutcomeText({ status: 'requires_action', failureCode: null, failureMessage: null }), /try Pay now again/);
  });
  const cases: Array<[string, RegExp | null]> = [
    ['?card=added', /your card is saved/],
    ['?card=cancelled', /^No card was added\.$/],
    ['?invoice=inv_1&payment_intent=pi_1&redirect_status=succeeded', /your payment is confirmed/],
    ['?invoice=inv_1&payment_intent=pi_1&redirect_status=failed', /not confirmed/],
    ['?invoice=inv_1', null],
    ['', null],
  ];
  for (const [search, want] of cases)
    it(`returnNoticeOf(${JSON.stringify(search)})`, () => {
      const got = returnNoticeOf(search);
      if (want === null) assert.equal(got, null);
      else assert.match(got ?? '', want);
    });
});
