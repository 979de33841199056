import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiProblem } from '../src/errors.js';
import {
  attemptOutcomeText,
  attemptText,
  canRecordPayment,
  canRefund,
  canRetryPayment,
  defaultRefundMethod,
  failureText,
  paymentStatusText,
  providerText,
  recordedText,
  recordPaymentBody,
  refundableOf,
  refundBody,
  refundProblem,
  refundText,
  utcDayOf,
  webhookAddress,
  type PaymentForm,
  type Refund,
} from '../src/payments.js';

describe('canRecordPayment: finalized or uncollectible, with something owed', () => {
  const cases: Array<[string, string, boolean]> = [
    ['finalized', '49.00', true],
    ['finalized', '0.01', true],
    ['uncollectible', '12.50', true],
    ['finalized', '0.00', false],
    ['finalized', '0', false],
    ['uncollectible', '0.000', false],
    ['draft', '49.00', false],
    ['paid', '0.00', false],
    ['void', '49.00', false],
    // Not a decimal: no form, rather than a guess.
    ['finalized', '', false],
    ['finalized', 'abc', false],
  ];
  for (const [status, amountRemaining, want] of cases)
    it(`${status} with ${JSON.stringify(amountRemaining)} owed -> ${want}`, () => assert.equal(canRecordPayment({ status, amountRemaining }), want));
});

describe('utcDayOf: the UTC day a date input holds', () => {
  const cases: Array<[number, string]> = [
    [Date.UTC(2026, 0, 15, 12, 0, 0), '2026-01-15'],
    [Date.UTC(2026, 0, 15, 23, 59, 59, 999), '2026-01-15'],
    [Date.UTC(2026, 0, 16, 0, 0, 0), '2026-01-16'],
    [Date.UTC(2024, 1, 29, 6), '2024-02-29'],
  ];
  for (const [ms, want] of cases) it(`${new Date(ms).toISOString()} -> ${want}`, () => assert.equal(utcDayOf(ms), want));
});

describe('recordPaymentBody: the form as the API takes it', () => {
  const today = '2026-01-15';
  const form = (f: Partial<PaymentForm>): PaymentForm => ({ amount: '20', paidOn: today, reference: '', ...f });
  const cases: Array<[string, Partial<PaymentForm>, Record<string, string>]> = [
    ['today: no paidAt, the server takes its own now (a test clock’s, if any)', {}, { amount: '20' }],
    ['no date: the same', { paidOn: '' }, { amount: '20' }],
    ['another day: its start in UTC', { paidOn: '2026-01-10' }, { amount: '20', paidAt: '2026-01-10T00:00:00.000Z' }],
    ['a later day is sent too: the server says it is in the future', { paidOn: '2026-02-01' }, { amount: '20', paidAt: '2026-02-01T00:00:00.000Z' }],
    ['text that is not a day is sent as typed, for the server to name the field', { paidOn: '10/01/2026' }, { amount: '20', paidAt: '10/01/2026' }],
    ['a reference, trimmed', { reference: '  SEPA 0115-77 ' }, { amount: '20', reference: 'SEPA 0115-77' }],
    ['a blank reference is left out', { reference: '   ' }, { amount: '20' }],
    ['the amount trimmed, never parsed: the server judges it', { amount: ' 29.001 ' }, { amount: '29.001' }],
    ['an empty amount is sent empty: the server names it', { amount: '' }, { amount: '' }],
  ];
  for (const [what, f, want] of cases) it(what, () => assert.deepEqual(recordPaymentBody(form(f), today), want));
});

describe('recordedText: what a recorded payment left', () => {
  const cases: Array<[string, { status: string; currency: string; amountRemaining: string }, string]> = [
    ['20.00', { status: 'finalized', currency: 'USD', amountRemaining: '29.00' }, 'Recorded $20.00. Still owed: $29.00.'],
    ['29.00', { status: 'paid', currency: 'USD', amountRemaining: '0.00' }, 'Recorded $29.00. The invoice is paid.'],
    ['500', { status: 'uncollectible', currency: 'JPY', amountRemaining: '1200' }, 'Recorded ¥500. Still owed: ¥1,200.'],
  ];
  for (const [amount, invoice, want] of cases) it(want, () => assert.equal(recordedText(amount, invoice), want));
});

