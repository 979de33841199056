import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openDatabase } from './database.js';
import { BatchCommitter, GroupCommitter, isTransient } from './group-commit.js';
import { AppError } from '../lib/errors.js';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

async function scratch() {
  const opened = openDatabase({ databaseUrl: null, sqlitePath: ':memory:' });
  await sql`create table t (v integer not null)`.execute(opened.db);
  const values = async () => (await sql<{ v: number }>`select v from t order by v`.execute(opened.db)).rows.map((r) => r.v);
  return { db: opened.db, values, close: opened.close };
}

describe('db.isTransient', () => {
  const cases: [string, unknown, boolean][] = [
    ['PostgreSQL deadlock_detected', { code: '40P01' }, true],
    ['PostgreSQL serialization_failure', { code: '40001' }, true],
    ['a unique violation is not', { code: '23505' }, false],
    ['an application error is not', new AppError('VALIDATION_FAILED', 'x'), false],
    ['null is not', null, false],
  ];
  for (const [rule, err, expected] of cases) it(rule, () => assert.equal(isTransient(err), expected));
});

describe('db.GroupCommitter', () => {
  it('a failing job rolls back only itself; the others of its group commit', async () => {
    const s = await scratch();
    const gc = new GroupCommitter(s.db);
    const results = await Promise.allSettled([
      gc.run(async (trx) => sql`insert into t values (1)`.execute(trx)),
      gc.run(async (trx) => {
        await sql`insert into t values (2)`.execute(trx);
        throw new Error('job 2 fails');
      }),
      gc.run(async (trx) => sql`insert into t values (3)`.execute(trx)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await s.values(), [1, 3]);
    await s.close();
  });

  it('a deadlock runs the whole group again, and nothing is written twice', async () => {
    const s = await scratch();
    const gc = new GroupCommitter(s.db);
    let attempts = 0;
    const results = await Promise.all([
      gc.run(async (trx) => sql`insert into t values (1)`.execute(trx).then(() => 'first')),
      gc.run(async (trx) => {
        attempts += 1;
        await sql`insert into t values (2)`.execute(trx);
        if (attempts === 1) throw deadlock();
        return 'second';
      }),
    ]);
    assert.deepEqual(results, ['first', 'second']);
    assert.equal(attempts, 2);
    assert.deepEqual(await s.values(), [1, 2]);
    await s.close();
  });

  it('after three deadlocks in a row the group fails with 503 and stores nothing', async () => {
    const s = await scratch();
    const gc = new GroupCommitter(s.db);
    let attempts = 0;
    const err = await gc
      .run(async (trx) => {
        attempts += 1;
        await sql`insert into t values (1)`.execute(trx);
        throw deadlock();
      })
      .catch((e: unknown) => e);
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'SERVICE_UNAVAILABLE');
    assert.equal(err.headers['retry-after'], '1');
    assert.equal(attempts, 3);
    assert.deepEqual(await s.values(), []);
    await s.close();
  });
});

describe('db.BatchCommitter', () => {
  /** Writes a group with one statement; a negative value makes the whole statement fail. */
  const writeGroup = async (trx: Parameters<ConstructorParameters<typeof BatchCommitter<number, number>>[1]>[0], jobs: number[]) => {
    if (jobs.some((v) => v < 0)) throw new Error(`negative value in ${jobs.join(',')}`);
    await sql`insert into t (v) select value from json_each(${JSON.stringify(jobs)})`.execute(trx);
    return jobs.map((v) => v * 10);
  };

  it('writes the jobs that arrive together as one group and answers each in order, after the commit', async () => {
    const s = await scratch();
    const groups: number[][] = [];
    const bc = new BatchCommitter<number, number>(s.db, (trx, jobs) => (groups.push([...jobs]), writeGroup(trx, jobs)));
    const results = await Promise.all([1, 2, 3].map((v) => bc.run(v)));
    assert.deepEqual(results, [10, 20, 30]);
    assert.deepEqual(groups, [[1, 2, 3]]);
    assert.deepEqual(await s.values(), [1, 2, 3]);
    await s.close();
  });

  it('when a group fails, each job runs again alone: only the bad one fails', async () => {
    const s = await scratch();
    const bc = new BatchCommitter<number, number>(s.db, writeGroup);
    const results = await Promise.allSettled([1, -2, 3].map((v) => bc.run(v)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await s.values(), [1, 3]);
    await s.close();
  });

  it('splits a long queue into groups of at most maxJobsPerCommit', async () => {
    const s = await scratch();
    const sizes: number[] = [];
    const bc = new BatchCommitter<number, number>(s.db, (trx, jobs) => (sizes.push(jobs.length), writeGroup(trx, jobs)), 4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => bc.run(i)));
    assert.deepEqual(sizes, [4, 4, 2]);
    assert.equal((await s.values()).length, 10);
    await s.close();
  });
});
