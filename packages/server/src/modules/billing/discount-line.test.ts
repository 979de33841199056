import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SubscriptionDiscount } from '../subscriptions/subscription.js';
import { discountAfterInvoice, discountLine, rediscounted } from './discount-line.js';
import { NO_UNIT, type InvoiceLine, type InvoiceLineType } from './rate-period.js';

const line = (type: InvoiceLineType, amount: string): InvoiceLine => ({ ...NO_UNIT, type, description: type, amount });
const discount = (periodsLeft: number): SubscriptionDiscount => ({
  percentOff: '20',
  periods: 3,
  periodsLeft,
  source: 'retention_offer',
  acceptanceId: 'roa_1',
});

describe('discountLine: -20% of the entry-price, usage and minimum-fee lines, rounded half up once', () => {
  const cases: Array<[string, string, InvoiceLine[], string]> = [
    ['USD, rounds up at .6 of a cent', 'USD', [line('entry_price', '49.99'), line('usage', '12.34')], '-12.47'],
    ['USD, rounds down at .4 of a cent', 'USD', [line('entry_price', '49.99'), line('usage', '0.03')], '-10.00'],
    ['USD, minimum fees count', 'USD', [line('usage', '1.00'), line('minimum_fee', '9.00')], '-2.00'],
    ['USD, adjustments do not count', 'USD', [line('entry_price', '10.00'), line('adjustment', '5.00')], '-2.00'],
    ['JPY, to the yen', 'JPY', [line('entry_price', '4980'), line('usage', '3')], '-997'],
    ['JPY, .4 of a yen rounds down', 'JPY', [line('entry_price', '4980'), line('usage', '12')], '-998'],
    ['KWD, to the third digit', 'KWD', [line('usage', '0.013')], '-0.003'],
    ['nothing to discount: 0, never -0', 'USD', [line('entry_price', '0.00')], '0.00'],
    ['a negative base takes nothing off', 'USD', [line('proration', '-5.00')], '0.00'],
  ];
  for (const [name, currency, lines, amount] of cases) {
    it(name, () => assert.equal(discountLine(discount(3), lines, currency).amount, amount));
  }

  it('names which invoice of the three it is, and holds the percentage as its rate', () => {
    const lines = [line('entry_price', '10.00')];
    assert.deepEqual(
      [3, 2, 1].map((left) => discountLine(discount(left), lines, 'USD').description),
      ['Retention discount: 20% off (invoice 1 of 3)', 'Retention discount: 20% off (invoice 2 of 3)', 'Retention discount: 20% off (invoice 3 of 3)'],
    );
    assert.equal(discountLine(discount(3), lines, 'USD').rate, '20');
  });

  it('counts down to null after the last invoice', () => {
    assert.equal(discountAfterInvoice(discount(3))?.periodsLeft, 2);
    assert.equal(discountAfterInvoice(discount(1)), null);
  });
});

describe('rediscounted: a re-rated draft', () => {
  it('recomputes the one discount line from the lines as they are now, and puts it after them', () => {
    const before = [line('entry_price', '49.99'), discountLine(discount(3), [line('entry_price', '49.99'), line('usage', '12.34')], 'USD')];
    const after = rediscounted([...before, line('usage', '20.00')], 'USD');
    assert.deepEqual(
      after.map((l) => [l.type, l.amount]),
      [
        ['entry_price', '49.99'],
        ['usage', '20.00'],
        ['discount', '-14.00'],
      ],
    );
    assert.deepEqual(rediscounted(after, 'USD'), after, 'again: the same, never a second discount');
  });

  it('leaves lines without a discount as they are', () => {
    const lines = [line('entry_price', '49.99'), line('usage', '1.00')];
    assert.deepEqual(rediscounted(lines, 'USD'), lines);
  });
});