describe('providerText and webhookAddress', () => {
  const providers: Array<[string, string]> = [
    ['manual', 'Recorded by hand'],
    ['stripe', 'Stripe'],
    ['adyen', 'adyen'],
  ];
  for (const [p, want] of providers) it(`${p} -> ${want}`, () => assert.equal(providerText(p), want));

  const addresses: Array<[string, string, string]> = [
    ['https://billing.example.com', '/v1/payments/stripe/webhooks/pp_1', 'https://billing.example.com/v1/payments/stripe/webhooks/pp_1'],
    ['http://127.0.0.1:8080/', '/v1/payments/stripe/webhooks/pp_1', 'http://127.0.0.1:8080/v1/payments/stripe/webhooks/pp_1'],
    ['https://billing.example.com', 'v1/payments/stripe/webhooks/pp_1', 'https://billing.example.com/v1/payments/stripe/webhooks/pp_1'],
    // Should the API answer a whole URL one day, it is shown as it is.
    ['https://billing.example.com', 'https://hooks.example.com/pp_1', 'https://hooks.example.com/pp_1'],
  ];
  for (const [origin, path, want] of addresses) it(`${origin} + ${path} -> ${want}`, () => assert.equal(webhookAddress(origin, path), want));
});

describe('canRetryPayment: finalized, something owed, Stripe connected, nothing in flight', () => {
  const cases: Array<[string, string, string, boolean, boolean]> = [
    ['finalized', '30.00', 'failed', true, true],
    ['finalized', '30.00', 'unpaid', true, true],
    ['finalized', '10.00', 'partially_paid', true, true],
    // Waiting for the buyer: a retry withdraws the page first.
    ['finalized', '30.00', 'requires_action', true, true],
    ['finalized', '30.00', 'processing', true, false],
    ['finalized', '30.00', 'failed', false, false],
    ['finalized', '0.00', 'failed', true, false],
    ['uncollectible', '30.00', 'failed', true, false],
    ['draft', '30.00', 'unpaid', true, false],
    ['paid', '0.00', 'paid', true, false],
  ];
  for (const [status, amountRemaining, paymentStatus, connected, want] of cases)
    it(`${status}, ${amountRemaining} owed, ${paymentStatus}, Stripe ${connected ? 'connected' : 'not connected'} -> ${want}`, () =>
      assert.equal(canRetryPayment({ status, amountRemaining, paymentStatus }, connected), want));
});

describe('an attempt in words', () => {
  it('paymentStatusText: each status, and an unknown one as sent', () => {
    assert.deepEqual(['unpaid', 'processing', 'requires_action', 'failed', 'partially_paid', 'paid', 'void', 'new_one'].map(paymentStatusText), [
      'Unpaid',
      'Processing',
      'Waiting for the buyer to authenticate',
      'Failed',
      'Partly paid',
      'Paid',
      'Void',
      'new_one',
    ]);
  });
  it('attemptText: its number and why; null for a manual payment', () => {
    assert.equal(attemptText({ attempt: 2, trigger: 'manual_retry' }), '#2, operator’s retry');
    assert.equal(attemptText({ attempt: 1, trigger: 'automatic' }), '#1, at finalization');
    assert.equal(attemptText({ attempt: 3, trigger: 'customer' }), '#3, by the customer');
    assert.equal(attemptText({ attempt: 4, trigger: 'later_kind' }), '#4, later_kind');
    assert.equal(attemptText({ attempt: 5, trigger: null }), '#5');
    assert.equal(attemptText({ attempt: null, trigger: null }), null);
  });
  it('failureText: the code and the message, the code alone, or nothing', () => {
    assert.equal(failureText('insufficient_funds', 'Your card has insufficient funds.'), 'insufficient_funds: Your card has insufficient funds.');
    assert.equal(failureText('no_payment_method', null), 'no_payment_method');
    assert.equal(failureText(null, null), null);
  });
  it('attemptOutcomeText: paid, failed with the reason, the buyer needed, no answer yet', () => {
    const p = { amount: '30.00', currency: 'USD', failureCode: null, failureMessage: null };
    assert.equal(attemptOutcomeText({ ...p, status: 'succeeded' }), 'Paid: $30.00 charged. The invoice is paid.');
    assert.equal(
      attemptOutcomeText({ ...p, status: 'failed', failureCode: 'card_declined', failureMessage: 'Your card was declined.' }),
      'The payment failed: Your card was declined. (card_declined)',
    );
    assert.match(attemptOutcomeText({ ...p, status: 'requires_action' }), /send them the link/);
    assert.match(attemptOutcomeText({ ...p, status: 'pending' }), /never charged twice/);
  });
});

