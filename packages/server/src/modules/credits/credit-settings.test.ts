import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkCreditSettings, creditActions, DEFAULT_STATE, NO_ACTIONS, type CreditActions, type CreditSettings } from './credit-settings.js';
import { AppError } from '../../lib/errors.js';

type State = Parameters<typeof creditActions>[0];
const base: State = { lowBalanceThreshold: '3.00', autoTopUp: { threshold: '1.00', amount: '10.00', cost: '9.00', maxPerPeriod: 2 }, ...DEFAULT_STATE };
const only = (a: Partial<CreditActions>): CreditActions => ({ ...NO_ACTIONS, ...a });

describe('creditActions: what a live balance sets off, once per crossing', () => {
  const cases: Array<[string, Partial<State>, string, string, CreditActions]> = [
    ['above every threshold, all armed: nothing', {}, '5.00', 'p1', only({})],
    ['exactly at the low threshold: not below it, nothing', {}, '3.00', 'p1', only({})],
    ['below the low threshold, armed: the alert', {}, '2.99', 'p1', only({ alertLow: true })],
    ['below it again, disarmed: nothing (one alert per crossing)', { lowArmed: false }, '2.50', 'p1', only({})],
    ['back at the threshold, disarmed: re-armed', { lowArmed: false }, '3.00', 'p1', only({ rearmLow: true })],
    ['below the top-up threshold: the alert and a top-up', {}, '0.99', 'p1', only({ alertLow: true, topUp: true })],
    ['a top-up waiting for its payment: no second one', { lowArmed: false, topUpArmed: false }, '0.50', 'p1', only({})],
    ['the period’s maximum reached: no top-up', { lowArmed: false, topUpPeriodKey: 'p1', topUpsInPeriod: 2 }, '0.50', 'p1', only({})],
    ['a new period: the count starts again', { lowArmed: false, topUpPeriodKey: 'p1', topUpsInPeriod: 2 }, '0.50', 'p2', only({ topUp: true })],
    ['zero: exhausted (and the top-up)', { lowArmed: false }, '0.00', 'p1', only({ alertExhausted: true, topUp: true })],
    ['negative, exhausted already: nothing new', { lowArmed: false, exhaustedArmed: false, topUpArmed: false }, '-2.00', 'p1', only({})],
    ['above zero again: exhausted re-armed', { lowArmed: false, exhaustedArmed: false, topUpArmed: false }, '0.01', 'p1', only({ rearmExhausted: true })],
    ['no settings at all: only the exhausted alert', { lowBalanceThreshold: null, autoTopUp: null }, '0', 'p1', only({ alertExhausted: true })],
    [
      'a top-up threshold of 0: fires only below zero',
      { lowBalanceThreshold: null, autoTopUp: { threshold: '0', amount: '5', cost: '5', maxPerPeriod: 1 } },
      '0',
      'p1',
      only({ alertExhausted: true }),
    ],
  ];
  for (const [name, over, live, period, expected] of cases) it(name, () => assert.deepEqual(creditActions({ ...base, ...over }, live, period), expected));
});

describe('checkCreditSettings: amounts in the currency’s minor unit, refusals naming the field', () => {
  it('normalizes amounts and defaults (cost: the amount; maxPerPeriod: 1)', () => {
    assert.deepEqual(checkCreditSettings({ lowBalanceThreshold: '3', autoTopUp: { threshold: '1', amount: '10' } }, 'USD'), {
      lowBalanceThreshold: '3.00',
      autoTopUp: { threshold: '1.00', amount: '10.00', cost: '10.00', maxPerPeriod: 1 },
    } satisfies Pick<CreditSettings, 'lowBalanceThreshold' | 'autoTopUp'>);
    assert.deepEqual(checkCreditSettings({ autoTopUp: { threshold: '100', amount: '5000', cost: '4500', maxPerPeriod: 3 } }, 'JPY').autoTopUp, {
      threshold: '100',
      amount: '5000',
      cost: '4500',
      maxPerPeriod: 3,
    });
    assert.deepEqual(checkCreditSettings({}, 'KWD'), { lowBalanceThreshold: null, autoTopUp: null });
  });
  const refusals: Array<[string, Parameters<typeof checkCreditSettings>[0], string, string]> = [
    ['a negative threshold', { lowBalanceThreshold: '-1' }, 'USD', 'body.lowBalanceThreshold'],
    ['text that is no amount', { lowBalanceThreshold: 'five' }, 'USD', 'body.lowBalanceThreshold'],
    ['an amount of 0', { autoTopUp: { threshold: '1', amount: '0' } }, 'USD', 'body.autoTopUp.amount'],
    ['a threshold finer than the yen', { autoTopUp: { threshold: '1.5', amount: '100' } }, 'JPY', 'body.autoTopUp.threshold'],
    ['a cost finer than the fils', { autoTopUp: { threshold: '1', amount: '1', cost: '0.0005' } }, 'KWD', 'body.autoTopUp.cost'],
    ['a currency with no minor unit', {}, 'XAU', 'params.currency'],
  ];
  for (const [name, input, currency, field] of refusals)
    it(`refuses ${name}, naming ${field}`, () =>
      assert.throws(
        () => checkCreditSettings(input, currency),
        (e: unknown) => e instanceof AppError && e.details?.[0]?.field === field,
      ));
});
