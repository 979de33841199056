/**
 * Outbound webhooks across real `tollgate serve` processes.
 *
 * - A message committed but never sent when its server is SIGKILLed is sent after the restart,
 *   once (SQLite pass: a database file; PostgreSQL pass: a scratch schema with a role of its own).
 * - Two nodes on one PostgreSQL and one Redis: 1,000 events give 1,000 messages, each delivered
 *   once to a healthy receiver; the nodes learn of the commits through Redis alone (their poll is
 *   ten minutes), and each holds at most two of the four endpoints' lanes, so both send.
 *   PostgreSQL pass with REDIS_URL only; otherwise skipped with the reason.
 *
 * The outbox is written from this process with emitWebhookEvents, exactly as an emitting module
 * writes it in its transaction (the business emit sites are wired apart from the sender), and a
 * commit is announced on the bus as a node announces its own. Receivers listen on 127.0.0.1; the
 * servers run the development profile, which allows private addresses and http.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Redis } from 'ioredis';
import { backend } from './helpers/test-app.js';
import { Scratch, runCli, type ServeProcess } from './helpers/processes.js';
import { WebhookReceiver, verifyDelivery } from './helpers/webhook-receiver.js';
import { openDatabase, type OpenedDatabase } from '../src/db/database.js';
import { transaction } from '../src/db/transaction.js';
import { systemClock } from '../src/lib/clock.js';
import { createIdGenerator } from '../src/lib/ids.js';
import { emitWebhookEvents, type WebhookEventInput } from '../src/modules/outbound-webhooks/emit-webhook-events.js';
import { OUTBOX_CHANNEL } from '../src/modules/outbound-webhooks/webhook-sender.js';

interface Demo {
  workspaceId: string;
  environments: { test: { secretKey: string } };
}

async function demo(env: Record<string, string>): Promise<Demo> {
  const r = await runCli(['demo', '--json'], env);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Demo;
}

/** Polls `probe` until it holds; the bound is what a loaded machine may need, never a speed asserted. */
async function until(what: string, probe: () => Promise<boolean>, boundMs = 120_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ids = createIdGenerator(systemClock);

/** Writes the outbox as an emitting module does: one transaction, one message per event. */
async function emit(db: OpenedDatabase['db'], workspaceId: string, events: WebhookEventInput[]): Promise<number> {
  return transaction(db, (trx) =>
    emitWebhookEvents(
      trx,
      { clock: systemClock, ids },
      events.map((event) => ({ origin: { workspaceId, environment: 'test' as const, correlationId: 'req_processes' }, event })),
    ),
  );
}

const subscriptionEvent = (subId: string): WebhookEventInput => ({
  type: 'subscription.renewed',
  orderingKey: subId,
  data: { object: { id: subId, object: 'subscription' } },
});

/**
 * The storage both describes' servers use (on PostgreSQL a schema that comes migrated: see
 * Scratch.schema), made once and removed after both: each describe makes a workspace of its own in
 * it, and asks only about that workspace's rows. `databaseUrl` is null on the SQLite pass (a file in `dataDir`).
 */
const storageScratch = new Scratch('outbox');
after(() => storageScratch.cleanup());
let stored: Promise<{ dataDir: string; databaseUrl: string | null }> | null = null;
function storage(): Promise<{ dataDir: string; databaseUrl: string | null }> {
  stored ??= (async () => ({
    dataDir: path.join(storageScratch.tempDir(), 'data'),
    databaseUrl: backend === 'postgres' ? (await storageScratch.schema({ migrated: true })).url : null,
  }))();
  return stored;
}

describe(`outbound webhooks: a SIGKILL between the commit and the send (${backend})`, () => {
  const scratch = new Scratch('outbox');
  let receiver: WebhookReceiver;
  let opened: OpenedDatabase | null = null;
  after(async () => {
    await opened?.close();
    await receiver?.close();
    await scratch.cleanup();
  });

  it('the messages are sent after the restart, each once, signed', { timeout: 240_000 }, async () => {
    receiver = await WebhookReceiver.start();
    const { dataDir, databaseUrl } = await storage();
    const env: Record<string, string> = { DATA_DIR: dataDir, SEED_DEMO: 'false', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
    const { workspaceId, environments } = await demo(env);
    const key = environments.test.secretKey;

    // The first server sends nothing: what it commits stays in the outbox.
    const first: ServeProcess = await scratch.serve({ ...env, OUTBOUND_WEBHOOK_SENDER: 'false' }, 'sender off');
    const endpoint = await first.call('POST', '/api/v1/webhook-endpoints', key, { url: receiver.url('/crash'), eventTypes: ['*'] });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    opened = openDatabase({ databaseUrl, sqlitePath: databaseUrl ? undefined : path.join(dataDir, 'tollgate.db'), poolSize: 1 });
    const written = await emit(opened.db, workspaceId, [subscriptionEvent('sub_crash'), subscriptionEvent('sub_crash'), subscriptionEvent('sub_other')]);
    assert.equal(written, 3);
    const messages = await opened.db.selectFrom('webhookMessages').select(['id', 'body']).where('workspaceId', '=', workspaceId).orderBy('seq').execute();
    assert.equal(messages.length, 3);

    process.kill(first.pid!, 'SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    assert.equal(receiver.received.length, 0);

    const second = await scratch.serve(env, 'sender on');
    await until('every delivery succeeded', async () => {
      const rows = await opened!.db.selectFrom('webhookDeliveries').select('status').where('workspaceId', '=', workspaceId).execute();
      return rows.length === 3 && rows.every((r) => r.status === 'succeeded');
    });
    assert.deepEqual(receiver.ids('/crash').sort(), messages.map((m) => m.id).sort(), 'each message exactly once');
    // The two events of one subscription in their order.
    const crashOrder = receiver.ids('/crash').filter((id) => id === messages[0]!.id || id === messages[1]!.id);
    assert.deepEqual(crashOrder, [messages[0]!.id, messages[1]!.id]);
    for (const r of receiver.received) {
      assert.equal(r.body, messages.find((m) => m.id === r.headers['webhook-id'])!.body);
      assert.ok(verifyDelivery(endpoint.body.secret, r));
    }
    assert.equal((await second.stop()).code, 0);
  });
});

const twoNodesSkip: string | false =
  backend !== 'postgres'
    ? 'needs TEST_DATABASE_URL and REDIS_URL (the PostgreSQL pass)'
    : !process.env.REDIS_URL
      ? 'needs REDIS_URL (this PostgreSQL pass runs without Redis)'
      : false;

describe('outbound webhooks: two nodes on one PostgreSQL and Redis', () => {
  const scratch = new Scratch('outbox2');
  let receiver: WebhookReceiver;
  let opened: OpenedDatabase | null = null;
  let redis: Redis | null = null;
  let nodes: ServeProcess[] = [];
  let workspaceId = '';
  let key = '';
  let databaseUrl = '';

  before(async () => {
    if (twoNodesSkip) return;
    receiver = await WebhookReceiver.start();
    const shared = await storage();
    databaseUrl = shared.databaseUrl!;
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: shared.dataDir, SEED_DEMO: 'false' };
    ({
      workspaceId,
      environments: {
        test: { secretKey: key },
      },
    } = await demo(env));
    // Only a commit's message on the bus wakes them within the test: the poll is ten minutes. Two
    // lanes a node for four endpoints: both nodes must send.
    const serverEnv = { ...env, REDIS_URL: process.env.REDIS_URL as string, OUTBOUND_WEBHOOK_POLL_MS: '600000', OUTBOUND_WEBHOOK_MAX_LANES: '2' };
    nodes = await Promise.all([scratch.serve(serverEnv, 'A'), scratch.serve(serverEnv, 'B')]);
    opened = openDatabase({ databaseUrl, poolSize: 2 });
    redis = new Redis(process.env.REDIS_URL as string, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });

  after(async () => {
    redis?.disconnect();
    await opened?.close();
    await receiver?.close();
    await scratch.cleanup();
  });

  it('1,000 events give 1,000 messages, each delivered once; one subscription’s in order', { skip: twoNodesSkip, timeout: 240_000 }, async (t) => {
    const [a] = nodes;
    // Four endpoints, one per category: each event is one message to one endpoint, and there are four lanes for two nodes.
    const categories = ['subscription', 'invoice', 'api_key', 'credit_note'] as const;
    const secrets = new Map<string, string>();
    for (const c of categories) {
      const res = await a!.call('POST', '/api/v1/webhook-endpoints', key, { url: receiver.url(`/${c}`), eventTypes: [`${c}.*`] });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      secrets.set(`/${c}`, res.body.secret);
    }
    const events: WebhookEventInput[] = Array.from({ length: 1_000 }, (_, i) => {
      const c = categories[i % 4]!;
      if (c === 'subscription') return subscriptionEvent(`sub_${i % 20}`);
      const type = c === 'invoice' ? 'invoice.paid' : c === 'api_key' ? 'api_key.revoked' : 'credit_note.created';
      return { type, orderingKey: null, data: { object: { id: `${c}_${i}`, object: c } } };
    });
    for (let i = 0; i < events.length; i += 100) {
      assert.equal(await emit(opened!.db, workspaceId, events.slice(i, i + 100)), 100);
      // What a node's commit does: tell every node through Redis (the servers' default prefix).
      await redis!.publish(`tollgate:${OUTBOX_CHANNEL}`, 'test-process');
    }
    const messages = await opened!.db
      .selectFrom('webhookMessages')
      .select(['id', 'orderingKey', 'seq'])
      .where('workspaceId', '=', workspaceId)
      .orderBy('seq')
      .execute();
    assert.equal(messages.length, 1_000);

    await receiver.waitForCount(1_000, 180_000);
    await until('every delivery succeeded', async () => {
      const r = await opened!.db
        .selectFrom('webhookDeliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .where('status', '=', 'succeeded')
        .executeTakeFirstOrThrow();
      return Number(r.n) === 1_000;
    });
    assert.equal(receiver.received.length, 1_000, 'no message twice');
    assert.equal(new Set(receiver.ids()).size, 1_000);
    assert.deepEqual(new Set(receiver.ids()), new Set(messages.map((m) => m.id)));
    for (const r of receiver.received) assert.ok(verifyDelivery(secrets.get(r.path)!, r));

    // Per subscription, arrival order is seq order.
    const arrival = new Map(receiver.ids().map((id, i) => [id, i]));
    const byKey = new Map<string, string[]>();
    for (const m of messages) if (m.orderingKey !== null) byKey.set(m.orderingKey, [...(byKey.get(m.orderingKey) ?? []), m.id]);
    for (const [orderingKey, group] of byKey) {
      const order = group.map((id) => arrival.get(id)!);
      assert.deepEqual(
        order,
        [...order].sort((x, y) => x - y),
        `order of ${orderingKey}`,
      );
    }
    const attempts = await opened!.db.selectFrom('webhookAttempts').select(['nodeId', 'status']).where('workspaceId', '=', workspaceId).execute();
    assert.equal(attempts.length, 1_000, 'one attempt per message: each made by exactly one node');
    assert.ok(attempts.every((x) => x.status === 'succeeded'));
    const byNode = new Map<string, number>();
    for (const x of attempts) byNode.set(x.nodeId, (byNode.get(x.nodeId) ?? 0) + 1);
    t.diagnostic(`attempts by node: ${[...byNode].map(([n, count]) => `${n}: ${count}`).join(', ')}`);
    assert.equal(byNode.size, 2, 'both nodes sent');
    const lanes = await opened!.db.selectFrom('webhookLanes').select(['endpointId', 'owner']).where('workspaceId', '=', workspaceId).execute();
    assert.equal(lanes.length, 4);
  });
});