describe('refundableOf: what was paid and not yet given back, at most what is left to credit', () => {
  const paid = { amountPaid: '49.00', total: '49.00', creditedTotal: '0.00', currency: 'USD' };
  const r = (amount: string, status = 'succeeded') => ({ amount, status });
  const cases: Array<[string, Partial<typeof paid>, Array<{ amount: string; status: string }>, string]> = [
    ['nothing refunded: all that was paid', {}, [], '49.00'],
    ['a refund made: the rest', { creditedTotal: '10.00' }, [r('10.00')], '39.00'],
    ['a pending refund counts: it may still succeed', { creditedTotal: '10.00' }, [r('10.00', 'pending')], '39.00'],
    ['a failed refund does not count against what was paid', { creditedTotal: '10.00' }, [r('10.00', 'failed')], '39.00'],
    ['…but its credit note still took what is left to credit', { creditedTotal: '30.00' }, [r('10.00', 'failed'), r('5.00')], '19.00'],
    ['a credit note without a refund leaves less to credit than was paid', { creditedTotal: '15.00' }, [r('10.00')], '34.00'],
    ['credited before it was paid: paid less refunds', { amountPaid: '39.00', creditedTotal: '10.00' }, [], '39.00'],
    ['all of it given back', { creditedTotal: '49.00' }, [r('20.00'), r('29.00')], '0.00'],
    ['never below zero (Stripe refunded more from its dashboard)', { amountPaid: '10.00' }, [r('12.00')], '0.00'],
    ['in the currency’s minor units', { amountPaid: '1200', total: '1200', creditedTotal: '0', currency: 'JPY' }, [r('200')], '1000'],
  ];
  for (const [what, invoice, refunds, want] of cases) it(`${what} -> ${want}`, () => assert.equal(refundableOf({ ...paid, ...invoice }, refunds), want));
});

describe('canRefund: a paid invoice with something left to give back', () => {
  const cases: Array<[string, string, boolean]> = [
    ['paid', '49.00', true],
    ['paid', '0.01', true],
    ['paid', '0.00', false],
    // Partly paid is still finalized: the API refuses a refund there (400 naming body.refund).
    ['finalized', '20.00', false],
    ['uncollectible', '20.00', false],
    ['void', '49.00', false],
  ];
  for (const [status, refundable, want] of cases)
    it(`${status}, ${refundable} refundable -> ${want}`, () => assert.equal(canRefund({ status }, refundable), want));
});

describe('defaultRefundMethod: how the newest payment came', () => {
  const p = (provider: string, status = 'succeeded') => ({ provider, status });
  const cases: Array<[string, Array<{ provider: string; status: string }>, string]> = [
    ['Stripe took it: through Stripe', [p('stripe')], 'provider'],
    ['recorded by hand: returned outside Tollgate', [p('manual')], 'out_of_band'],
    ['the newest succeeded payment decides', [p('manual'), p('stripe')], 'provider'],
    ['…not a failed attempt after it', [p('manual'), p('stripe', 'failed')], 'out_of_band'],
    ['spent from the balance: outside Tollgate', [p('stripe'), p('customer_balance')], 'out_of_band'],
    ['no payments (marked paid): outside Tollgate', [], 'out_of_band'],
  ];
  for (const [what, payments, want] of cases) it(`${what} -> ${want}`, () => assert.equal(defaultRefundMethod(payments), want));
});

