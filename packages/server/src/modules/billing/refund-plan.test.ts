import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { manualPayment, type Payment } from '../payments/payment.js';
import type { Refund } from '../payments/refund.js';
import { planRefund, refundedAfter, type RefundChoice, type RefundPart } from './refund-plan.js';

const paid = { id: 'inv_1', status: 'paid' as const, currency: 'USD', amountPaid: '30.00' };

const stripe = (id: string, amount: string, createdAt: number, amountRefunded = '0.00'): Payment => ({
  ...manualPayment({ id, invoiceId: 'inv_1', customerId: 'cus_1', amount, currency: 'USD', reference: null, paidAt: createdAt, createdAt }),
  provider: 'stripe',
  providerReference: `pi_${id}`,
  attempt: 1,
  amountRefunded,
});
const manual = (id: string, amount: string, createdAt: number, amountRefunded = '0.00'): Payment => ({
  ...manualPayment({ id, invoiceId: 'inv_1', customerId: 'cus_1', amount, currency: 'USD', reference: null, paidAt: createdAt, createdAt }),
  amountRefunded,
});
const refund = (paymentId: string | null, amount: string, status: Refund['status'] = 'succeeded') => ({ paymentId, amount, status });

describe('billing.planRefund: how a credit note on a paid invoice gives money back', () => {
  const ok: Array<[rule: string, payments: Payment[], earlier: ReturnType<typeof refund>[], total: string, choice: RefundChoice, parts: RefundPart[]]> = [
    [
      'provider, the whole note by default, from the one Stripe payment',
      [stripe('p1', '30.00', 1)],
      [],
      '30.00',
      { method: 'provider' },
      [{ paymentId: 'p1', amount: '30.00' }],
    ],
    [
      'provider, an amount below the note',
      [stripe('p1', '30.00', 1)],
      [],
      '10.00',
      { method: 'provider', amount: '4.5' },
      [{ paymentId: 'p1', amount: '4.50' }],
    ],
    [
      'provider, newest payment first, then the older one',
      [stripe('p1', '10.00', 1), stripe('p2', '20.00', 2)],
      [],
      '25.00',
      { method: 'provider' },
      [
        { paymentId: 'p2', amount: '20.00' },
        { paymentId: 'p1', amount: '5.00' },
      ],
    ],
    [
      'provider, what earlier refunds took is skipped (pending ones too)',
      [stripe('p1', '10.00', 1), stripe('p2', '20.00', 2)],
      [refund('p2', '15.00'), refund('p2', '5.00', 'pending')],
      '8.00',
      { method: 'provider' },
      [{ paymentId: 'p1', amount: '8.00' }],
    ],
    [
      'provider, a failed refund does not count',
      [stripe('p1', '30.00', 1)],
      [refund('p1', '30.00', 'failed')],
      '30.00',
      { method: 'provider' },
      [{ paymentId: 'p1', amount: '30.00' }],
    ],
    [
      'out_of_band takes the manual payment, never Stripe’s',
      [stripe('p1', '20.00', 2), manual('m1', '10.00', 1)],
      [],
      '10.00',
      { method: 'out_of_band' },
      [{ paymentId: 'm1', amount: '10.00' }],
    ],
    ['out_of_band beyond the recorded payments (marked paid): no payment', [], [], '12.00', { method: 'out_of_band' }, [{ paymentId: null, amount: '12.00' }]],
    ['customer_balance names no payment', [stripe('p1', '30.00', 1)], [], '12.00', { method: 'customer_balance' }, [{ paymentId: null, amount: '12.00' }]],
  ];
  for (const [rule, payments, earlier, total, choice, parts] of ok) {
    it(rule, () => assert.deepEqual(planRefund(paid, payments, earlier, total, choice), { problems: [], parts }));
  }

  const refused: Array<
    [
      rule: string,
      invoice: typeof paid | (Omit<typeof paid, 'status'> & { status: 'finalized' }),
      payments: Payment[],
      earlier: ReturnType<typeof refund>[],
      total: string,
      choice: RefundChoice,
      field: string,
      message: RegExp,
    ]
  > = [
    ['an invoice not paid', { ...paid, status: 'finalized' }, [], [], '5.00', { method: 'provider' }, 'body.refund', /only a paid invoice/],
    [
      'more than the credit note',
      paid,
      [stripe('p1', '30.00', 1)],
      [],
      '5.00',
      { method: 'provider', amount: '5.01' },
      'body.refund.amount',
      /more than the credit note \(5\.00 USD\)/,
    ],
    [
      'more minor digits than the currency',
      paid,
      [stripe('p1', '30.00', 1)],
      [],
      '5.00',
      { method: 'provider', amount: '1.001' },
      'body.refund.amount',
      /minor digits/,
    ],
    ['zero', paid, [stripe('p1', '30.00', 1)], [], '5.00', { method: 'provider', amount: '0' }, 'body.refund.amount', /more than 0/],
    [
      'more than was paid and not yet given back',
      paid,
      [stripe('p1', '30.00', 1)],
      [refund('p1', '25.00'), refund(null, '1.00')],
      '5.00',
      { method: 'customer_balance' },
      'body.refund.amount',
      /not yet given back \(4\.00 USD\)/,
    ],
    [
      'through Stripe, more than its payments have left (a manual part)',
      paid,
      [stripe('p1', '20.00', 2), manual('m1', '10.00', 1)],
      [],
      '25.00',
      { method: 'provider' },
      'body.refund.amount',
      /Stripe payments have left to refund \(20\.00 USD\).*out_of_band/,
    ],
    [
      'through Stripe, less what Stripe says was refunded in its dashboard',
      paid,
      [stripe('p1', '30.00', 1, '25.00')],
      [refund('p1', '10.00')],
      '7.00',
      { method: 'provider' },
      'body.refund.amount',
      /left to refund \(5\.00 USD\)/,
    ],
  ];
  for (const [rule, invoice, payments, earlier, total, choice, field, message] of refused) {
    it(`400: ${rule}`, () => {
      const r = planRefund(invoice, payments, earlier, total, choice);
      assert.deepEqual(r.parts, []);
      assert.deepEqual(
        r.problems.map((p) => p.field),
        [field],
      );
      assert.match(r.problems[0]!.message, message);
    });
  }
});

describe('billing.refundedAfter: a payment’s amountRefunded only grows', () => {
  const p = stripe('p1', '30.00', 1, '10.00');
  const cases: Array<[rule: string, refunds: ReturnType<typeof refund>[], reported: string | null, expected: string]> = [
    ['our succeeded refunds beyond what it shows', [refund('p1', '10.00'), refund('p1', '5.00')], null, '15.00'],
    ['pending and failed refunds do not count yet', [refund('p1', '12.00', 'pending'), refund('p1', '20.00', 'failed')], null, '10.00'],
    ['another payment’s refunds do not count', [refund('p2', '20.00')], null, '10.00'],
    ['Stripe’s count beyond ours (a dashboard refund)', [refund('p1', '10.00')], '25', '25.00'],
    ['an older count from Stripe changes nothing', [refund('p1', '15.00')], '5.00', '15.00'],
    ['the same count again changes nothing', [], '10.00', '10.00'],
  ];
  for (const [rule, refunds, reported, expected] of cases) it(rule, () => assert.equal(refundedAfter(p, refunds, reported), expected));
});
