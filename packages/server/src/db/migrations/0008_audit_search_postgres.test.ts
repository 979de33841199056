import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { backend, adminQuery } from '../../../test/helpers/test-app.js';
import { openDatabase } from '../database.js';
import { migrations, migrateToLatest } from '../migrate.js';
import { down } from './0008_audit_search_postgres.js';
import { listAuditEvents } from '../../modules/audit/audit-search.repository.js';
import { filterErrors } from '../../modules/audit/audit-filter.js';
import { auditSearchText } from './frozen/audit-search-text-v1.js';
import { idFloor } from '../../lib/ids.js';

const url = process.env.TEST_DATABASE_URL;
const skip = backend !== 'postgres' || !url ? 'PostgreSQL only: runs in the PostgreSQL pass (TEST_DATABASE_URL)' : false;

describe('migration 0008: PostgreSQL full text re-indexed with tenant-scoped terms and months', () => {
  it('keeps every event of a log written under 0006 searchable, for its own tenant only, and goes back down', { skip }, async () => {
    const schema = `m8_${randomBytes(6).toString('hex')}`;
    await adminQuery(url!, `CREATE SCHEMA ${schema}`);
    const opened = openDatabase({ databaseUrl: url!, pgSchema: schema, poolSize: 2 });
    const db = opened.db as Kysely<any>;
    try {
      const names = migrations.map(([name]) => name);
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      for (const [name, m] of migrations.slice(0, names.indexOf('0007_audit_search_scoped') + 1)) {
        await m.up(db);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
      }
      // Rows as 0006's recordAudit wrote them: the words through to_tsvector('simple', …).
      const events: Array<[ws: string, env: string, type: string, severity: string, month: number, payload: object]> = [
        ['ws_a', 'test', 'api_key.rotated', 'NOTICE', 1, { note: 'nightly' }],
        ['ws_a', 'test', 'api_key.revoked', 'WARN', 2, { note: 'nightly' }],
        ['ws_a', 'live', 'api_key.rotated', 'NOTICE', 2, { note: 'nightly' }],
        ['ws_b', 'test', 'api_key.rotated', 'NOTICE', 3, { note: 'nightly' }],
        ['ws_a', 'test', 'customer.created', 'INFO', 3, { name: 'Alice' }],
      ];
      for (const [i, [ws, env, type, severity, month, payload]] of events.entries()) {
        const ms = Date.UTC(2026, month, 5, 12, 0, i);
        const text = auditSearchText({ eventType: type, targetType: null, payload });
        await sql`insert into audit_events (id, workspace_id, environment, event_type, source, severity, actor_type, actor_id, payload, correlation_id, created_at, search)
          values (${`${idFloor('auditEvent', ms)}${String(i).padStart(16, '0')}`}, ${ws}, ${env}, ${type}, 'api', ${severity}, 'SYSTEM', 'x', ${JSON.stringify(payload)}, 'req', ${ms}, to_tsvector('simple', ${text}))`.execute(
          db,
        );
      }

      assert.deepEqual(await migrateToLatest(opened.db), names.slice(names.indexOf('0008_audit_search_postgres')));
      const search = async (workspaceId: string, environment: string, q: Record<string, string>, walkRows?: number) =>
        (
          await listAuditEvents(opened.db, { workspaceId, environment: environment as 'test' }, filterErrors(q, 'query'), { limit: 10 }, { walkRows })
        ).items.map((e) => `${e.eventType}@${new Date(e.createdAt).getUTCMonth()}`);
      for (const walkRows of [undefined, 1]) {
        assert.deepEqual(await search('ws_a', 'test', { q: 'nightly' }, walkRows), ['api_key.revoked@2', 'api_key.rotated@1']);
        assert.deepEqual(await search('ws_a', 'test', { q: 'nightly', severity: 'WARN' }, walkRows), ['api_key.revoked@2']);
        assert.deepEqual(await search('ws_a', 'test', { q: 'night*', type: 'api_key.rotated' }, walkRows), ['api_key.rotated@1']);
        assert.deepEqual(await search('ws_a', 'live', { q: 'nightly' }, walkRows), ['api_key.rotated@2']);
        assert.deepEqual(await search('ws_b', 'test', { q: 'nightly' }, walkRows), ['api_key.rotated@3']);
        assert.deepEqual(await search('ws_a', 'test', { q: 'alice' }, walkRows), ['customer.created@3']);
        assert.deepEqual(await search('ws_b', 'test', { q: 'alice' }, walkRows), []);
      }
      const { rows: indexes } = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_indexes where schemaname = ${schema} and indexname = 'audit_events_search'`.execute(db);
      assert.equal(indexes[0]!.n, 1, 'the GIN index is built again');

      // Down restores 0006's words, which to_tsquery('simple', …) finds.
      await down(db);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from audit_events where search @@ to_tsquery('simple', 'nightly')`.execute(db);
      assert.equal(rows[0]!.n, 4);
    } finally {
      await opened.close();
      await adminQuery(url!, `DROP SCHEMA ${schema} CASCADE`);
    }
  });
});
