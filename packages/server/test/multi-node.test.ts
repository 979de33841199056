/**
 * Two `tollgate serve` processes on one PostgreSQL database and one Redis: the per-workspace rate
 * limit is counted once across both, and a revocation on one node stops the key on the other at
 * once (through the Redis invalidation message), while a rotated key keeps its grace period; and
 * a limit changed with the CLI reaches both running nodes the same way. The last tests reach both
 * nodes through a round-robin balancer, as compose.yaml runs them behind nginx (docs/production.md, "Run it
 * in containers"), and a client of the balancer sees one service.
 *
 * Runs on the PostgreSQL pass with REDIS_URL set; otherwise every test is skipped with the reason.
 * The servers use the default 'tollgate:' Redis prefix; each run's workspaces are new, so the
 * rate-limit buckets (tollgate:rl:ws:<workspace id>) never collide with another run's.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Decimal } from '@tollgate/pricing';
import { backend } from './helpers/test-app.js';
import { Scratch, call, runCli, type ServeProcess as Node } from './helpers/processes.js';
import { RoundRobinBalancer } from './helpers/round-robin-balancer.js';
import { StreamClient } from './helpers/sse-client.js';
import { demoDelivery } from './helpers/demo-webhooks.js';
import type { DemoWebhookSource } from '../src/demo/create-demo-sources.js';

const skip: string | false =
  backend !== 'postgres'
    ? 'needs TEST_DATABASE_URL and REDIS_URL (the PostgreSQL pass)'
    : !process.env.REDIS_URL
      ? 'needs REDIS_URL (this PostgreSQL pass runs without Redis)'
      : false;

interface DemoEnvironment {
  offeringId: string;
  secretKey: string;
  productKey: string;
  productKeyId: string;
  subscriptionId: string;
  webhookSources: { payment: DemoWebhookSource };
}
interface Demo {
  workspaceId: string;
  environments: { test: DemoEnvironment; live: DemoEnvironment };
}

async function demo(env: Record<string, string>): Promise<Demo> {
  // The bound of a server start (helpers/processes.ts): a demo run beside two starting servers on
  // a loaded 2-core machine took over 30 s.
  const r = await runCli(['demo', '--json'], env, 80_000);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Demo;
}

/**
 * Polls `probe` every 20 ms until it returns true or `ms` pass; returns the milliseconds taken, or
 * null. The bound is what a loaded machine may need, not a speed the test asserts.
 */
