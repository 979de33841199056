import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { purgeAuditEvents } from './purge-audit-events.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const DAY_MS = 24 * 60 * 60 * 1000;

describe('purgeAuditEvents (365-day retention)', () => {
  it('keeps events 364 days old, purges them at 366 days, records the count, and is idempotent', async () => {
    const ws = await t.seed.workspace();
    const api = t.seed.client(ws.test.secretKey);
    await api.post('/api/v1/customers', { name: 'old' });
    const old = await t.deps.db.selectFrom('auditEvents').select('id').where('workspaceId', '=', ws.workspaceId).execute();
    assert.ok(old.length >= 2, 'the workspace creation and the customer create');
    const remaining = async () =>
      (
        await t.deps.db
          .selectFrom('auditEvents')
          .select('id')
          .where(
            'id',
            'in',
            old.map((e) => e.id),
          )
          .execute()
      ).length;

    t.clock.advance(364 * DAY_MS);
    await api.post('/api/v1/customers', { name: 'recent' });
    const at364 = await purgeAuditEvents(t.deps);
    assert.ok('purged' in at364);
    assert.equal(await remaining(), old.length, 'nothing 364 days old is purged');

    t.clock.advance(2 * DAY_MS);
    const at366 = await purgeAuditEvents(t.deps);
    assert.ok('purged' in at366 && at366.purged >= old.length, JSON.stringify(at366));
    assert.equal(await remaining(), 0, 'everything 366 days old is gone');
    const recent = await t.deps.db.selectFrom('auditEvents').select('id').where('workspaceId', '=', ws.workspaceId).execute();
    assert.equal(recent.length, 1, 'the event 2 days old stays');

    const record = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'system.audit_events_purged')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(record.payload).purged, (at366 as { purged: number }).purged);
    assert.equal(record.actorType, 'SYSTEM');

    const again = await purgeAuditEvents(t.deps);
    assert.deepEqual('purged' in again && again.purged, 0);
  });
});
