import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { HOUR_MS, monthStart } from '../../lib/periods.js';
import { planTotalParts, type TotalPart } from './period-total-parts.js';

const ms = (iso: string) => Date.parse(`${iso}Z`);
const hours = (sign: 1 | -1, from: string, to: string): TotalPart => ({ source: 'hours', sign, from: ms(from), to: ms(to) });
const months = (from: string, to: string): TotalPart => ({ source: 'months', sign: 1, from: ms(from), to: ms(to) });

describe('planTotalParts (pure)', () => {
  const cases: Array<[string, [string, string], TotalPart[]]> = [
    ['an exact month is its row', ['2026-03-01T00:00', '2026-04-01T00:00'], [months('2026-03-01T00:00', '2026-04-01T00:00')]],
    ['an empty range has no part', ['2026-03-10T05:00', '2026-03-10T05:00'], []],
    ['one hour is that hour', ['2026-03-10T05:00', '2026-03-10T06:00'], [hours(1, '2026-03-10T05:00', '2026-03-10T06:00')]],
    ['less than half a month inside it: its hours', ['2026-03-10T05:00', '2026-03-12T07:00'], [hours(1, '2026-03-10T05:00', '2026-03-12T07:00')]],
    [
      'more than half a month inside it: the row less the hours before and after',
      ['2026-03-03T04:00', '2026-03-29T00:00'],
      [hours(-1, '2026-03-01T00:00', '2026-03-03T04:00'), months('2026-03-01T00:00', '2026-04-01T00:00'), hours(-1, '2026-03-29T00:00', '2026-04-01T00:00')],
    ],
    // March has 744 hours: 372 covered against 372 uncovered reads the hours, 373 the row.
    ['exactly half a month: its hours', ['2026-03-01T00:00', '2026-03-16T12:00'], [hours(1, '2026-03-01T00:00', '2026-03-16T12:00')]],
    [
      'one hour more than half: the row less the rest',
      ['2026-03-01T00:00', '2026-03-16T13:00'],
      [months('2026-03-01T00:00', '2026-04-01T00:00'), hours(-1, '2026-03-16T13:00', '2026-04-01T00:00')],
    ],
    [
      'February 2026 (672 hours): 337 covered is more than half',
      ['2026-02-01T00:00', '2026-02-15T01:00'],
      [months('2026-02-01T00:00', '2026-03-01T00:00'), hours(-1, '2026-02-15T01:00', '2026-03-01T00:00')],
    ],
    [
      'February 2028 (leap, 696 hours): the same 337 hours are not',
      ['2028-02-01T00:00', '2028-02-15T01:00'],
      [hours(1, '2028-02-01T00:00', '2028-02-15T01:00')],
    ],
    [
      'February 2028: 349 hours are',
      ['2028-02-01T00:00', '2028-02-15T13:00'],
      [months('2028-02-01T00:00', '2028-03-01T00:00'), hours(-1, '2028-02-15T13:00', '2028-03-01T00:00')],
    ],
    ['ending on a month boundary, less than half of it', ['2026-01-20T00:00', '2026-02-01T00:00'], [hours(1, '2026-01-20T00:00', '2026-02-01T00:00')]],
    [
      'starting on a month boundary into the next month: the row, then the next month’s hours',
      ['2026-01-01T00:00', '2026-02-03T00:00'],
      [months('2026-01-01T00:00', '2026-02-01T00:00'), hours(1, '2026-02-01T00:00', '2026-02-03T00:00')],
    ],
    ['two small ends of adjacent months: one range of hours', ['2026-01-25T00:00', '2026-02-05T00:00'], [hours(1, '2026-01-25T00:00', '2026-02-05T00:00')]],
    [
      'an anniversary month: the first month’s row less its hours before, the next month’s hours',
      ['2026-11-05T02:00', '2026-12-05T02:00'],
      [hours(-1, '2026-11-01T00:00', '2026-11-05T02:00'), months('2026-11-01T00:00', '2026-12-01T00:00'), hours(1, '2026-12-01T00:00', '2026-12-05T02:00')],
    ],
    [
      'three months and more, small ends: hours, one range of month rows, hours',
      ['2026-01-20T00:00', '2026-04-10T00:00'],
      [hours(1, '2026-01-20T00:00', '2026-02-01T00:00'), months('2026-02-01T00:00', '2026-04-01T00:00'), hours(1, '2026-04-01T00:00', '2026-04-10T00:00')],
    ],
    [
      'three months and more, large ends: one range of month rows less the hours before and after',
      ['2026-01-05T00:00', '2026-04-25T00:00'],
      [hours(-1, '2026-01-01T00:00', '2026-01-05T00:00'), months('2026-01-01T00:00', '2026-05-01T00:00'), hours(-1, '2026-04-25T00:00', '2026-05-01T00:00')],
    ],
    [
      'across a year',
      ['2026-12-10T00:00', '2027-01-20T00:00'],
      [hours(-1, '2026-12-01T00:00', '2026-12-10T00:00'), months('2026-12-01T00:00', '2027-02-01T00:00'), hours(-1, '2027-01-20T00:00', '2027-02-01T00:00')],
    ],
    ['a year on the hour', ['2027-03-01T00:00', '2028-03-01T00:00'], [months('2027-03-01T00:00', '2028-03-01T00:00')]],
  ];
  for (const [rule, [from, to], expected] of cases) it(rule, () => assert.deepEqual(planTotalParts(ms(from), ms(to)), expected));

  it('the signed parts cover every hour of the range once and nothing else, in at most three parts, reading no more hours than the range', () => {
    const hour = fc.integer({ min: ms('2024-01-01T00:00') / HOUR_MS, max: ms('2030-01-01T00:00') / HOUR_MS }).map((h) => h * HOUR_MS);
    fc.assert(
      fc.property(hour, fc.integer({ min: 0, max: 3 * 366 * 24 }), (from, n) => {
        const to = from + n * HOUR_MS;
        const parts = planTotalParts(from, to);
        assert.ok(parts.length <= 3, JSON.stringify(parts));
        const hoursRead = parts.filter((p) => p.source === 'hours').reduce((s, p) => s + (p.to - p.from) / HOUR_MS, 0);
        assert.ok(hoursRead <= n, `${hoursRead} hours read for ${n}`);
        // Between consecutive boundaries, the signs of the parts covering it add up to 1 inside
        // the range and 0 outside.
        const bounds = [...new Set([from, to, ...parts.flatMap((p) => [p.from, p.to])])].sort((a, b) => a - b);
        for (let i = 0; i + 1 < bounds.length; i++) {
          const at = bounds[i]!;
          const sum = parts.filter((p) => p.from <= at && at < p.to).reduce((s, p) => s + p.sign, 0);
          assert.equal(sum, at >= from && at < to ? 1 : 0, new Date(at).toISOString());
        }
        for (const p of parts) {
          assert.ok(p.from < p.to);
          if (p.source === 'months') assert.deepEqual([monthStart(p.from), monthStart(p.to)], [p.from, p.to]);
        }
      }),
    );
  });
});
