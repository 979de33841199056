// The sender's queries read the pending deliveries alone, through the partial indexes of
// migration 0016, however many final ones the table holds (every pass runs them).
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backend, createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { recordingPlans } from '../../../test/helpers/query-plans.js';
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import { transaction } from '../../db/transaction.js';
import { emitWebhookEvents } from './emit-webhook-events.js';
import { WebhookSender } from './webhook-sender.js';

/** Other tenants' delivered messages, and pending ones due later, so that PostgreSQL's planner weighs real tables. */
const FINAL_ROWS = 20_000;
const LATER_ROWS = 2_000;

let t: TestApp;
let rx: WebhookReceiver;

before(async () => {
  t = await createTestApp();
  rx = await WebhookReceiver.start();
  const ws = await t.seed.workspace();
  const api = t.seed.client(ws.test.secretKey);
  // Two endpoints: a pass claims for both lanes in one statement of each kind.
  for (let i = 0; i < 2; i++) assert.equal((await api.post('/api/v1/webhook-endpoints', { url: rx.url(), eventTypes: ['*'] })).status, 200);
  await transaction(t.deps.db, (trx) =>
    emitWebhookEvents(
      trx,
      t.deps,
      Array.from({ length: 5 }, (_, i) => ({
        origin: { workspaceId: ws.workspaceId, environment: 'test' as const, correlationId: 'req_plan' },
        event: { type: 'subscription.renewed' as const, orderingKey: i < 3 ? 'sub_plan' : null, data: { object: { id: `sub_${i}`, object: 'subscription' } } },
      })),
    ),
  );
  const later = t.clock.now() + 3_600_000;
  const series =
    backend === 'postgres'
      ? (n: number) => sql.raw(`generate_series(1, ${n}) as s(i)`)
      : (n: number) => sql.raw(`(with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) select i from s) as s`);
  await sql`insert into webhook_deliveries (message_id, endpoint_id, workspace_id, environment, event_type, message_seq, ordering_key, status, attempts, schedule_step, next_attempt_at, last_attempt_at, last_response_status, last_error, created_at, updated_at)
    select 'msg_other' || i, 'we_other' || (i % 40), 'ws_other' || (i % 40), 'test', 'invoice.paid', 100000 + i, 'sub_other' || (i % 300), 'succeeded', 1, 1, null, 0, 200, null, 0, 0 from ${series(FINAL_ROWS)}`.execute(
    t.deps.db,
  );
  await sql`insert into webhook_deliveries (message_id, endpoint_id, workspace_id, environment, event_type, message_seq, ordering_key, status, attempts, schedule_step, next_attempt_at, last_attempt_at, last_response_status, last_error, created_at, updated_at)
    select 'msg_later' || i, 'we_other' || (i % 40), 'ws_other' || (i % 40), 'test', 'invoice.paid', 200000 + i, 'sub_other' || (i % 300), 'pending', 1, 1, ${later}, 0, 500, 'http_status', 0, 0 from ${series(LATER_ROWS)}`.execute(
    t.deps.db,
  );
  if (backend === 'postgres') await sql`analyze webhook_deliveries`.execute(t.deps.db);
});
after(async () => {
  await t.close();
  await rx.close();
});

/**
 * The indexes a sender query may use on webhook_deliveries: the two partial ones (pending rows
 * only), the primary key, and the state index down to message_id (one row by its key: the batched
 * result write joins on the whole key, and SQLite takes the index with more of its columns).
 */
const ALLOWED =
  /webhook_deliveries_(due|order|pkey)|sqlite_autoindex_webhook_deliveries_1|webhook_deliveries_state \(workspace_id=\? AND environment=\? AND endpoint_id=\? AND status=\? AND message_id=\?\)/;

it(`every query of a sender pass on webhook_deliveries reads pending rows by the partial indexes (or one row by its key), never the whole table (${backend})`, async () => {
  const recording = recordingPlans(t.deps, /webhook_deliveries/);
  const sender = new WebhookSender(recording.deps, { nodeId: 'plan-node' });
  await sender.drain();
  await sender.close();
  assert.equal(rx.received.length, 10);
  const plans = await recording.plans();
  const discovery = plans.find((p) => /group by "endpoint_id"/.test(p.sql));
  const claim = plans.find((p) => /select "d"."endpoint_id", "d"."message_id"/.test(p.sql));
  assert.ok(discovery && claim, 'the discovery and the claim were recorded');
  assert.match(discovery.plan, /webhook_deliveries_due/);
  assert.match(claim.plan, /webhook_deliveries_due/);
  assert.match(claim.plan, /webhook_deliveries_order/, 'the ordering rule looks up earlier pending messages of the key');
  assert.ok(
    plans.some((p) => /set attempts = d\.attempts \+ 1/.test(p.sql) && (p.sql.match(/\(cast\(/g) ?? []).length > 5),
    'one claim UPDATE took the rows of both lanes (more than the five of one)',
  );
  for (const p of plans) {
    const where = `${p.sql}\n${p.plan}`;
    if (backend === 'postgres') {
      assert.doesNotMatch(p.plan, /Seq Scan on webhook_deliveries/, where);
      for (const m of p.plan.matchAll(/(?:Index|Index Only|Bitmap Index) Scan (?:using|on) (\S+)/g))
        if (/webhook_deliveries/.test(m[1]!))
          // The batched result write joins on the whole key. With one result PostgreSQL folds the
          // one-row list into constants, and the due index on endpoint_id ties with the key at
          // rows=1; with a backlog the statistics make it the key (bench/outbound-webhooks.ts).
          assert.match(m[1]!, ALLOWED, where);
    } else {
      for (const line of p.plan.split('\n')) {
        if (!/^(SCAN|SEARCH) (d|e|webhook_deliveries)\b/.test(line)) continue;
        assert.match(line, ALLOWED, where);
      }
    }
  }
});
