import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callsAtOnce } from './collect-due.js';

/** A call that ends when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('callsAtOnce: at most n calls in flight, the rest in the order they came', () => {
  const cases: Array<{ n: number; calls: number; expectedPeak: number }> = [
    { n: 1, calls: 4, expectedPeak: 1 },
    { n: 3, calls: 2, expectedPeak: 2 },
    { n: 3, calls: 7, expectedPeak: 3 },
    { n: 8, calls: 8, expectedPeak: 8 },
  ];
  for (const c of cases) {
    it(`n = ${c.n}, ${c.calls} calls: at most ${c.expectedPeak} at once, every call made once, started in order`, async () => {
      const limit = callsAtOnce(c.n);
      const gates = Array.from({ length: c.calls }, gate);
      const started: number[] = [];
      let inFlight = 0;
      let peak = 0;
      const done = gates.map((g, k) =>
        limit(async () => {
          started.push(k);
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await g.opened;
          inFlight -= 1;
          return k;
        }),
      );
      // Finish them one by one, each time letting the next waiting call in before a newcomer.
      for (let k = 0; k < c.calls; k++) {
        await settle();
        assert.ok(inFlight <= c.n, `${inFlight} in flight`);
        gates[k]!.open();
      }
      assert.deepEqual(await Promise.all(done), [...Array(c.calls).keys()]);
      assert.equal(peak, c.expectedPeak);
      assert.deepEqual(started, [...Array(c.calls).keys()]);
    });
  }

  it('a call that throws gives its place back', async () => {
    const limit = callsAtOnce(1);
    await assert.rejects(
      limit(async () => Promise.reject(new Error('refused'))),
      /refused/,
    );
    assert.equal(await limit(async () => 'next'), 'next');
  });
});
