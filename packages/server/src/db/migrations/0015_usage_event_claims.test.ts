import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { backend, scratchDatabase } from '../../../test/helpers/test-app.js';
import { migrations, migrateToLatest } from '../migrate.js';
import { transaction } from '../transaction.js';
import { claimEventIds, findClaimedEventIds } from '../../modules/usage/event-claims.repository.js';
import { down } from './0015_usage_event_claims.js';

const HOUR = 3_600_000;
const WINDOW = 24 * HOUR;
const NOW = Date.UTC(2026, 2, 10, 12);

describe('migration 0015: usage_event_claims from the event rows of idempotency_keys', () => {
  it('moves every claim, so an id claimed before the upgrade is still a duplicate after it; leaves request keys; puts the claims back on the way down', async () => {
    const { opened, drop } = await scratchDatabase('m15');
    const db = opened.db as Kysely<any>;
    try {
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      for (const [name, m] of migrations.slice(
        0,
        migrations.findIndex(([n]) => n === '0015_usage_event_claims'),
      )) {
        await m.up(db);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
      }
      const row = (ws: string, env: string, key: string, fingerprint: string, createdAt: number) => ({
        workspaceId: ws,
        environment: env,
        key,
        fingerprint,
        responseStatus: 200,
        responseBody: fingerprint === '' ? '' : '{"ok":true}',
        createdAt,
      });
      // As claimEventIds wrote them before 0015, and request keys beside them: a client's own
      // X-Idempotency-Key may start with `event:` too, and it has a fingerprint.
      const requestKeys = [row('ws_a', 'test', 'ingest:batch-1', 'f1', NOW - HOUR), row('ws_a', 'test', 'event:mine', 'f2', NOW - HOUR)];
      await db
        .insertInto('idempotency_keys')
        .values([
          row('ws_a', 'test', 'event:e-1', '', NOW - HOUR),
          row('ws_a', 'test', 'event:e-old', '', NOW - WINDOW - 1),
          row('ws_a', 'test', 'event:with:colon', '', NOW - 2 * HOUR),
          row('ws_a', 'live', 'event:e-2', '', NOW - HOUR),
          row('ws_b', 'test', 'event:e-1', '', NOW - HOUR),
          ...requestKeys,
        ])
        .execute();

      // 0015 and every later migration (they leave the claims alone).
      const names = migrations.map(([n]) => n);
      assert.deepEqual(await migrateToLatest(opened.db), names.slice(names.indexOf('0015_usage_event_claims')));

      const claims = async () =>
        (await db.selectFrom('usage_event_claims').select(['workspaceId', 'environment', 'eventId', 'claimedAt']).execute())
          .map((r) => [r.workspaceId, r.environment, r.eventId, Number(r.claimedAt)])
          .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
      assert.deepEqual(await claims(), [
        ['ws_a', 'live', 'e-2', NOW - HOUR],
        ['ws_a', 'test', 'e-1', NOW - HOUR],
        ['ws_a', 'test', 'e-old', NOW - WINDOW - 1],
        ['ws_a', 'test', 'with:colon', NOW - 2 * HOUR],
        ['ws_b', 'test', 'e-1', NOW - HOUR],
      ]);
      const keys = async () => (await db.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key as string).sort();
      assert.deepEqual(await keys(), ['event:mine', 'ingest:batch-1'], 'the claims left idempotency_keys; the request keys stayed');

      if (backend === 'sqlite') {
        const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'usage_event_claims'`.execute(db);
        assert.match(rows[0]!.sql, /without rowid/i);
      }

      // An id claimed before the upgrade is still a duplicate; one past the window is taken over.
      const a = { workspaceId: 'ws_a', environment: 'test' } as const;
      const ids = ['e-1', 'e-old', 'with:colon', 'e-2', 'e-new'];
      assert.deepEqual([...(await findClaimedEventIds(opened.db, a, ids, NOW - WINDOW))].sort(), ['e-1', 'with:colon']);
      const claimed = await transaction(opened.db, (trx) => claimEventIds(trx, opened.sqlite, a, ids, NOW, WINDOW));
      assert.deepEqual([...claimed].sort(), ['e-2', 'e-new', 'e-old']);

      await down(db);
      const tables =
        backend === 'postgres'
          ? (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(db)).rows
          : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
      assert.ok(!tables.some((r) => r.name === 'usage_event_claims'));
      assert.deepEqual(await keys(), [
        'event:e-1',
        'event:e-1',
        'event:e-2',
        'event:e-2',
        'event:e-new',
        'event:e-old',
        'event:mine',
        'event:with:colon',
        'ingest:batch-1',
      ]);
    } finally {
      await opened.close();
      await drop();
    }
  });
});
