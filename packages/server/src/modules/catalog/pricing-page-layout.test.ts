import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BillingPeriod, Offering } from '@tollgate/pricing';
import { layoutOfferings, savingsAgainstMonthly, type SwitchPeriod } from './pricing-page-layout.js';

function offering(id: string, name: string, billingPeriod: BillingPeriod, entryPrice: string | null, currency = 'USD'): Offering {
  return { id, name, billingMode: 'POSTPAID', currency, entryPrice, billingPeriod, trialDays: 0, ratePlanIds: [] };
}

describe('savingsAgainstMonthly: per month against the same plan monthly, whole percent rounded down', () => {
  const monthly49 = offering('m', 'Pro', 'MONTHLY', '49');
  const cases: Array<[string, Offering, Offering, number | null]> = [
    // 12 × 49 = 588; 98 / 588 = 16.67%: never overstated, so 16.
    ['$490/yr against $49/mo: 16.67% → 16', offering('a', 'Pro', 'ANNUAL', '490'), monthly49, 16],
    ['$480/yr against $50/mo: exactly 20%', offering('a', 'Pro', 'ANNUAL', '480'), offering('m', 'Pro', 'MONTHLY', '50'), 20],
    ['$120/qtr against $50/mo: 150 → 120 is 20%', offering('q', 'Pro', 'QUARTERLY', '120'), offering('m', 'Pro', 'MONTHLY', '50'), 20],
    [
      '$99.99/qtr against $33.34/mo: 0.03% → no saving worth a line',
      offering('q', 'Pro', 'QUARTERLY', '99.99'),
      offering('m', 'Pro', 'MONTHLY', '33.34'),
      null,
    ],
    ['$11.88/yr against $1/mo: 1% exactly', offering('a', 'Pro', 'ANNUAL', '11.88'), offering('m', 'Pro', 'MONTHLY', '1'), 1],
    ['$11.8801/yr against $1/mo: 0.9999% → rounds down to 0, so none', offering('a', 'Pro', 'ANNUAL', '11.8801'), offering('m', 'Pro', 'MONTHLY', '1'), null],
    // On a whole percent exactly: 34, where a float (0.34 × 100 = 34.00000000000001 or 33.99…) could slip.
    ['$7.92/yr against $1/mo: 34% exactly', offering('a', 'Pro', 'ANNUAL', '7.92'), offering('m', 'Pro', 'MONTHLY', '1'), 34],
    ['$7.9201/yr against $1/mo: 33.999…% → 33', offering('a', 'Pro', 'ANNUAL', '7.9201'), offering('m', 'Pro', 'MONTHLY', '1'), 33],
    ['the same per month: no saving', offering('a', 'Pro', 'ANNUAL', '588'), monthly49, null],
    ['dearer per month: no saving', offering('a', 'Pro', 'ANNUAL', '600'), monthly49, null],
    ['free annually against $49/mo: 100%', offering('a', 'Pro', 'ANNUAL', '0'), monthly49, 100],
    ['a free monthly plan: nothing to compare against', offering('a', 'Pro', 'ANNUAL', '10'), offering('m', 'Pro', 'MONTHLY', '0'), null],
    ['no entry price on the annual', offering('a', 'Pro', 'ANNUAL', null), monthly49, null],
    ['no entry price on the monthly', offering('a', 'Pro', 'ANNUAL', '490'), offering('m', 'Pro', 'MONTHLY', null), null],
    ['another currency', offering('a', 'Pro', 'ANNUAL', '490', 'EUR'), monthly49, null],
    ['the currency compared case-insensitively', offering('a', 'Pro', 'ANNUAL', '490', 'usd'), monthly49, 16],
    ['ONE_TIME has no per-month price', offering('o', 'Pro', 'ONE_TIME', '100'), monthly49, null],
    ['a monthly against a monthly', offering('x', 'Pro', 'MONTHLY', '40'), monthly49, null],
    ['against a sibling that is not monthly', offering('a', 'Pro', 'ANNUAL', '490'), offering('q', 'Pro', 'QUARTERLY', '147'), null],
    [
      'JPY, no minor unit: ¥100,000/yr against ¥10,000/mo is 16.67% → 16',
      offering('a', 'Pro', 'ANNUAL', '100000', 'JPY'),
      offering('m', 'Pro', 'MONTHLY', '10000', 'JPY'),
      16,
    ],
  ];
  for (const [name, longer, monthly, want] of cases) it(name, () => assert.equal(savingsAgainstMonthly(longer, monthly), want));
});

