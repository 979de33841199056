/**
 * SQLite write-lock contention: the main connection (operator writes, audit rows) and the usage
 * writer thread's connection share one database file. Writes must queue for the lock, and a lock
 * held too long is a 503 with Retry-After, never a 500. Runs on the SQLite pass (a file database,
 * so the writer thread runs); skipped with the reason on the PostgreSQL pass.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { backend, createTestApp, type TestApp } from '../helpers/test-app.js';
import type { Client } from '../helpers/seed.js';
import { createMetric } from '../../src/modules/metrics/create-metric.js';
import { transaction } from '../../src/db/transaction.js';

const skip: string | false = backend !== 'sqlite' ? 'SQLite only: PostgreSQL has row locks, not one write lock per database' : false;

describe('SQLite write lock', { skip }, () => {
  let t: TestApp;
  let api: Client;
  /** A second connection to the same file, standing in for the writer thread at a chosen moment. */
  let other: SQLite.Database;
  const batch = (n: number) => ({
    events: Array.from({ length: n }, () => ({ customerId: 'acme', metricName: 'api_calls', quantity: 1, occurredAt: new Date(t.clock.now()).toISOString() })),
  });

  before(async () => {
    if (skip) return;
    t = await createTestApp({ sqliteFile: true, config: { sqliteBusyTimeoutMs: 200, ingestMaxInFlight: 64 } });
    const ws = await t.seed.workspace();
    api = t.seed.client(ws.test.secretKey);
    await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
    await t.seed.customer(ws.test, { externalId: 'acme' });
    const file = (t.deps.sqlite as SQLite.Database).name;
    other = new SQLite(file);
    other.pragma('busy_timeout = 0');
  });

  after(async () => {
    other?.close();
    await t?.close();
  });

  it('a transaction takes the write lock when it begins: another connection cannot slip a write in between its read and its write', async () => {
    let otherWrite: unknown = null;
    await transaction(t.deps.db, async (trx) => {
      await sql`select count(*) from workspaces`.execute(trx);
      try {
        other.prepare('insert into tollgate_migrations (name, applied_at) values (?, ?)').run(`probe-${Date.now()}`, 0);
      } catch (err) {
        otherWrite = err;
      }
      // With a deferred BEGIN this write failed at once with SQLITE_BUSY_SNAPSHOT ("database is locked").
      await sql`update workspaces set updated_at = updated_at`.execute(trx);
    });
    assert.equal((otherWrite as { code?: string } | null)?.code, 'SQLITE_BUSY', 'the other connection had to wait for the lock');
  });

  it('while another connection holds the lock past SQLITE_BUSY_TIMEOUT_MS, writes get 503 DATABASE_BUSY with Retry-After; after, 200', async () => {
    other.prepare('begin immediate').run();
    try {
      const created = await api.post('/api/v1/customers', { name: 'Blocked' });
      assert.equal(created.status, 503, JSON.stringify(created.body));
      assert.equal(created.body.errors[0].code, 'DATABASE_BUSY');
      assert.equal(created.headers['retry-after'], '1');
      const ingested = await api.post('/v1/ingest/batch', batch(3));
      assert.equal(ingested.status, 503, JSON.stringify(ingested.body));
      assert.equal(ingested.body.errors[0].code, 'DATABASE_BUSY');
      assert.equal(ingested.headers['retry-after'], '1');
    } finally {
      other.prepare('rollback').run();
    }
    assert.equal((await api.post('/api/v1/customers', { name: 'Unblocked' })).status, 200);
    assert.equal((await api.post('/v1/ingest/batch', batch(3))).status, 200);
  });

  it('batches, operator writes and failed authentications at once: no 500, and any 503 says when to retry', async () => {
    // The production busy timeout: writes queue for the lock rather than fail.
    const own = await createTestApp({ sqliteFile: true, config: { ingestMaxInFlight: 64 } });
    try {
      const ws = await own.seed.workspace();
      const client = own.seed.client(ws.test.secretKey);
      await createMetric(own.deps, ws.test.ctx, { name: 'api_calls' });
      await own.seed.customer(ws.test, { externalId: 'acme' });
      const intruder = own.seed.client('sk_test_not_a_key_at_all_0000000000');
      const work: Array<Promise<{ status: number; headers: Record<string, unknown>; body: any }>> = [];
      for (let i = 0; i < 30; i++) {
        work.push(client.post('/v1/ingest/batch', batch(50)));
        work.push(client.post('/api/v1/customers', { name: `Busy ${i}` }));
        work.push(intruder.get('/api/v1/customers'));
      }
      const answers = await Promise.all(work);
      const statuses = answers.map((r) => r.status);
      assert.deepEqual(
        statuses.filter((s) => s >= 500 && s !== 503),
        [],
        statuses.join(','),
      );
      for (const r of answers.filter((a) => a.status === 503)) {
        assert.equal(r.body.errors[0].code, 'DATABASE_BUSY');
        assert.equal(r.headers['retry-after'], '1');
      }
      assert.equal(statuses.filter((s) => s === 401).length, 30);
      // On a machine this busy, a write may wait more than the busy timeout; most must get through.
      assert.ok(statuses.filter((s) => s === 200).length >= 50, statuses.join(','));
    } finally {
      await own.close();
    }
  });
});
