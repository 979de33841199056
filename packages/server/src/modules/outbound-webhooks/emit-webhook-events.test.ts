// The outbox write: messages and deliveries commit or roll back with the caller's transaction.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { TenantHandle } from '../../../test/helpers/seed.js';
import { transaction } from '../../db/transaction.js';
import { emitWebhookEvents, type WebhookEventInput } from './emit-webhook-events.js';
import { onOutboxCommitted } from './outbox-signal.js';
import { insertWebhookEndpoint } from './webhook-endpoint.repository.js';
import { secretAssociatedData, type WebhookEndpoint } from './webhook-endpoint.js';
import { listDeliveriesOfMessage, listTenantMessages } from './webhook-message.repository.js';

let t: TestApp;
let ws: TenantHandle;

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
});
after(() => t.close());

let n = 0;
async function endpoint(env: TenantHandle['test'], eventTypes: string[], status: WebhookEndpoint['status'] = 'enabled'): Promise<string> {
  const id = `we_test${String(++n).padStart(4, '0')}`;
  const now = t.clock.now();
  await insertWebhookEndpoint(t.deps.db, {
    id,
    workspaceId: env.workspaceId,
    environment: env.environment,
    url: `https://hooks.example/${id}`,
    description: '',
    metadata: {},
    eventTypes,
    status,
    disabledReason: status === 'disabled' ? 'manual' : null,
    disabledAt: status === 'disabled' ? now : null,
    failingSince: null,
    maxConcurrency: 16,
    secret: { ...t.deps.secrets.seal('whsec_x', secretAssociatedData(id)), hint: 'whsec_…x' },
    previousSecret: null,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

const upgraded = (subId: string): WebhookEventInput => ({
  type: 'subscription.upgraded',
  orderingKey: subId,
  data: { object: { id: subId, object: 'subscription', status: 'ACTIVE' }, previousAttributes: { offeringId: 'off_old' } },
});
const origin = (env: TenantHandle['test']) => ({ workspaceId: env.workspaceId, environment: env.environment, correlationId: 'req_test' });

describe('emitWebhookEvents: the outbox write in the caller’s transaction', () => {
  let subscribed: string[];
  let disabled: string;
  before(async () => {
    subscribed = [await endpoint(ws.test, ['subscription.*']), await endpoint(ws.test, ['*']), await endpoint(ws.test, ['subscription.upgraded'])];
    await endpoint(ws.test, ['invoice.paid']); // not subscribed to the type
    await endpoint(ws.live, ['*']); // another environment
    disabled = await endpoint(ws.test, ['*'], 'disabled');
  });

  it('a rolled-back transaction writes nothing and signals nothing', async () => {
    let signals = 0;
    const stop = onOutboxCommitted(() => signals++);
    await assert.rejects(
      transaction(t.deps.db, async (trx) => {
        assert.equal(await emitWebhookEvents(trx, t.deps, [{ origin: origin(ws.test), event: upgraded('sub_rolledback') }]), 1);
        throw new Error('the change fails after its emit');
      }),
      /the change fails/,
    );
    stop();
    assert.deepEqual(await listTenantMessages(t.deps.db, ws.test), []);
    assert.equal(signals, 0);
  });

  it('a committed one writes exactly one message, with one delivery per subscribed endpoint, and signals once committed', async () => {
    let signals = 0;
    const stop = onOutboxCommitted(() => signals++);
    await transaction(t.deps.db, async (trx) => {
      await emitWebhookEvents(trx, t.deps, [{ origin: origin(ws.test), event: upgraded('sub_committed') }]);
      assert.equal(signals, 0, 'no signal before the commit');
    });
    stop();
    assert.equal(signals, 1);
    const messages = await listTenantMessages(t.deps.db, ws.test);
    assert.equal(messages.length, 1);
    const [m] = messages;
    assert.equal(m!.eventType, 'subscription.upgraded');
    assert.equal(m!.orderingKey, 'sub_committed');
    assert.equal(m!.correlationId, 'req_test');
    assert.match(m!.id, /^msg_/);
    assert.deepEqual(JSON.parse(m!.body), {
      type: 'subscription.upgraded',
      timestamp: new Date(t.clock.now()).toISOString(),
      data: { object: { id: 'sub_committed', object: 'subscription', status: 'ACTIVE' }, previousAttributes: { offeringId: 'off_old' } },
    });
    const deliveries = await listDeliveriesOfMessage(t.deps.db, ws.test, m!.id);
    assert.deepEqual(
      deliveries.map((d) => [d.endpointId, d.status, d.nextAttemptAt, d.lastError]),
      [...subscribed.map((id) => [id, 'pending', t.clock.now(), null]), [disabled, 'failed', null, 'endpoint_disabled']].sort(),
    );
    assert.deepEqual(await listTenantMessages(t.deps.db, ws.live), [], 'the other environment’s endpoint gets nothing');
  });

  it('an event no endpoint subscribes to writes nothing', async () => {
    const other = await t.seed.workspace('Invoices only');
    await endpoint(other.test, ['invoice.paid']);
    const written = await transaction(t.deps.db, (trx) =>
      emitWebhookEvents(trx, t.deps, [
        { origin: origin(other.test), event: { type: 'credit_note.created', orderingKey: null, data: { object: { id: 'cn_1', object: 'credit_note' } } } },
      ]),
    );
    assert.equal(written, 0);
    assert.deepEqual(await listTenantMessages(t.deps.db, other.test), []);
  });

  it('several events in one transaction: one message each, in the order given', async () => {
    const before = (await listTenantMessages(t.deps.db, ws.test)).length;
    await transaction(t.deps.db, (trx) =>
      emitWebhookEvents(
        trx,
        t.deps,
        ['sub_a', 'sub_b', 'sub_c'].map((s) => ({ origin: origin(ws.test), event: upgraded(s) })),
      ),
    );
    const after = (await listTenantMessages(t.deps.db, ws.test)).slice(before);
    assert.deepEqual(
      after.map((m) => m.orderingKey),
      ['sub_a', 'sub_b', 'sub_c'],
    );
    assert.ok(after[0]!.seq < after[1]!.seq && after[1]!.seq < after[2]!.seq);
  });

  it('a workspace without endpoints writes nothing (one read, no insert)', async () => {
    const other = await t.seed.workspace('No endpoints');
    assert.equal(await transaction(t.deps.db, (trx) => emitWebhookEvents(trx, t.deps, [{ origin: origin(other.test), event: upgraded('sub_x') }])), 0);
    assert.deepEqual(await listTenantMessages(t.deps.db, other.test), []);
  });
});
