import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionGate, placeFor, ReturnSchedule, type PlaceQuestion, type Timers, type Waiter } from './admission-gate.js';
import { ShedKeys } from './shed-keys.js';

describe('placeFor', () => {
  const q = (over: Partial<PlaceQuestion>): PlaceQuestion => ({ slotFree: false, capacity: 4, waiting: 0, tenantWaiting: 0, mostWaiting: 0, ...over });
  const cases: Array<[string, Partial<PlaceQuestion>, ReturnType<typeof placeFor>]> = [
    ['a free slot and nobody waiting: enter', { slotFree: true }, 'enter'],
    ['slots full, room in the lane: wait', { waiting: 3 }, 'wait'],
    ['slots full, the lane full of this tenant: shed', { waiting: 4, tenantWaiting: 4, mostWaiting: 4 }, 'shed'],
    ['lane full, another tenant holds all 4: take its newest place', { waiting: 4, tenantWaiting: 0, mostWaiting: 4 }, 'wait-evicting'],
    ['lane full, 1 against 3: take a place', { waiting: 4, tenantWaiting: 1, mostWaiting: 3 }, 'wait-evicting'],
    ['lane full, 2 against 2: shed (a swap would not be fairer)', { waiting: 4, tenantWaiting: 2, mostWaiting: 2 }, 'shed'],
    ['lane full, 1 against 2: shed (a swap would only move the unfairness)', { waiting: 4, tenantWaiting: 1, mostWaiting: 2 }, 'shed'],
    ['no lane at all (capacity 0): shed at once, as before the lanes', { capacity: 0 }, 'shed'],
  ];
  for (const [name, over, place] of cases) it(name, () => assert.equal(placeFor(q(over)), place));
});

describe('ReturnSchedule', () => {
  it('books each second up to perSecond, then the next, and the excess in the last', () => {
    const s = new ReturnSchedule(3);
    const at = 10_500; // the middle of second 10
    const booked = Array.from({ length: 8 }, () => s.book(at, 2));
    assert.deepEqual(booked, [1, 1, 2, 2, 3, 3, 3, 3]);
  });

  it('a second that has passed is counted afresh', () => {
    const s = new ReturnSchedule(3);
    assert.deepEqual([s.book(10_000, 1), s.book(10_000, 1)], [1, 2]); // seconds 11 and 12
    // At second 11, second 12 still holds one return and 13 is new.
    assert.deepEqual([s.book(11_000, 1), s.book(11_000, 1)], [2, 3]);
    // Long after, everything is free again.
    assert.equal(s.book(100_000, 1), 1);
  });
});

describe('ShedKeys', () => {
  const make = (over: Partial<ConstructorParameters<typeof ShedKeys>[0]> = {}) => {
    let now = 0;
    const keys = new ShedKeys({ perTenant: 3, total: 5, ttlMs: 1_000, now: () => now, ...over });
    return { keys, advance: (ms: number) => (now += ms) };
  };

  it('remembers a key per tenant until taken or expired', () => {
    const { keys, advance } = make();
    keys.remember('a', 'k1');
    assert.equal(keys.has('b', 'k1'), false, 'another tenant');
    assert.equal(keys.has('a', 'k1'), true);
    assert.equal(keys.take('a', 'k1'), true);
    assert.equal(keys.take('a', 'k1'), false, 'taken once');
    keys.remember('a', 'k2');
    advance(1_000);
    assert.equal(keys.has('a', 'k2'), false, 'expired');
    assert.equal(keys.size, 0);
  });

  it('is bounded per tenant (the oldest goes) and in total (the longest-remembered tenant gives way)', () => {
    const { keys } = make();
    for (let i = 0; i < 10_000; i++) keys.remember('flood', `k${i}`);
    assert.equal(keys.size, 3);
    assert.deepEqual(
      ['k9996', 'k9997', 'k9998', 'k9999'].map((k) => keys.has('flood', k)),
      [false, true, true, true],
    );
    keys.remember('b', 'x');
    keys.remember('c', 'y');
    assert.equal(keys.size, 5);
    keys.remember('d', 'z');
    assert.equal(keys.size, 5, 'the total bound');
    assert.equal(keys.has('flood', 'k9997'), false, "the first tenant's oldest went");
    assert.equal(keys.has('d', 'z'), true);
  });

  it('a key remembered again counts once', () => {
    const { keys } = make();
    keys.remember('a', 'k');
    keys.remember('a', 'k');
    assert.equal(keys.size, 1);
  });
});

/** A gate with a clock and timers the test moves: nothing here waits on the wall clock. */
function gate(limit: number, lanes = { retry: 4 * limit, fresh: limit }) {
  let now = 1_000_000;
  const pending: Array<{ fn: () => void; at: number; live: boolean }> = [];
  const timers: Timers = {
    set: (fn, ms) => {
      const t = { fn, at: now + ms, live: true };
      pending.push(t);
      return t;
    },
    clear: (t) => ((t as { live: boolean }).live = false),
  };
  const clock = () => now;
  const g = new AdmissionGate({
    limit: () => limit,
    lanes: () => lanes,
    maxWaitMs: 2_000,
    now: clock,
    timers,
    shedKeys: new ShedKeys({ perTenant: 100, total: 1_000, ttlMs: 60_000, now: clock }),
  });
  return {
    g,
    armed: () => pending.filter((t) => t.live).length,
    advance: (ms: number) => {
      now += ms;
      for (const t of pending.splice(0))
        if (t.live && t.at <= now) t.fn();
        else if (t.live) pending.push(t);
    },
  };
}

