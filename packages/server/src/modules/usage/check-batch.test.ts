import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { capProblems } from './check-batch.js';
import type { EventRejection } from './usage-event.js';

/** Event `index` with `n` problems, named p0, p1, … */
const event = (index: number, n: number): EventRejection[] =>
  Array.from({ length: n }, (_, i) => ({ index, code: 'INVALID_EVENT', field: `events[${index}].p${i}`, message: '' }));
const brief = (list: EventRejection[]) => list.map((p) => p.field.replace(/^events/, ''));

describe('usage.capProblems', () => {
  const cases: Array<[string, EventRejection[][], number, string[]]> = [
    ['under the cap: everything, in order', [event(0, 2), event(3, 1)], 10, ['[0].p0', '[0].p1', '[3].p0']],
    ['exactly at the cap: everything', [event(0, 2), event(1, 2)], 4, ['[0].p0', '[0].p1', '[1].p0', '[1].p1']],
    [
      'over the cap: every event keeps its first, earlier events the rest',
      [event(0, 3), event(1, 3), event(2, 3)],
      5,
      ['[0].p0', '[0].p1', '[0].p2', '[1].p0', '[2].p0'],
    ],
    ['a cap cutting into an event keeps its first problems', [event(0, 3), event(1, 3)], 3, ['[0].p0', '[0].p1', '[1].p0']],
    ['more rejected events than the cap: each keeps its first', [event(0, 2), event(1, 2), event(2, 2)], 2, ['[0].p0', '[1].p0', '[2].p0']],
    ['nothing rejected: nothing', [], 10, []],
  ];
  for (const [rule, perEvent, max, expected] of cases) {
    it(rule, () => assert.deepEqual(brief(capProblems(perEvent, max)), expected));
  }
});
