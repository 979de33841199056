import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { createDemoWorkspace } from '../../demo/create-demo-workspace.js';
import type { Subscription } from './subscription.js';
import { findSubscription, updateRenewedSubscriptions } from './subscription.repository.js';

/** The renewal job's one-statement update, on the backend of this pass (SQLite, or PostgreSQL in its pass). */
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t.close());

describe('updateRenewedSubscriptions', () => {
  it('writes what a renewal changes, only where the version read is still current, and counts what it wrote', async () => {
    const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
    const tenant = { workspaceId: d.workspaceId, environment: 'test' as const };
    const api = t.seed.client(d.environments.test.secretKey);
    const ids = [d.environments.test.subscriptionId];
    for (let i = 0; i < 2; i++) {
      const res = await api.post('/api/v1/subscriptions', { customerId: d.environments.test.customerId, offeringId: d.environments.test.offeringId });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      ids.push(res.body.id);
    }
    const subs = await Promise.all(ids.map(async (id) => (await findSubscription(t.deps.db, tenant, id))!));
    const cases: Array<{ name: string; next: (s: Subscription) => Subscription; stale: boolean }> = [
      {
        name: 'renewed: a new period, a change consumed',
        next: (s) => ({
          ...s,
          currentPeriodStart: s.currentPeriodEnd,
          currentPeriodEnd: s.currentPeriodEnd + 1000,
          scheduledChange: null,
          version: s.version + 1,
        }),
        stale: false,
      },
      {
        name: 'cancelled at the period end',
        next: (s) => ({ ...s, status: 'CANCELLED', cancelledAt: s.currentPeriodEnd, cancelAtPeriodEnd: false, version: s.version + 1 }),
        stale: false,
      },
      { name: 'read at a version that has moved since', next: (s) => ({ ...s, currentPeriodStart: 1, version: s.version + 1 }), stale: true },
    ];
    const written = await updateRenewedSubscriptions(
      t.deps.db,
      tenant,
      cases.map((c, k) => ({ next: { ...c.next(subs[k]!), updatedAt: 1234 }, readVersion: c.stale ? subs[k]!.version - 1 : subs[k]!.version })),
    );
    assert.equal(written, 2);
    for (const [k, c] of cases.entries()) {
      const now = (await findSubscription(t.deps.db, tenant, ids[k]!))!;
      if (c.stale) assert.deepEqual(now, subs[k], c.name);
      else assert.deepEqual(now, { ...c.next(subs[k]!), updatedAt: 1234 }, c.name);
    }
    // Another tenant's rows are never touched, even with the right ids and versions.
    const other = { workspaceId: d.workspaceId, environment: 'live' as const };
    assert.equal(await updateRenewedSubscriptions(t.deps.db, other, [{ next: { ...subs[2]!, version: 99 }, readVersion: subs[2]!.version }]), 0);
  });
});