const settled = async (w: Waiter) => Promise.race([w.outcome, Promise.resolve('pending' as const)]);

describe('AdmissionGate', () => {
  it('the fast path takes free slots without a timer; the next request waits, and gets the slot a leaver frees', async () => {
    const { g, armed } = gate(2);
    assert.equal(g.tryEnter(), true);
    assert.equal(g.tryEnter(), true);
    assert.equal(armed(), 0);
    assert.equal(g.tryEnter(), false);
    const w = g.arrive('t', null) as Waiter;
    assert.equal(await settled(w), 'pending');
    assert.equal(armed(), 1, 'one timer while someone waits');
    g.leave();
    assert.deepEqual(await w.outcome, { entered: true });
    assert.equal(g.inFlight, 2, 'the slot went to the waiter');
    assert.equal(armed(), 0, 'disarmed when nobody waits');
  });

  it("a shed request's retry is let in ahead of new work that waited longer", async () => {
    const { g } = gate(1, { retry: 4, fresh: 2 });
    g.tryEnter();
    const fresh1 = g.arrive('t', 'new-1') as Waiter;
    const fresh2 = g.arrive('t', 'new-2') as Waiter;
    const shed = g.arrive('t', 'k');
    assert.equal(shed, 1, 'the fresh lane is full: shed, back in 1 s');
    const retry = g.arrive('t', 'k') as Waiter;
    assert.equal(typeof retry, 'object', 'the retry waits');
    assert.equal(g.wouldShed('t', 'other'), true, 'new work is still shed at its headers');
    g.leave();
    assert.deepEqual(await retry.outcome, { entered: true });
    assert.equal(await settled(fresh1), 'pending');
    g.leave();
    assert.deepEqual(await fresh1.outcome, { entered: true });
    assert.equal(await settled(fresh2), 'pending');
  });

  it('a key never shed is new work, whatever it claims', () => {
    const { g } = gate(1, { retry: 4, fresh: 0 });
    g.tryEnter();
    assert.equal(typeof g.arrive('t', 'invented'), 'number');
  });

  it('a waiter past its time is shed and remembered, so its own retry comes first', async () => {
    const { g, advance } = gate(1, { retry: 4, fresh: 1 });
    g.tryEnter();
    const w = g.arrive('t', 'k') as Waiter;
    advance(1_999);
    assert.equal(await settled(w), 'pending');
    advance(1);
    assert.deepEqual(await w.outcome, { entered: false, retryAfter: 1 });
    assert.equal(g.shedKeys?.has('t', 'k'), true);
    assert.equal(g.waiting, 0);
  });

  it('a waiter whose client went away frees its place and is not remembered', async () => {
    const { g, armed } = gate(1, { retry: 4, fresh: 1 });
    g.tryEnter();
    const w = g.arrive('t', 'k') as Waiter;
    g.abandon(w);
    assert.deepEqual(await w.outcome, { entered: false, retryAfter: 1, aborted: true });
    assert.equal(g.waiting, 0);
    assert.equal(armed(), 0);
    assert.equal(g.shedKeys?.has('t', 'k'), false);
    assert.equal(typeof g.arrive('t', 'next'), 'object', 'its place is free again');
  });

  it("one tenant's flood of retries cannot keep another tenant's retry out", async () => {
    const { g } = gate(1, { retry: 3, fresh: 0 });
    g.tryEnter();
    for (const k of ['a1', 'a2', 'a3', 'a4', 'b1']) g.shed(k[0]!, k);
    const flood = ['a1', 'a2', 'a3'].map((k) => g.arrive('a', k) as Waiter);
    assert.equal(typeof g.arrive('a', 'a4'), 'number', 'the flooding tenant is shed once the lane is full');
    const b = g.arrive('b', 'b1') as Waiter;
    assert.equal(typeof b, 'object', 'the other tenant waits');
    const evicted = await flood[2]!.outcome;
    assert.equal(evicted.entered, false, "in place of the flooder's newest waiter");
    g.leave();
    assert.deepEqual(await flood[0]!.outcome, { entered: true });
  });

  it('Retry-After grows with the backlog: a second holds as many returns as the lanes and slots can place', () => {
    const { g } = gate(1, { retry: 2, fresh: 0 });
    g.tryEnter();
    const retryAfters = Array.from({ length: 7 }, (_, i) => g.arrive('t', `k${i}`));
    // 1 slot + 2 retry places = 3 per second, before any service rate is measured.
    assert.deepEqual(retryAfters, [1, 1, 1, 2, 2, 2, 3]);
  });

  it('once the service rate is measured, returns are booked at that rate', () => {
    const { g, advance } = gate(4, { retry: 16, fresh: 0 });
    for (let i = 0; i < 4; i++) g.tryEnter();
    g.shed('t', null); // starts the first window
    // Two requests served in a window of 2 s: 1 per second, whatever the lanes could hold.
    g.leave();
    g.leave();
    g.tryEnter();
    g.tryEnter();
    advance(2_000);
    const retryAfters = Array.from({ length: 4 }, () => g.shed('t', null));
    assert.deepEqual(retryAfters, [1, 2, 3, 4]);
  });
});
