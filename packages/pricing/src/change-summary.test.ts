import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeChange, formatDate, type ChangeSummaryInput } from './change-summary.js';

const DEC15 = Date.UTC(2026, 11, 15, 12);
const NOV20 = Date.UTC(2026, 10, 20, 9);
const base: ChangeSummaryInput = {
  action: 'UPGRADE',
  applyAt: 'IMMEDIATE',
  currency: 'USD',
  fromName: 'Pro',
  toName: 'Agents',
  effectiveAt: NOV20,
  credit: null,
  debit: null,
  usageCharge: null,
  nextPrice: { amount: '199', interval: 'MONTHLY' },
  nextRenewalAt: DEC15,
};

const cases: Array<[string, Partial<ChangeSummaryInput>, string]> = [
  [
    'immediate upgrade: debit less credit, net today, then the new price',
    { credit: '40.83', debit: '165.83', usageCharge: '12.00' },
    'Switch to Agents now. $165.83 for the rest of this period, less $40.83 for unused time on Pro: $125.00 today. Usage so far ($12.00) is billed now. From Dec 15, 2026: $199.00/mo.',
  ],
  [
    'immediate downgrade: the credit exceeds the debit, the difference comes back',
    { action: 'DOWNGRADE', toName: 'Starter', credit: '40.83', debit: '10.00', nextPrice: { amount: '12', interval: 'MONTHLY' } },
    'Switch to Starter now. $40.83 for unused time on Pro is credited, and $10.00 for the rest of this period is charged: $30.83 back. From Dec 15, 2026: $12.00/mo.',
  ],
  [
    'immediate downgrade to a usage-only offering: a credit, then usage only',
    { action: 'DOWNGRADE', toName: 'Starter', credit: '40.83', debit: '0.00', nextPrice: null },
    'Switch to Starter now. $40.83 for unused time on Pro is credited. From Dec 15, 2026: usage only.',
  ],
  [
    'immediate upgrade from a usage-only offering: the debit alone',
    { fromName: 'Starter', debit: '165.83', credit: '0.00' },
    'Switch to Agents now. $165.83 for the rest of this period today. From Dec 15, 2026: $199.00/mo.',
  ],
  [
    'a change in a trial charges nothing now',
    { credit: '0.00', debit: '0.00' },
    'Switch to Agents now. No charge for the rest of this period. From Dec 15, 2026: $199.00/mo.',
  ],
  [
    'a period-end downgrade: nothing until then',
    { action: 'DOWNGRADE', applyAt: 'PERIOD_END', toName: 'Starter', effectiveAt: DEC15, nextPrice: null },
    'Switch to Starter on Dec 15, 2026. Nothing changes or is charged until then. From Dec 15, 2026: usage only.',
  ],
  [
    'JPY amounts show two decimals, as the pricing page writes prices',
    { currency: 'JPY', credit: '1000', debit: '3000', nextPrice: { amount: '5000', interval: 'ANNUAL' } },
    'Switch to Agents now. ¥3,000.00 for the rest of this period, less ¥1,000.00 for unused time on Pro: ¥2,000.00 today. From Dec 15, 2026: ¥5,000.00/yr.',
  ],
  [
    'an immediate cancel names no refund figure',
    { action: 'CANCEL', toName: null, usageCharge: '3.50', nextPrice: null, nextRenewalAt: null },
    'Cancel now: Pro ends immediately and its API keys stop working. Usage so far ($3.50) is billed now. Unused time is credited on a credit note.',
  ],
  [
    'a period-end cancel: active until the end',
    { action: 'CANCEL', applyAt: 'PERIOD_END', toName: null, effectiveAt: DEC15, nextPrice: null, nextRenewalAt: null },
    'Cancel on Dec 15, 2026: Pro stays active until then, and nothing is charged after it.',
  ],
];

describe('describeChange: the preview’s summary line', () => {
  for (const [rule, patch, expected] of cases) it(rule, () => assert.equal(describeChange({ ...base, ...patch }), expected));
});

describe('formatDate', () => {
  it('is the UTC date whatever the time of day', () => {
    assert.equal(formatDate(Date.UTC(2026, 0, 31, 23, 59, 59, 999)), 'Jan 31, 2026');
    assert.equal(formatDate(Date.UTC(2028, 1, 29)), 'Feb 29, 2028');
  });
});
