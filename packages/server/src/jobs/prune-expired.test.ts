import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { pruneExpired } from './prune-expired.js';
import { createMetric } from '../modules/metrics/create-metric.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('pruneExpired', () => {
  it("deletes idempotency keys and usage events' id claims older than 24 h and expired access tokens, keeps the rest, and can run twice", async () => {
    const ws = await t.seed.workspace();
    const api = t.seed.client(ws.test.secretKey);
    await createMetric(t.deps, ws.test.ctx, { name: 'calls' });
    const customer = await t.seed.customer(ws.test);
    const ingest = async (eventId: string) => {
      const event = { customerId: customer.id, metricName: 'calls', quantity: 1, occurredAt: new Date(t.clock.now()).toISOString(), eventId };
      assert.equal((await api.post('/v1/ingest/batch', { events: [event] })).body.accepted, 1);
    };
    await api.post('/api/v1/customers', { name: 'old' }, { 'idempotency-key': 'old' });
    await ingest('evt-old');
    const { subscription } = await t.seed.subscription(ws.test, 'MCP_SERVER');
    const cred = await api.post('/api/v1/client-credentials', { name: 'agent', subscriptionId: subscription.id });
    const token = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${cred.body.id}&client_secret=${cred.body.clientSecret}`,
    });
    assert.equal(token.statusCode, 200);

    t.clock.advance(t.deps.config.accessTokenTtlSeconds * 1000);
    await api.post('/api/v1/customers', { name: 'fresh' }, { 'idempotency-key': 'fresh' });
    await ingest('evt-fresh');
    t.clock.advance(24 * 60 * 60 * 1000 - t.deps.config.accessTokenTtlSeconds * 1000 + 1);

    assert.deepEqual(await pruneExpired(t.deps), { idempotencyKeys: 1, usageEventClaims: 1, accessTokens: 1, webhookEventIds: 0, webhookLogEntries: 0 });
    const left = await t.deps.db.selectFrom('idempotencyKeys').select('key').execute();
    assert.deepEqual(
      left.map((r) => r.key),
      ['fresh'],
    );
    const claims = await t.deps.db.selectFrom('usageEventClaims').select('eventId').execute();
    assert.deepEqual(
      claims.map((r) => r.eventId),
      ['evt-fresh'],
    );
    assert.deepEqual(await pruneExpired(t.deps), { idempotencyKeys: 0, usageEventClaims: 0, accessTokens: 0, webhookEventIds: 0, webhookLogEntries: 0 });
    // The run that deleted something is in the audit log as a platform event; the empty run is not.
    const runs = await t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', 'system.expired_rows_pruned').execute();
    assert.equal(runs.length, 1);
    assert.deepEqual([runs[0]!.workspaceId, runs[0]!.actorType, runs[0]!.actorId, runs[0]!.source], [null, 'SYSTEM', 'prune-expired', 'system']);
    assert.deepEqual(JSON.parse(runs[0]!.payload), { idempotencyKeys: 1, usageEventClaims: 1, accessTokens: 1, webhookEventIds: 0, webhookLogEntries: 0 });
  });
});
