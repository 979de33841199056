import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from './database.js';
import { transaction } from './transaction.js';
import { transactionNow, WriteLockBusy, WriteTurns, type TurnTime } from './write-turns.js';

/** Time driven by hand: no test here waits on the wall clock. */
function manualTime() {
  let now = 0;
  let timers: Array<{ fn: () => void; at: number; cleared: boolean }> = [];
  const time: TurnTime = {
    now: () => now,
    set(fn, ms) {
      const t = { fn, at: now + ms, cleared: false };
      timers.push(t);
      return t;
    },
    clear(h) {
      (h as { cleared: boolean }).cleared = true;
    },
  };
  return {
    time,
    /** Moves time on by ms, firing the timers that fall due (and those they arm), in order. */
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        await flush();
        const next = timers.filter((t) => !t.cleared && t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        timers = timers.filter((t) => t !== next);
        now = next.at;
        next.fn();
      }
      now = until;
      await flush();
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

/** Whether a promise has settled, after the microtasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await flush();
  return done;
}

describe('WriteTurns: usage writes go first at the SQLite write lock', () => {
  const cases: Array<{ name: string; inFlight: number; then: 'nothing' | 'finish-all' | 'finish-one' | 'wait-max'; granted: boolean }> = [
    { name: 'no usage write in flight: the job writes at once', inFlight: 0, then: 'nothing', granted: true },
    { name: 'writes in flight: the job waits', inFlight: 2, then: 'nothing', granted: false },
    { name: 'the last write in flight answered: the job goes', inFlight: 2, then: 'finish-all', granted: true },
    { name: 'one of two answered: the job still waits', inFlight: 2, then: 'finish-one', granted: false },
    { name: 'ingestion never pauses: the job goes after maxWaitMs anyway', inFlight: 3, then: 'wait-max', granted: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const m = manualTime();
      const turns = new WriteTurns(100, 0.25, m.time);
      for (let i = 0; i < c.inFlight; i++) turns.started();
      const turn = turns.turn();
      await m.advance(99);
      if (c.then === 'finish-all') for (let i = 0; i < c.inFlight; i++) turns.finished();
      if (c.then === 'finish-one') turns.finished();
      if (c.then === 'wait-max') await m.advance(1);
      assert.equal(await settled(turn), c.granted);
    });
  }

  it('while usage arrives, the job keeps to its share: after a 10 ms transaction, the next waits 30 ms (share 0.25)', async () => {
    const m = manualTime();
    const turns = new WriteTurns(1_000, 0.25, m.time);
    await turns.run(async () => {
      turns.started(); // a batch arrives during the job's transaction
      await m.advance(10);
      turns.finished();
    });
    const next = turns.turn();
    await m.advance(29);
    assert.equal(await settled(next), false, 'too early: the job would take more than its share');
    await m.advance(1);
    assert.equal(await settled(next), true);
  });

  it('active: usage in flight, or answered within the last second; then not', async () => {
    const m = manualTime();
    const turns = new WriteTurns(100, 0.25, m.time);
    assert.equal(turns.active(), false, 'nothing written yet');
    turns.started();
    assert.equal(turns.active(), true, 'in flight');
    await m.advance(5);
    turns.finished();
    await m.advance(999);
    assert.equal(turns.active(), true, 'answered 999 ms ago');
    await m.advance(1);
    assert.equal(turns.active(), false, 'a second without usage');
  });

  it('without usage, the job runs flat out: no pause between transactions', async () => {
    const m = manualTime();
    const turns = new WriteTurns(1_000, 0.25, m.time);
    await turns.run(() => m.advance(10));
    assert.equal(await settled(turns.turn()), true);
  });

  it('the pace never holds the job past maxWaitMs, and the count never goes below zero', async () => {
    const m = manualTime();
    const turns = new WriteTurns(50, 0.1, m.time);
    await turns.run(async () => {
      turns.started();
      await m.advance(100); // would ask for a 900 ms pause
      turns.finished();
    });
    const next = turns.turn();
    await m.advance(50);
    assert.equal(await settled(next), true, 'granted at maxWaitMs');
    turns.finished(); // an answer for a write the count never saw (a restarted thread): harmless
    turns.started();
    const again = turns.turn();
    assert.equal(await settled(again), false, 'one in flight: the count is 1, not 0');
  });
});

describe("transactionNow: the main thread never sleeps in SQLite's busy handler", () => {
  it('begins at once when the lock is free, throws WriteLockBusy at once when another connection holds it, and keeps the busy timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-lock-'));
    const file = join(dir, 'lock.db');
    const opened = openDatabase({ databaseUrl: null, sqlitePath: file, sqliteBusyTimeoutMs: 5_000 });
    const other = new SQLite(file);
    try {
      // Another connection (the usage writer thread, in the service) holds the write lock.
      other.exec('begin immediate');
      let ran = false;
      await assert.rejects(
        transactionNow(opened.db, opened.sqlite, async () => {
          ran = true;
        }),
        (err) => err instanceof WriteLockBusy,
      );
      assert.equal(ran, false, 'nothing ran');
      assert.equal(Number(opened.sqlite!.pragma('busy_timeout', { simple: true })), 5_000, 'the connection keeps its busy timeout');
      other.exec('commit');
      const wrote = await transactionNow(opened.db, opened.sqlite, async () => {
        assert.equal(Number(opened.sqlite!.pragma('busy_timeout', { simple: true })), 5_000, 'put back inside the transaction');
        // Held now: the other connection cannot write until this transaction ends.
        other.pragma('busy_timeout = 0');
        assert.throws(() => other.exec('begin immediate'), /locked|busy/i);
        return true;
      });
      assert.equal(wrote, true);
    } finally {
      other.close();
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('transactionNow durable: false: the commit alone does not wait for the disk', () => {
  it('commits at synchronous NORMAL, puts FULL back after a commit and after a rollback, and no other transaction runs meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-sync-'));
    const opened = openDatabase({ databaseUrl: null, sqlitePath: join(dir, 'sync.db') });
    const sqlite = opened.sqlite!;
    const level = () => Number(sqlite.pragma('synchronous', { simple: true }));
    const FULL = 2;
    const NORMAL = 1;
    try {
      await sql`create table t (x integer)`.execute(opened.db);
      assert.equal(level(), FULL, 'the connection commits at FULL by default');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const seen: Array<[string, number]> = [];
      const relaxed = transactionNow(
        opened.db,
        sqlite,
        async (trx) => {
          seen.push(['relaxed', level()]);
          await sql`insert into t (x) values (1)`.execute(trx);
          await held;
          return 'done';
        },
        { durable: false },
      );
      // Another transaction asked for meanwhile waits for the connection and commits at FULL.
      const other = transaction(opened.db, async (trx) => {
        seen.push(['other', level()]);
        await sql`insert into t (x) values (2)`.execute(trx);
      });
      await new Promise((r) => setImmediate(r));
      release();
      assert.equal(await relaxed, 'done');
      await other;
      assert.deepEqual(seen, [
        ['relaxed', NORMAL],
        ['other', FULL],
      ]);
      const failed = transactionNow(
        opened.db,
        sqlite,
        async (trx) => {
          await sql`insert into t (x) values (3)`.execute(trx);
          throw new Error('rolled back');
        },
        { durable: false },
      );
      await assert.rejects(failed, /rolled back/);
      assert.equal(level(), FULL, 'FULL again after a rollback');
      const rows = await sql<{ x: number }>`select x from t order by x`.execute(opened.db);
      assert.deepEqual(
        rows.rows.map((r) => r.x),
        [1, 2],
        'both commits kept, the rollback not',
      );
    } finally {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('WriteTurns.run: a transaction that found the lock taken is tried again', () => {
  it('retries after WriteLockBusy once the usage writes in flight are answered, and gives up after giveUpMs', async () => {
    const m = manualTime();
    const turns = new WriteTurns(100, 0.25, m.time);
    let tries = 0;
    turns.started();
    turns.finished();
    const result = turns.run(async () => {
      tries += 1;
      if (tries === 1) {
        turns.started(); // the writer took the lock: this try rolled back
        throw new WriteLockBusy();
      }
      return 'renewed';
    });
    await m.advance(1);
    assert.equal(tries, 1, 'waits while the write is in flight');
    turns.finished();
    await m.advance(1);
    assert.equal(await result, 'renewed');
    assert.equal(tries, 2);

    const stuck = turns.run(async () => {
      throw new WriteLockBusy();
    }, 20);
    const caught = stuck.catch((err: unknown) => err);
    await m.advance(100);
    assert.ok((await caught) instanceof WriteLockBusy, 'another process holding the lock for good: the group fails and the next run tries again');
  });
});