describe('refundBody: a credit note of one line, all of it given back', () => {
  const cases: Array<[string, Record<string, string>, unknown]> = [
    [
      'the amount is the line and the refund',
      { 'refund.amount': '10.00', 'refund.method': 'out_of_band', reason: 'duplicate' },
      { invoiceId: 'inv_1', reason: 'duplicate', lines: [{ description: 'Refund', amount: '10.00' }], refund: { method: 'out_of_band', amount: '10.00' } },
    ],
    [
      'no reason chosen: none sent, for the server to name',
      { 'refund.amount': '5', 'refund.method': 'provider' },
      { invoiceId: 'inv_1', lines: [{ description: 'Refund', amount: '5' }], refund: { method: 'provider', amount: '5' } },
    ],
    [
      'the amount sent as typed, never parsed: the server judges it',
      { 'refund.amount': '10.001', 'refund.method': 'customer_balance', reason: 'other' },
      { invoiceId: 'inv_1', reason: 'other', lines: [{ description: 'Refund', amount: '10.001' }], refund: { method: 'customer_balance', amount: '10.001' } },
    ],
    [
      'no amount: sent empty, for the server to name',
      { 'refund.method': 'provider', reason: 'other' },
      { invoiceId: 'inv_1', reason: 'other', lines: [{ description: 'Refund', amount: '' }], refund: { method: 'provider', amount: '' } },
    ],
  ];
  // Through JSON, as sent: a value left undefined is no key at all.
  for (const [what, values, want] of cases) it(what, () => assert.deepEqual(JSON.parse(JSON.stringify(refundBody(values, 'inv_1'))), want));
});

describe('refundProblem: the errors on the credit note’s line are the amount’s', () => {
  const e = (field: string | undefined, message = field ?? 'none') => ({ code: 'VALIDATION_FAILED', message, ...(field ? { field } : {}) });
  const problem = (...errors: ReturnType<typeof e>[]): ApiProblem => ({ status: 400, errors, retryAfterSeconds: null });
  const cases: Array<[string, ApiProblem | null, ApiProblem | null]> = [
    ['no problem', null, null],
    [
      'more than is left to credit: at the amount',
      problem(e('body.lines', 'More than the 49.00 left.')),
      problem(e('body.refund.amount', 'More than the 49.00 left.')),
    ],
    [
      'too many minor digits: at the amount',
      problem(e('body.lines.0.amount', 'USD has 2 minor digits.')),
      problem(e('body.refund.amount', 'USD has 2 minor digits.')),
    ],
    [
      'both the line and the refund refused: the refund’s words, once',
      problem(e('body.lines.0.amount', 'line: bad format'), e('body.refund.amount', 'refund: bad format')),
      problem(e('body.refund.amount', 'refund: bad format')),
    ],
    ['more than was paid: as the API names it', problem(e('body.refund.amount')), problem(e('body.refund.amount'))],
    ['the rest as they are', problem(e('body.reason'), e('body.refund'), e(undefined)), problem(e('body.reason'), e('body.refund'), e(undefined))],
  ];
  for (const [what, given, want] of cases) it(what, () => assert.deepEqual(refundProblem(given), want));
});

describe('refundText: a refund as it stands', () => {
  const r: Omit<Refund, 'method' | 'status'> = {
    id: 're_1',
    amount: '10.00',
    currency: 'USD',
    failureCode: null,
    failureMessage: null,
    createdAt: '2026-01-15T12:00:00.000Z',
  };
  const cases: Array<[Partial<Refund> & Pick<Refund, 'method' | 'status'>, string]> = [
    [{ method: 'provider', status: 'succeeded' }, 'Through Stripe: $10.00, succeeded.'],
    [{ method: 'provider', status: 'pending' }, 'Through Stripe: $10.00, pending.'],
    [
      { method: 'provider', status: 'failed', failureCode: 'charge_already_refunded', failureMessage: 'Charge ch_1 has already been refunded.' },
      'Through Stripe: $10.00, failed (charge_already_refunded: Charge ch_1 has already been refunded.).',
    ],
    [{ method: 'out_of_band', status: 'succeeded' }, 'Returned outside Tollgate: $10.00, succeeded.'],
    [{ method: 'customer_balance', status: 'succeeded', amount: '500', currency: 'JPY' }, 'To the customer’s balance: ¥500, succeeded.'],
    [{ method: 'later_kind', status: 'succeeded' }, 'later_kind: $10.00, succeeded.'],
  ];
  for (const [given, want] of cases) it(want, () => assert.equal(refundText({ ...r, ...given }), want));
});
