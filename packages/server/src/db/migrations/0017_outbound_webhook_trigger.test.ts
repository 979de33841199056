import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { scratchDatabase } from '../../../test/helpers/test-app.js';
import { migrations, migrateToLatest } from '../migrate.js';
import { down, up } from './0017_outbound_webhook_trigger.js';

const delivery = (messageId: string) => ({
  messageId,
  endpointId: 'we_1',
  workspaceId: 'ws_a',
  environment: 'test',
  eventType: 'invoice.paid',
  messageSeq: 1,
  orderingKey: null,
  status: 'pending',
  attempts: 0,
  scheduleStep: 0,
  nextAttemptAt: 1,
  lastAttemptAt: null,
  lastResponseStatus: null,
  lastError: null,
  createdAt: 1,
  updatedAt: 1,
});

describe('migration 0017: webhook_deliveries.next_attempt_trigger', () => {
  it('adds a nullable column (existing deliveries are scheduled), drops it on the way down, and adds it again', async () => {
    const { opened, drop } = await scratchDatabase('m17');
    const db = opened.db as Kysely<any>;
    try {
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      for (const [name, m] of migrations.slice(
        0,
        migrations.findIndex(([n]) => n === '0017_outbound_webhook_trigger'),
      )) {
        await m.up(db);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
      }
      await db.insertInto('webhook_deliveries').values(delivery('msg_before')).execute();

      const applied = await migrateToLatest(opened.db);
      assert.equal(applied[0], '0017_outbound_webhook_trigger', 'applied first of those pending (the later ones after it)');
      await db
        .insertInto('webhook_deliveries')
        .values({ ...delivery('msg_after'), nextAttemptTrigger: 'replay' })
        .execute();
      const triggers = async () =>
        (await db.selectFrom('webhook_deliveries').select(['messageId', 'nextAttemptTrigger']).orderBy('messageId').execute()).map((r) => [
          r.messageId,
          r.nextAttemptTrigger,
        ]);
      assert.deepEqual(await triggers(), [
        ['msg_after', 'replay'],
        ['msg_before', null],
      ]);

      await down(db);
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('messageId', '=', 'msg_after').executeTakeFirstOrThrow();
      assert.equal('nextAttemptTrigger' in row, false);
      assert.equal(row.status, 'pending', 'the rows stay');

      await up(db);
      assert.deepEqual(await triggers(), [
        ['msg_after', null],
        ['msg_before', null],
      ]);
    } finally {
      await opened.close();
      await drop();
    }
  });
});