async function within(ms: number, probe: () => Promise<boolean>): Promise<number | null> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > ms) return null;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('two server processes on one PostgreSQL and Redis', () => {
  /** The database, temp dir and both nodes; the `after` hook below removes them all. */
  const scratch = new Scratch('multi');
  let databaseUrl = '';
  let tmp = '';
  let a: Node;
  let b: Node;
  let limited: Demo;
  let revoking: Demo;
  /** Its own workspace, used only through the balancer. */
  let balanced: Demo;
  /** Its own workspace, for the test clock's invoices: the rate-limit test spends another's budget. */
  let clocked: Demo;
  let balancer: RoundRobinBalancer | null = null;

  before(async () => {
    if (skip) return;
    databaseUrl = (await scratch.schema({ migrated: true })).url;
    tmp = scratch.tempDir();
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: path.join(tmp, 'data') };
    // The first demo on its own (the schema comes migrated); then the second and both nodes start together.
    limited = await demo(env);
    const serverEnv = {
      ...env,
      REDIS_URL: process.env.REDIS_URL as string,
      SEED_DEMO: 'false',
      // Long enough that only a Redis message, never the cache TTL, can make a node drop a cached
      // key within the test. (No check that B serves a stale entry while no message comes: other
      // runs on the same Redis share the default channel, and their messages clear this run's
      // caches too.)
      KEY_CACHE_TTL_MS: '600000',
      // As compose.yaml runs them: behind a balancer that sets X-Forwarded-For.
      TRUST_PROXY: 'true',
    };
    [revoking, a, b] = await Promise.all([demo(env), scratch.serve(serverEnv, 'A'), scratch.serve(serverEnv, 'B')]);
    assert.notEqual(a.address, b.address);
    // After, not beside, the starts above: on a loaded 2-core machine a fourth process at once can
    // push a demo past runCli's 30 s bound. These two together, beside idle nodes.
    [balanced, clocked] = await Promise.all([demo(env), demo(env)]);
    balancer = await RoundRobinBalancer.start([a, b]);
  });

  after(async () => {
    await balancer?.close();
    await scratch.cleanup();
  });

  it('the rate limit of 300 requests per minute per workspace is counted once across both nodes', { skip, timeout: 60_000 }, async (t: TestContext) => {
    const key = limited.environments.test.secretKey;
    const started = Date.now();
    for (let i = 0; i < 300; i++) {
      const node = i % 2 === 0 ? a : b;
      const res = await node.call('GET', '/api/v1/workspace', key);
      assert.equal(res.status, 200, `request ${i + 1} (node ${node.name}) should pass: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers.get('x-ratelimit-limit'), '300', `request ${i + 1}`);
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(299 - i), `request ${i + 1} (node ${node.name})`);
    }
    t.diagnostic(`300 requests alternating A/B in ${Date.now() - started} ms`);

    const expectLimited = async (node: Node, k: string) => {
      const res = await node.call('GET', '/api/v1/workspace', k);
      assert.equal(res.status, 429, `node ${node.name}`);
      const retryAfter = res.headers.get('retry-after') ?? '';
      assert.match(retryAfter, /^\d+$/);
      assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter} is 1..60`);
      assert.equal(res.headers.get('x-ratelimit-limit'), '300');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(res.body.success, false);
      assert.equal(res.body.errors.length, 1);
      assert.equal(res.body.errors[0].code, 'RATE_LIMITED');
      assert.match(res.body.errors[0].message, /300 requests per minute per tenant/);
    };
    await expectLimited(a, key); // the 301st, on A
    await expectLimited(b, key); // and on B
    // The limit is the workspace's, shared by its live environment.
    await expectLimited(b, limited.environments.live.secretKey);
    // Another workspace on the same nodes is unaffected.
    const other = await a.call('GET', '/api/v1/workspace', revoking.environments.live.secretKey);
    assert.equal(other.status, 200);
  });

  it('a key revoked on node A stops working on node B at once, although B had it cached', { skip, timeout: 60_000 }, async (t: TestContext) => {
    const { secretKey, productKey, productKeyId } = revoking.environments.test;

    // Node B resolves the product key and caches it, both as a key to verify and as a bearer.
    const before = await b.call('POST', '/v1/keys/verify', secretKey, { key: productKey });
    assert.equal(before.status, 200);
    assert.equal(before.body.valid, true);
    assert.equal(before.body.keyId, productKeyId);
    const self = await b.call('GET', `/api/v1/api-keys/${productKeyId}`, productKey);
    assert.equal(self.status, 200);
    assert.equal(self.body.status, 'ACTIVE');

    // Revoke through node A.
    const revoked = await a.call('DELETE', `/api/v1/api-keys/${productKeyId}`, secretKey);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.status, 'REVOKED');
    // Node A itself refuses at once.
    assert.equal((await a.call('GET', `/api/v1/api-keys/${productKeyId}`, productKey)).status, 401);

    // Node B: the Redis message arrives in milliseconds. Allow up to 30 s for a loaded machine:
    // KEY_CACHE_TTL_MS is ten minutes here, so only the message can do it within that.
    let last: { status: number; body: any } | undefined;
    const ms = await within(30_000, async () => {
      last = await b.call('GET', `/api/v1/api-keys/${productKeyId}`, productKey);
      return last.status === 401;
    });
    assert.notEqual(ms, null, `node B still accepted the revoked key 30 s later (last status ${last?.status})`);
    t.diagnostic(`node B refused the revoked key ${ms} ms after node A's DELETE returned`);
    assert.equal(last!.body.errors[0].code, 'UNAUTHENTICATED');
    assert.equal(last!.body.errors[0].message, 'This key has been revoked.');

    const after = await b.call('POST', '/v1/keys/verify', secretKey, { key: productKey });
    assert.equal(after.status, 200);
    assert.equal(after.body.valid, false);
    assert.equal(after.body.code, 'REVOKED');
    assert.equal(after.body.keyId, productKeyId);
  });

  it(
    'a key rotated on node A keeps working on node B for its grace period, and the new key works on B at once',
    { skip, timeout: 60_000 },
    async (t: TestContext) => {
      const { secretKey, subscriptionId } = revoking.environments.test;
      // A fresh product key on the demo subscription (the demo's own one was revoked above).
      const made = await a.call('POST', '/api/v1/api-keys', secretKey, { kind: 'PRODUCT', name: 'to rotate', subscriptionId });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const oldKey = made.body.fullToken as string;
      const oldId = made.body.id as string;

      // Node B caches the old key.
      assert.equal((await b.call('GET', `/api/v1/api-keys/${oldId}`, oldKey)).status, 200);
      const cached = await b.call('POST', '/v1/keys/verify', secretKey, { key: oldKey });
      assert.equal(cached.body.valid, true);
      assert.equal(cached.body.expiresAt, null);

      const beforeRotate = Date.now();
      const rotated = await a.call('POST', `/api/v1/api-keys/${oldId}/rotate`, secretKey);
      const afterRotate = Date.now();
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const newKey = rotated.body.fullToken as string;
      const newId = rotated.body.id as string;
      assert.equal(rotated.body.previousKeyId, oldId);
      const graceEnd = Date.parse(rotated.body.previousKeyExpiresAt);
      // Bracketed by the clock around the call (same machine), so no tolerance for a slow response is needed.
      assert.ok(
        graceEnd >= beforeRotate + 300_000 && graceEnd <= afterRotate + 300_000,
        `grace ends 300 s after the rotation: ${rotated.body.previousKeyExpiresAt}`,
      );

      // Node B learns of the rotation (its answer gains the grace period's end) and still accepts
      // the old key.
      let seen: any;
      const ms = await within(30_000, async () => {
        seen = (await b.call('POST', '/v1/keys/verify', secretKey, { key: oldKey })).body;
        return seen.expiresAt !== null;
      });
      assert.notEqual(ms, null, 'node B never saw the rotation');
      t.diagnostic(`node B saw the rotation ${ms} ms after node A's rotate returned`);
      assert.equal(seen.valid, true);
      assert.equal(seen.code, 'VALID');
      assert.equal(seen.keyId, oldId);
      assert.equal(seen.expiresAt, rotated.body.previousKeyExpiresAt);
      const oldOnB = await b.call('GET', `/api/v1/api-keys/${oldId}`, oldKey);
      assert.equal(oldOnB.status, 200);
      assert.equal(oldOnB.body.status, 'ROTATED');
      assert.equal(oldOnB.body.replacedById, newId);

      // The new key works on node B.
      const newOnB = await b.call('GET', `/api/v1/api-keys/${newId}`, newKey);
      assert.equal(newOnB.status, 200);
      assert.equal(newOnB.body.status, 'ACTIVE');
      const verifiedNew = await b.call('POST', '/v1/keys/verify', secretKey, { key: newKey });
      assert.equal(verifiedNew.body.valid, true);
      assert.equal(verifiedNew.body.keyId, newId);
      assert.equal(verifiedNew.body.subscriptionId, subscriptionId);
    },
  );
  it('a limit set with `tollgate workspace set-rate-limit` reaches both running nodes at once', { skip, timeout: 90_000 }, async (t: TestContext) => {
    const key = revoking.environments.live.secretKey;
    // Both nodes hold the workspace's credential, with its limit, in their caches.
    for (const node of [a, b]) {
      const res = await node.call('GET', '/api/v1/workspace', key);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '300', `node ${node.name}`);
    }
    const r = await runCli(['workspace', 'set-rate-limit', '--id', revoking.workspaceId, '--per-minute', '1000'], {
      DATABASE_URL: databaseUrl,
      DATA_DIR: path.join(tmp, 'data'),
      REDIS_URL: process.env.REDIS_URL as string,
    });
    assert.equal(r.status, 0, r.stderr);
    for (const node of [a, b]) {
      let res: { status: number; headers: Headers; body: any } | undefined;
      const ms = await within(30_000, async () => {
        res = await node.call('GET', '/api/v1/workspace', key);
        return res.headers.get('x-ratelimit-limit') === '1000';
      });
      assert.notEqual(ms, null, `node ${node.name} still limits at ${res?.headers.get('x-ratelimit-limit')}`);
      t.diagnostic(`node ${node.name} applied the new limit within ${ms} ms of the CLI exiting`);
      assert.equal(res!.body.rateLimitPerMinute, 1000);
    }
  });
  it(
    'the same signed webhook sent to both nodes at once is stored exactly once; a secret changed on A applies on B at once',
    { skip, timeout: 60_000 },
    async (t: TestContext) => {
      const e = revoking.environments.test;
      const source = e.webhookSources.payment;
      const post = (node: Node, d: { path: string; headers: Record<string, string>; body: string }) =>
        fetch(node.address + d.path, { method: 'POST', headers: d.headers, body: d.body }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as any,
        }));
      const d = demoDelivery('payment', source, a.address, 'acme', Date.now());
      const answers = await Promise.all([a, b, a, b, a, b, a, b].map((node) => post(node, d)));
      assert.deepEqual(
        answers.map((x) => x.status),
        Array(8).fill(200),
      );
      assert.deepEqual(
        answers.map((x) => x.body.status).sort(),
        ['accepted', ...Array(7).fill('duplicate')],
        'the database decides: one node stores it, every other answer is a duplicate',
      );
      const accepted = await b.call('GET', `/api/v1/webhook-log?sourceId=${source.id}&status=accepted`, e.secretKey);
      assert.equal(accepted.status, 200);
      assert.equal(accepted.body.data.length, 1);

      // B caches the source (and its opened secret) from the deliveries above.
      const newSecret = 'whsec_rotated_on_node_a_0123456789';
      const patched = await a.call('PATCH', `/api/v1/webhook-sources/${source.id}`, e.secretKey, { signingSecret: newSecret });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      let last = 0;
      const ms = await within(2000, async () => {
        last = (await post(b, demoDelivery('payment', source, b.address, 'acme', Date.now()))).status;
        return last === 401;
      });
      assert.notEqual(ms, null, `node B still accepts the old secret (last status ${last})`);
      t.diagnostic(`node B refused the old secret within ${ms} ms of the change on A`);
      const fresh = await post(b, demoDelivery('payment', { ...source, secret: newSecret }, b.address, 'acme', Date.now()));
      assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
      assert.equal(fresh.body.status, 'accepted');
    },
  );
  it('two nodes advancing the same test clock issue each invoice exactly once, numbered without gaps', { skip, timeout: 120_000 }, async () => {
    // A workspace of its own (made in before()): the rate-limit test spends another's budget.
    const { secretKey, offeringId } = clocked.environments.test;
    const start = Date.UTC(2026, 0, 10, 9);
    const clock = await a.call('POST', '/api/v1/test_clocks', secretKey, { frozenTime: new Date(start).toISOString() });
    assert.equal(clock.status, 200, JSON.stringify(clock.body));
    const subs: string[] = [];
    for (let i = 0; i < 12; i++) {
      const customer = await a.call('POST', '/api/v1/customers', secretKey, { name: `clocked ${i}`, testClockId: clock.body.id });
      assert.equal(customer.status, 200, JSON.stringify(customer.body));
      const sub = await (i % 2 ? a : b).call('POST', '/api/v1/subscriptions', secretKey, { customerId: customer.body.id, offeringId });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      subs.push(sub.body.id);
    }
    // Three months and a day later, through both nodes at once, twice each.
    const to = new Date(Date.UTC(2026, 3, 11, 9)).toISOString();
    const answers = await Promise.all(
      [a, b, a, b].map((node) => node.call('POST', `/api/v1/test_clocks/${clock.body.id}/advance`, secretKey, { frozenTime: to })),
    );
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    const numbers: string[] = [];
    for (const id of subs) {
      const list = await b.call('GET', `/api/v1/invoices?subscriptionId=${id}&limit=100`, secretKey);
      assert.equal(list.status, 200);
      const invoices = list.body.data as Array<{ billingReason: string; periodStart: string; status: string; number: string }>;
      const cycles = invoices
        .filter((i) => i.billingReason === 'subscription_cycle')
        .map((i) => i.periodStart)
        .sort();
      assert.deepEqual(
        cycles,
        ['2026-01-10T09:00:00.000Z', '2026-02-10T09:00:00.000Z', '2026-03-10T09:00:00.000Z'],
        `subscription ${id}: one invoice per period`,
      );
      assert.equal(invoices.filter((i) => i.billingReason === 'subscription_create').length, 1);
      assert.ok(invoices.every((i) => i.status === 'finalized'));
      numbers.push(...invoices.map((i) => i.number));
    }
    const sequence = numbers.map((n) => Number(n.slice(-6))).sort((x, y) => x - y);
    assert.deepEqual(
      sequence,
      Array.from({ length: subs.length * 4 }, (_, i) => i + 1),
      'every number once, none skipped',
    );
  });

  it(
    'prepaid credits: checks and usage on both nodes at once buy one automatic top-up per crossing, and the ledger sums to the balance',
    { skip, timeout: 120_000 },
    async () => {
      const { secretKey } = clocked.environments.test;
      const ok = async (node: Node, method: string, url: string, body?: unknown) => {
        const r = await node.call(method, url, secretKey, body);
        assert.equal(r.status, 200, `${method} ${url} on ${node.name}: ${JSON.stringify(r.body)}`);
        return r.body;
      };
      const product = await ok(a, 'POST', '/api/v1/products', { name: 'Prepaid agents', kind: 'STANDARD_API' });
      const plan = await ok(a, 'POST', '/api/v1/rate-plans', {
        name: 'Per call',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.01' }],
      });
      const offering = await ok(b, 'POST', '/api/v1/offerings', {
        productId: product.id,
        name: 'Prepaid',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        billingMode: 'PREPAID',
        overage: 'BLOCK',
        ratePlanIds: [plan.id],
      });
      const customer = await ok(a, 'POST', '/api/v1/customers', { name: 'Two-node buyer' });
      await ok(b, 'POST', '/api/v1/subscriptions', { customerId: customer.id, offeringId: offering.id });
      await ok(a, 'PUT', `/api/v1/customers/${customer.id}/credit_settings/USD`, { autoTopUp: { threshold: '0.50', amount: '10.00', maxPerPeriod: 5 } });
      await ok(b, 'POST', '/api/v1/credit_grants', { customerId: customer.id, amount: '1.00', currency: 'USD' });
      const purchases = async () =>
        (
          (await ok(a, 'GET', `/api/v1/credit_grants?customerId=${customer.id}&limit=100`)).data as Array<{ source: string; status: string; invoiceId: string }>
        ).filter((g) => g.source === 'purchased');
      const check = (node: Node) => node.call('GET', `/v1/entitlements/check?accessorId=${customer.id}&productId=${product.id}`, secretKey);
      const use = (node: Node, quantity: number) =>
        node.call('POST', '/v1/ingest/batch', secretKey, {
          events: [{ customerId: customer.id, metricName: 'api_calls', quantity, occurredAt: new Date().toISOString() }],
        });
      /** Usage and checks through both nodes at once, as a busy customer's would arrive. */
      const burst = async (quantityEach: number) => {
        const answers = await Promise.all(
          [a, b, a, b, a, b, a, b].flatMap((node, i) => (i < 2 ? [use(node, quantityEach)] : []).concat([check(node), check(node)])),
        );
        for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
        // Once the usage is in, every node's next check sees the crossing.
        for (const r of await Promise.all([a, b, a, b].map(check))) assert.equal(r.status, 200, JSON.stringify(r.body));
      };

      // 1.00 granted; 30 calls on each node: 0.40 left, below 0.50.
      await burst(30);
      let bought = await purchases();
      assert.equal(bought.length, 1, 'one top-up for one crossing, whichever node saw it first');
      assert.equal(bought[0]!.status, 'pending');
      // Paid (marked paid here), it counts; 10.40 left. Then 500 calls on each node: 0.40 left again.
      await ok(b, 'POST', `/api/v1/invoices/${bought[0]!.invoiceId}/pay`, {});
      await burst(500);
      bought = await purchases();
      assert.equal(bought.length, 2, 'one more top-up for the second crossing');

      const ledger = (await ok(b, 'GET', `/api/v1/customers/${customer.id}/credit_ledger?currency=USD&limit=100`)).data as Array<{
        amount: string;
        balanceAfter: string;
      }>;
      const sum = ledger.reduce((acc, e) => acc.plus(e.amount), new Decimal(0));
      const balance = (await ok(a, 'GET', `/api/v1/customers/${customer.id}/credit_balance`)).balances[0].balance as string;
      assert.equal(sum.toFixed(2), balance, 'the ledger sums to the balance');
      assert.equal(ledger[0]!.balanceAfter, balance, 'the newest entry carries the balance');
    },
  );

  describe('through a round-robin balancer in front of both nodes (the topology of compose.yaml)', () => {
    /** One request through the balancer, and the node that took it. */
    const viaBalancer = async (method: string, url: string, key: string, body?: unknown) => {
      const res = await call(balancer!.address, method, url, key, body);
      return { ...res, node: res.headers.get('x-served-by') };
    };

    it('requests alternate between the nodes, and the workspace rate limit counts them once', { skip, timeout: 60_000 }, async () => {
      const key = balanced.environments.test.secretKey;
      const nodes: (string | null)[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await viaBalancer('GET', '/api/v1/workspace', key);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(299 - i), `request ${i + 1} (node ${res.node})`);
        nodes.push(res.node);
      }
      assert.deepEqual(
        nodes,
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? nodes[0] : nodes[1])),
      );
      assert.deepEqual([nodes[0], nodes[1]].sort(), ['A', 'B'], 'both nodes answered');
    });

    it('a key revoked through the balancer is refused by both nodes, which had it cached', { skip, timeout: 60_000 }, async (t: TestContext) => {
      const { secretKey, productKey, productKeyId } = balanced.environments.test;
      // Two requests in a row: one on each node, so both cache the key.
      const cached = [
        await viaBalancer('GET', `/api/v1/api-keys/${productKeyId}`, productKey),
        await viaBalancer('GET', `/api/v1/api-keys/${productKeyId}`, productKey),
      ];
      assert.deepEqual(
        cached.map((r) => r.status),
        [200, 200],
      );
      assert.deepEqual(cached.map((r) => r.node).sort(), ['A', 'B']);

      const revoked = await viaBalancer('DELETE', `/api/v1/api-keys/${productKeyId}`, secretKey);
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      // The other node hears of it through Redis; poll pairs of requests (one per node) until both
      // refuse. The bound only stops a broken run (KEY_CACHE_TTL_MS is ten minutes here).
      let pair: Awaited<ReturnType<typeof viaBalancer>>[] = [];
      const ms = await within(30_000, async () => {
        pair = [
          await viaBalancer('GET', `/api/v1/api-keys/${productKeyId}`, productKey),
          await viaBalancer('GET', `/api/v1/api-keys/${productKeyId}`, productKey),
        ];
        return pair.every((r) => r.status === 401);
      });
      assert.notEqual(ms, null, `still accepted: ${pair.map((r) => `${r.node} ${r.status}`).join(', ')}`);
      t.diagnostic(`both nodes refused the revoked key within ${ms} ms of the DELETE`);
      assert.deepEqual(pair.map((r) => r.node).sort(), ['A', 'B']);
      for (const r of pair) assert.equal(r.body.errors[0].message, 'This key has been revoked.');
    });

    it('the live audit stream through the balancer carries changes written through either node', { skip, timeout: 60_000 }, async () => {
      const { secretKey, subscriptionId } = balanced.environments.test;
      // From the start of the log, so nothing depends on when the stream became live.
      const turns = balancer!.served.length;
      const stream = new StreamClient(balancer!.address, '?type=api_key.created&lastEventId=0', secretKey, balanced.workspaceId);
      try {
        const made: { id: string; node: string | null }[] = [];
        // Once the stream has taken its turn at the balancer, two creations in a row land on one node each.
        assert.notEqual(await within(30_000, () => Promise.resolve(balancer!.served.length > turns)), null, 'the stream reached the balancer');
        for (let i = 0; i < 2; i++) {
          const r = await viaBalancer('POST', '/api/v1/api-keys', secretKey, { kind: 'PRODUCT', name: `via balancer ${i}`, subscriptionId });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          made.push({ id: r.body.id as string, node: r.node });
        }
        assert.deepEqual(made.map((m) => m.node).sort(), ['A', 'B'], 'one key created through each node');
        const ids = made.map((m) => m.id);
        const ms = await within(30_000, () => Promise.resolve(ids.every((id) => stream.events.some((e) => e.data.targetId === id))));
        assert.notEqual(ms, null, `the stream got ${stream.events.length} events, not both keys' creation`);
        const seen = stream.events.filter((e) => ids.includes(e.data.targetId as string));
        assert.deepEqual(
          seen.map((e) => e.data.targetId),
          ids,
          'each once, in commit order',
        );
        assert.deepEqual(stream.errors, []);
      } finally {
        stream.close();
      }
    });
  });
});
