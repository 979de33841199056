import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { paymentAmountProblem } from './record-manual-payment.js';

describe('paymentAmountProblem: what may be paid towards what is owed', () => {
  const cases: Array<[string, string, string, RegExp | null]> = [
    ['20.00', '49.00', 'USD', null],
    ['49', '49.00', 'USD', null],
    ['0.01', '0.01', 'USD', null],
    ['1000', '1000', 'JPY', null],
    ['0.125', '1.000', 'KWD', null],
    ['49.01', '49.00', 'USD', /49\.01 USD is more than the invoice still owes \(49\.00 USD\)/],
    ['0', '49.00', 'USD', /more than 0/],
    ['-5', '49.00', 'USD', /more than 0/],
    ['0.00', '49.00', 'USD', /more than 0/],
    ['1.001', '49.00', 'USD', /USD amounts have at most 2 decimals/],
    ['10.5', '1000', 'JPY', /JPY amounts have at most 0 decimals/],
    ['abc', '49.00', 'USD', /not a decimal amount/],
    ['1e3', '49.00', 'USD', /not a decimal amount/],
    [' 5', '49.00', 'USD', /not a decimal amount/],
  ];
  for (const [amount, remaining, currency, problem] of cases) {
    it(`${amount} ${currency} towards ${remaining}: ${problem ? 'refused' : 'accepted'}`, () => {
      const got = paymentAmountProblem(amount, remaining, currency);
      if (problem === null) assert.equal(got, null);
      else assert.match(got ?? '', problem);
    });
  }
});
