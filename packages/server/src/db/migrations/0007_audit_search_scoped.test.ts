import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../database.js';
import { migrations, migrateToLatest } from '../migrate.js';
import { reportMigrationProgress, setMigrationProgressReporter, type MigrationProgressEvent } from '../migration-progress.js';
import { down } from './0007_audit_search_scoped.js';
import { listAuditEvents } from '../../modules/audit/audit-search.repository.js';
import { parseTextQuery } from '../../modules/audit/audit-search-text.js';

// SQLite only: on PostgreSQL the migration does nothing (the tsvector column is unchanged).
describe('migration 0007: SQLite full text re-indexed with tenant-scoped words', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tollgate-0007-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every event of a log written under 0006 searchable, for its own tenant only, and goes back down', async () => {
    const opened = openDatabase({ databaseUrl: null, sqlitePath: path.join(dir, 'old.db') });
    const db = opened.db as Kysely<any>;
    try {
      // A database at 0005 with events in it, then 0006 builds its index from them (tenant token
      // column, plain words): the path of a log that existed before search did.
      const names = migrations.map(([name]) => name);
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      const apply = async (upTo: string) => {
        for (const [name, m] of migrations.slice(0, names.indexOf(upTo) + 1)) {
          const { rows } = await sql`select 1 from tollgate_migrations where name = ${name}`.execute(db);
          if (rows.length > 0) continue;
          await m.up(db);
          await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
        }
      };
      await apply('0005_audit_presets');
      const events: Array<[ws: string, env: string, type: string, payload: object]> = [
        ['ws_a', 'test', 'api_key.rotated', { note: 'nightly' }],
        ['ws_a', 'live', 'api_key.rotated', {}],
        ['ws_b', 'test', 'api_key.rotated', { note: 'nightly' }],
        ['ws_a', 'test', 'customer.created', { name: 'Alice' }],
      ];
      for (const [i, [ws, env, type, payload]] of events.entries()) {
        await sql`insert into audit_events (id, workspace_id, environment, event_type, source, severity, actor_type, actor_id, payload, correlation_id, created_at)
          values (${`evt_${i}`}, ${ws}, ${env}, ${type}, 'api', 'INFO', 'SYSTEM', 'x', ${JSON.stringify(payload)}, 'req', ${Date.now()})`.execute(db);
      }
      await apply('0006_audit_stream_search');
      const old0006 = async () =>
        (
          await sql<{ rowid: number }>`select rowid from audit_events_fts where audit_events_fts match 'tenant : "twsatest" AND body : "rotated"'`.execute(db)
        ).rows.map((r) => r.rowid);
      assert.deepEqual(await old0006(), [1]);

      const reported: MigrationProgressEvent[] = [];
      assert.deepEqual(await migrateToLatest(opened.db, { progress: (e) => reported.push(e) }), names.slice(names.indexOf('0007_audit_search_scoped')));
      assert.deepEqual(reported, [], 'a small log re-indexes without progress lines');

      const search = async (workspaceId: string, environment: string, q: string) =>
        (await listAuditEvents(opened.db, { workspaceId, environment: environment as 'test' }, { text: parseTextQuery(q)! }, { limit: 10 })).items.map(
          (e) => e.eventId,
        );
      assert.deepEqual(await search('ws_a', 'test', 'rotated'), ['evt_0']);
      assert.deepEqual(await search('ws_a', 'live', 'rotated'), ['evt_1']);
      assert.deepEqual(await search('ws_b', 'test', 'night*'), ['evt_2']);
      assert.deepEqual(await search('ws_a', 'test', 'alice'), ['evt_3']);
      assert.deepEqual(await search('ws_b', 'test', 'alice'), []);

      // Down restores 0006's layout, which 0006's query form reads.
      await down(db);
      assert.deepEqual(await old0006(), [1]);
    } finally {
      await opened.close();
    }
  });
});

describe('migration progress', () => {
  // [calls as (ms since start, done)], total, the `done` values reported
  const cases: Array<[string, Array<[number, number]>, number, number[]]> = [
    [
      'a short run reports nothing',
      [
        [100, 500],
        [200, 1000],
      ],
      1000,
      [],
    ],
    [
      'every 5 s, then once at the end',
      [
        [4000, 100],
        [5000, 200],
        [7000, 300],
        [10_000, 400],
        [11_000, 1000],
      ],
      1000,
      [200, 400, 1000],
    ],
    ['an empty table reports nothing', [[0, 0]], 0, []],
  ];
  for (const [name, calls, total, expected] of cases) {
    it(name, () => {
      let now = 0;
      const seen: number[] = [];
      setMigrationProgressReporter((e) => seen.push(e.done));
      try {
        const report = reportMigrationProgress('m', 'rows', total, 5000, () => now);
        for (const [t, done] of calls) {
          now = t;
          report(done);
        }
      } finally {
        setMigrationProgressReporter(null);
      }
      assert.deepEqual(seen, expected);
    });
  }
});