describe('layoutOfferings: the period switch and which card shows in which view', () => {
  type Row = [id: string, period: SwitchPeriod | null, savings: number | null];
  const cases: Array<{ name: string; offerings: Offering[]; periods: SwitchPeriod[]; defaultPeriod: SwitchPeriod | null; slots: Row[] }> = [
    {
      name: 'no same-named plans: no switch, every card in every view, storefront order',
      offerings: [offering('free', 'Free', 'MONTHLY', '0'), offering('pro', 'Pro', 'MONTHLY', '49'), offering('ent', 'Enterprise', 'ANNUAL', null)],
      periods: [],
      defaultPeriod: null,
      slots: [
        ['free', null, null],
        ['pro', null, null],
        ['ent', null, null],
      ],
    },
    {
      name: 'Pro monthly and annually: a Monthly/Annually switch, Monthly first; the annual card at the monthly one’s slot',
      offerings: [
        offering('free', 'Free', 'MONTHLY', '0'),
        offering('pro-m', 'Pro', 'MONTHLY', '49'),
        offering('ent', 'Enterprise', 'MONTHLY', null),
        offering('pro-a', 'Pro', 'ANNUAL', '490'),
      ],
      periods: ['MONTHLY', 'ANNUAL'],
      defaultPeriod: 'MONTHLY',
      slots: [
        ['free', null, null],
        ['pro-m', 'MONTHLY', null],
        ['pro-a', 'ANNUAL', 16],
        ['ent', null, null],
      ],
    },
    {
      name: 'names match trimmed and case-insensitively; the group sits where its first member (here the annual) is',
      offerings: [offering('pro-a', ' pro ', 'ANNUAL', '490'), offering('basic', 'Basic', 'MONTHLY', '9'), offering('pro-m', 'PRO', 'MONTHLY', '49')],
      periods: ['MONTHLY', 'ANNUAL'],
      defaultPeriod: 'MONTHLY',
      slots: [
        ['pro-a', 'ANNUAL', 16],
        ['pro-m', 'MONTHLY', null],
        ['basic', null, null],
      ],
    },
    {
      name: 'no monthly member: the switch opens on the first period it has, and there is no saving to state',
      offerings: [offering('pro-a', 'Pro', 'ANNUAL', '490'), offering('pro-q', 'Pro', 'QUARTERLY', '140')],
      periods: ['QUARTERLY', 'ANNUAL'],
      defaultPeriod: 'QUARTERLY',
      slots: [
        ['pro-a', 'ANNUAL', null],
        ['pro-q', 'QUARTERLY', null],
      ],
    },
    {
      name: 'three periods across two groups: the switch lists all three in order',
      offerings: [
        offering('a-m', 'Team', 'MONTHLY', '20'),
        offering('a-q', 'Team', 'QUARTERLY', '54'),
        offering('b-m', 'Scale', 'MONTHLY', '100'),
        offering('b-a', 'Scale', 'ANNUAL', '1000'),
      ],
      periods: ['MONTHLY', 'QUARTERLY', 'ANNUAL'],
      defaultPeriod: 'MONTHLY',
      slots: [
        ['a-m', 'MONTHLY', null],
        ['a-q', 'QUARTERLY', 10],
        ['b-m', 'MONTHLY', null],
        ['b-a', 'ANNUAL', 16],
      ],
    },
    {
      name: 'a ONE_TIME offering of the same name is not part of the group (no period to switch to)',
      offerings: [offering('pro-m', 'Pro', 'MONTHLY', '49'), offering('pro-once', 'Pro', 'ONE_TIME', '500')],
      periods: [],
      defaultPeriod: null,
      slots: [
        ['pro-m', null, null],
        ['pro-once', null, null],
      ],
    },
    {
      name: 'two monthly offerings of one name in different currencies: each annual compares with its own currency',
      offerings: [
        offering('usd-m', 'Pro', 'MONTHLY', '49'),
        offering('eur-m', 'Pro', 'MONTHLY', '45', 'EUR'),
        offering('eur-a', 'Pro', 'ANNUAL', '432', 'EUR'),
        offering('usd-a', 'Pro', 'ANNUAL', '490'),
      ],
      periods: ['MONTHLY', 'ANNUAL'],
      defaultPeriod: 'MONTHLY',
      slots: [
        ['usd-m', 'MONTHLY', null],
        ['eur-m', 'MONTHLY', null],
        ['eur-a', 'ANNUAL', 20],
        ['usd-a', 'ANNUAL', 16],
      ],
    },
    {
      name: 'the same name twice in one period only: not a group',
      offerings: [offering('a', 'Pro', 'MONTHLY', '49'), offering('b', 'Pro', 'MONTHLY', '59')],
      periods: [],
      defaultPeriod: null,
      slots: [
        ['a', null, null],
        ['b', null, null],
      ],
    },
    { name: 'no offerings', offerings: [], periods: [], defaultPeriod: null, slots: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const layout = layoutOfferings(c.offerings);
      assert.deepEqual(layout.periods, c.periods);
      assert.equal(layout.defaultPeriod, c.defaultPeriod);
      assert.deepEqual(
        layout.slots.map((s): Row => [s.offering.id, s.period, s.savingsPercent]),
        c.slots,
      );
      // Every offering exactly once, with its storefront position.
      assert.deepEqual(
        layout.slots.map((s) => s.index).sort((a, b) => a - b),
        c.offerings.map((_, i) => i),
      );
      for (const s of layout.slots) assert.equal(c.offerings[s.index], s.offering);
    });
  }
});
