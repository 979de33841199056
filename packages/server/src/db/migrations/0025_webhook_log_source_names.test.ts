import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { scratchDatabase } from '../../../test/helpers/test-app.js';
import { migrateToLatest } from '../migrate.js';
import { down, up } from './0025_webhook_log_source_names.js';

describe('migration 0025: the source display name on ingestion log entries', () => {
  it("fills entries written before it with their source's name (a deleted source's too), and goes down and up again", async () => {
    const { opened, drop } = await scratchDatabase('m25');
    const db = opened.db as Kysely<any>;
    try {
      await migrateToLatest(opened.db);
      await down(db);
      const source = (id: string, name: string, deletedAt: number | null) =>
        sql`insert into webhook_sources (id, workspace_id, environment, provider, display_name, metric_id, signature, event_filter, field_mappings, dedup_window_hours, created_at, updated_at, deleted_at)
          values (${id}, 'ws_a', 'test', 'custom', ${name}, 'mtr_1', '{}', '[]', '{}', 72, 0, 0, ${deletedAt})`.execute(db);
      const entry = (id: string, sourceId: string) =>
        sql`insert into webhook_log (id, workspace_id, environment, source_id, received_at, status, verification, http_status, outcomes, headers, body, body_encoding, url, correlation_id)
          values (${id}, 'ws_a', 'test', ${sourceId}, 0, 'accepted', 'passed', 200, '[]', '{}', '{}', 'utf8', '/', 'req')`.execute(db);
      await source('wsrc_kept', 'Stripe payments', null);
      await source('wsrc_gone', 'Old GitHub', 1);
      await entry('whl_1', 'wsrc_kept');
      await entry('whl_2', 'wsrc_gone');
      await entry('whl_3', 'wsrc_kept');

      await up(db);
      const names = async () =>
        (await sql<{ id: string; name: string }>`select id, source_display_name as name from webhook_log order by id`.execute(db)).rows.map((r) => [
          r.id,
          r.name,
        ]);
      const filled = [
        ['whl_1', 'Stripe payments'],
        ['whl_2', 'Old GitHub'],
        ['whl_3', 'Stripe payments'],
      ];
      assert.deepEqual(await names(), filled);
      await down(db);
      await up(db);
      assert.deepEqual(await names(), filled);
    } finally {
      await opened.close();
      await drop();
    }
  });
});
