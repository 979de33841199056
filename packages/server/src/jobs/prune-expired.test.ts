import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { pruneExpired } from './prune-expired.js';
import { createMetric } from '../modules/metrics/create-metric.js';
import { transaction } from '../db/transaction.js';
import { emitWebhookEvents } from '../modules/outbound-webhooks/emit-webhook-events.js';

let t: TestApp;
const noOutbound = { outboundWebhookMessages: 0, outboundWebhookAttempts: 0, outboundWebhookLanes: 0 };

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

    assert.deepEqual(await pruneExpired(t.deps), {
      idempotencyKeys: 1,
      usageEventClaims: 1,
      accessTokens: 1,
      webhookEventIds: 0,
      webhookLogEntries: 0,
      ...noOutbound,
    });
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
    assert.deepEqual(await pruneExpired(t.deps), {
      idempotencyKeys: 0,
      usageEventClaims: 0,
      accessTokens: 0,
      webhookEventIds: 0,
      webhookLogEntries: 0,
      ...noOutbound,
    });
    // The run that deleted something is in the audit log as a platform event; the empty run is not.
    const runs = await t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', 'system.expired_rows_pruned').execute();
    assert.equal(runs.length, 1);
    assert.deepEqual([runs[0]!.workspaceId, runs[0]!.actorType, runs[0]!.actorId, runs[0]!.source], [null, 'SYSTEM', 'prune-expired', 'system']);
    assert.deepEqual(JSON.parse(runs[0]!.payload), {
      idempotencyKeys: 1,
      usageEventClaims: 1,
      accessTokens: 1,
      webhookEventIds: 0,
      webhookLogEntries: 0,
      ...noOutbound,
    });
  });

  it('deletes outbound webhook messages past OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS whose deliveries are all final, with their deliveries and attempts, older attempts, and the lanes of deleted endpoints', async () => {
    const ws = await t.seed.workspace('outbound');
    const api = t.seed.client(ws.test.secretKey);
    const endpoint = async () => (await api.post('/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', eventTypes: ['*'] })).body.id as string;
    const [live, deleted, held] = [await endpoint(), await endpoint(), await endpoint()];
    const emit = async (n: number) => {
      await transaction(t.deps.db, (trx) =>
        emitWebhookEvents(
          trx,
          t.deps,
          Array.from({ length: n }, (_, i) => ({
            origin: { workspaceId: ws.workspaceId, environment: 'test' as const, correlationId: 'req_prune' },
            event: { type: 'invoice.paid' as const, orderingKey: null, data: { object: { id: `inv_${i}`, object: 'invoice' } } },
          })),
        ),
      );
      const rows = await t.deps.db.selectFrom('webhookMessages').select('id').where('workspaceId', '=', ws.workspaceId).orderBy('seq').execute();
      return rows.slice(-n).map((r) => r.id);
    };
    const settle = (messageId: string, status: string) =>
      t.deps.db.updateTable('webhookDeliveries').set({ status, nextAttemptAt: null }).where('messageId', '=', messageId).execute();
    const attempt = (messageId: string) =>
      t.deps.db
        .insertInto('webhookAttempts')
        .values({
          id: t.deps.ids.next('webhookAttempt'),
          workspaceId: ws.workspaceId,
          environment: 'test',
          messageId,
          endpointId: live,
          eventType: 'invoice.paid',
          attemptNumber: 1,
          trigger: 'scheduled',
          url: 'http://127.0.0.1:9/hook',
          nodeId: 'n1',
          status: 'failed',
          responseStatus: 500,
          responseBody: '',
          responseTruncated: 0,
          errorCode: 'http_status',
          errorMessage: 'HTTP 500',
          latencyMs: 3,
          attemptedAt: t.clock.now(),
          nextAttemptAt: null,
        })
        .execute();

    const [succeeded, failed, pending] = await emit(3);
    await settle(succeeded!, 'succeeded');
    await settle(failed!, 'failed');
    for (const id of [succeeded!, failed!, pending!]) await attempt(id);
    await api.delete(`/api/v1/webhook-endpoints/${deleted}`);
    await api.delete(`/api/v1/webhook-endpoints/${held}`);
    // Deleting two endpoints fails their deliveries; `pending` stays pending for the live one.
    const lane = (endpointId: string, owner: string | null, leaseUntil: number) =>
      t.deps.db.insertInto('webhookLanes').values({ endpointId, workspaceId: ws.workspaceId, environment: 'test', owner, leaseUntil, generation: 1 }).execute();
    await lane(live, null, t.clock.now());
    await lane(deleted, null, t.clock.now());
    await lane(held, 'another-node', t.clock.now() + 400 * 24 * 60 * 60 * 1000);

    t.clock.advance(t.deps.config.outboundWebhookLogRetentionDays * 24 * 60 * 60 * 1000 + 1);
    const [fresh] = await emit(1);
    await settle(fresh!, 'succeeded');
    await attempt(fresh!);

    const pruned = await pruneExpired(t.deps);
    assert.deepEqual(
      { m: pruned.outboundWebhookMessages, a: pruned.outboundWebhookAttempts, l: pruned.outboundWebhookLanes },
      { m: 2, a: 1, l: 1 },
      'the succeeded and the failed message go (their attempts with them); the pending one stays, its old attempt goes; one lane',
    );
    const messages = await t.deps.db.selectFrom('webhookMessages').select('id').where('workspaceId', '=', ws.workspaceId).orderBy('seq').execute();
    assert.deepEqual(
      messages.map((m) => m.id),
      [pending, fresh],
    );
    const deliveries = await t.deps.db.selectFrom('webhookDeliveries').select('messageId').where('workspaceId', '=', ws.workspaceId).execute();
    assert.deepEqual(new Set(deliveries.map((d) => d.messageId)), new Set([pending, fresh]));
    const attempts = await t.deps.db.selectFrom('webhookAttempts').select('messageId').where('workspaceId', '=', ws.workspaceId).execute();
    assert.deepEqual(
      attempts.map((a) => a.messageId),
      [fresh],
    );
    const lanes = await t.deps.db.selectFrom('webhookLanes').select('endpointId').where('workspaceId', '=', ws.workspaceId).orderBy('endpointId').execute();
    assert.deepEqual(
      lanes.map((l) => l.endpointId),
      [live, held].sort(),
    );
    const again = await pruneExpired(t.deps);
    assert.deepEqual([again.outboundWebhookMessages, again.outboundWebhookAttempts, again.outboundWebhookLanes], [0, 0, 0]);
  });
});
