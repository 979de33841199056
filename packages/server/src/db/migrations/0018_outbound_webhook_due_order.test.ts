import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { scratchDatabase } from '../../../test/helpers/test-app.js';
import { migrateToLatest } from '../migrate.js';
import { down, up } from './0018_outbound_webhook_due_order.js';

/** The columns of webhook_deliveries_due, in order, and whether it still covers pending rows only. */
async function dueIndex(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<{ columns: string[]; partial: boolean }> {
  if (dialect === 'sqlite') {
    const cols = await sql<{ name: string }>`select name from pragma_index_info('webhook_deliveries_due') order by seqno`.execute(db);
    const def = await sql<{ sql: string }>`select sql from sqlite_master where name = 'webhook_deliveries_due'`.execute(db);
    return { columns: cols.rows.map((r) => r.name), partial: /where\s+"?status"?\s*=\s*'pending'/i.test(def.rows[0]!.sql) };
  }
  const def = await sql<{
    indexdef: string;
  }>`select indexdef from pg_indexes where indexname = 'webhook_deliveries_due' and schemaname = current_schema()`.execute(db);
  const text = def.rows[0]!.indexdef;
  return {
    columns: /\(([^)]*)\)/
      .exec(text)![1]!
      .split(',')
      .map((c) => c.trim()),
    partial: /WHERE \(status = 'pending'::text\)/.test(text),
  };
}

describe('migration 0018: the due index orders by message_seq', () => {
  it('adds message_seq to webhook_deliveries_due (pending rows only), takes it out on the way down, and puts it back', async () => {
    const { opened, drop } = await scratchDatabase('m18');
    const db = opened.db as Kysely<any>;
    try {
      await migrateToLatest(opened.db);
      assert.deepEqual(await dueIndex(db, opened.dialect), { columns: ['endpoint_id', 'next_attempt_at', 'message_seq'], partial: true });
      await down(db);
      assert.deepEqual(await dueIndex(db, opened.dialect), { columns: ['endpoint_id', 'next_attempt_at'], partial: true });
      await up(db);
      assert.deepEqual(await dueIndex(db, opened.dialect), { columns: ['endpoint_id', 'next_attempt_at', 'message_seq'], partial: true });
    } finally {
      await opened.close();
      await drop();
    }
  });
});
