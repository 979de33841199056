import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import type { ResolvedEvent } from '../usage/aggregate-batch.js';
import { fromColumns, movedWith, toColumns } from './event-columns.js';

const event = (over: Partial<ResolvedEvent>): ResolvedEvent => ({
  customerId: 'cus_1',
  metricName: 'api_calls',
  quantity: 1,
  quantityText: '1',
  occurredAt: 1_796_000_000_123,
  periodStart: 1_793_491_200_000,
  eventId: null,
  metadata: null,
  dimension: '',
  ...over,
});

// The writer stores what the checker resolved: every field of every event must come back as it was.
describe('ingest-writer.event columns: a checked batch crosses to the writer unchanged', () => {
  const cases: Array<[string, ResolvedEvent[]]> = [
    ['one plain event', [event({})]],
    ['ids, metadata and a dimension', [event({ eventId: 'evt_1', metadata: '{"tool":"x","n":[1,2]}', dimension: 'tool\u0000x' })]],
    [
      'extreme quantities (text kept apart from the number)',
      [event({ quantity: 1e21, quantityText: '1000000000000000000000' }), event({ quantity: 0.1, quantityText: '0.1' })],
    ],
    [
      'a negative zero and the largest safe integer',
      [event({ quantity: -0, quantityText: '0' }), event({ quantity: Number.MAX_SAFE_INTEGER, quantityText: '9007199254740991' })],
    ],
    ['times before 1970 and far ahead', [event({ occurredAt: -86_400_000, periodStart: -2_678_400_000 }), event({ occurredAt: 8_640_000_000_000_000 })]],
    ['non-ASCII text', [event({ customerId: 'cüs_é€𝄞', metricName: 'м', metadata: '{"k":"日本"}' })]],
    ['no events', []],
  ];
  for (const [name, events] of cases) {
    it(name, () => assert.deepStrictEqual(fromColumns(toColumns(events)), events));
  }

  it('posted across a port with the number columns moved, not copied', async () => {
    const events = Array.from({ length: 300 }, (_, i) =>
      event({ quantity: i / 4, quantityText: String(i / 4), occurredAt: 1_796_000_000_000 + i, eventId: `e${i}` }),
    );
    const columns = toColumns(events);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<unknown>((resolve) => port2.once('message', resolve));
    port1.postMessage(columns, movedWith(columns));
    assert.equal(columns.quantity.length, 0, 'the sender no longer holds the moved column');
    const got = await received;
    port1.close();
    assert.deepStrictEqual(fromColumns(got as typeof columns), events);
  });
});
