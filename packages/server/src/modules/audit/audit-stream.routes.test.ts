import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { StreamClient, until } from '../../../test/helpers/sse-client.js';
import { feedHead } from './audit-event.repository.js';
import { compareCursors } from './audit-cursor.js';

const streamConfig = { auditStreamRetryMs: 100, auditStreamHeartbeatMs: 200, auditStreamPollMs: 50 };

let t: TestApp;
let base: string;
let ws: TenantHandle;
let other: TenantHandle;
let api: Client;
const clients: StreamClient[] = [];
/** Streams this file's clients hold open on the server; connect() waits until the server agrees. */
let expectedOpen = 0;

before(async () => {
  t = await createTestApp({ config: streamConfig });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  ws = await t.seed.workspace();
  other = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(async () => {
  for (const c of clients) c.close();
  await t.close();
});

/** A client on this server, connected once the server has registered it. */
async function connect(query = '', key = ws.test.secretKey, tenantId = ws.workspaceId): Promise<StreamClient> {
  await until(() => t.composition.auditFeed.subscriberCount === expectedOpen, 'earlier streams to settle');
  // A stream without Last-Event-ID starts at the newest settled event. On PostgreSQL an event
  // settles once every transaction older than it has ended (other test files' included), so
  // wait for that: events committed before connecting must not count as new.
  await until(async () => {
    const newest = await t.deps.db.selectFrom('auditEvents').select(['tx', 'seq']).orderBy('tx', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirst();
    return !newest || compareCursors(await feedHead(t.deps.db), { tx: Number(newest.tx), seq: Number(newest.seq) }) >= 0;
  }, 'committed events to settle');
  const c = new StreamClient(base, query, key, tenantId);
  clients.push(c);
  expectedOpen += 1;
  await until(() => t.composition.auditFeed.subscriberCount === expectedOpen, 'the stream to be registered');
  return c;
}

function done(...cs: StreamClient[]): void {
  for (const c of cs) {
    c.close();
    expectedOpen -= 1;
  }
}

const createCustomer = async (name: string, client = api) => {
  const res = await client.post('/api/v1/customers', { name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
};

/**
 * The raw response of a stream request, read until `enough(text)` holds or the server ends it.
 * The bound is generous (10 s): it only stops a broken stream from hanging the test, and is
 * never how long the test expects to wait.
 */
async function rawStream(
  headers: Record<string, string>,
  enough: (text: string) => boolean,
  timeoutMs = 10_000,
): Promise<{ status: number; contentType: string | null; text: string }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  let text = '';
  try {
    const res = await fetch(`${base}/api/v1/events/stream`, { headers, signal: ac.signal });
    try {
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        if (enough(text)) break;
      }
    } catch {
      // aborted at the bound: the assertions on what was read say what is missing
    }
    return { status: res.status, contentType: res.headers.get('content-type'), text };
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

const auth = (key = ws.test.secretKey, tenantId = ws.workspaceId) => ({ authorization: `Bearer ${key}`, 'x-tenant-id': tenantId, accept: 'text/event-stream' });

describe('GET /api/v1/events/stream with an EventSource client', () => {
  it('receives the audit event an API call causes: id, event name and the event as JSON', async () => {
    const c = await connect('?type=customer.*');
    const id = await createCustomer('Streamed');
    await until(() => c.events.length === 1, 'the customer.created event');
    const [e] = c.events;
    assert.match(e!.id, /^\d+(-\d+)?$/);
    assert.equal(e!.data.object, 'audit_event');
    assert.equal(e!.data.eventType, 'customer.created');
    assert.equal(e!.data.targetId, id);
    assert.equal(e!.data.tenantId, ws.workspaceId);
    assert.equal(e!.data.actorType, 'WORKSPACE_KEY');
    assert.equal(e!.data.actorId, ws.test.keyId);
    assert.match(e!.data.eventId, /^evt_/);
    done(c);
  });

  it('cut off, reconnects with Last-Event-ID and receives exactly the events it missed', async () => {
    const c = await connect('?type=customer.*');
    await createCustomer('Before the cut');
    await until(() => c.events.length === 1, 'the first event');
    const lastSeen = c.events[0]!.id;

    c.hold();
    t.composition.auditFeed.endStreams();
    await until(() => c.attempts.length === 2, 'the client to try to reconnect');
    const missed = [await createCustomer('Missed 1'), await createCustomer('Missed 2'), await createCustomer('Missed 3')];
    c.release();
    await until(() => c.events.length === 4, 'the three missed events');
    assert.equal(c.attempts[1]!.lastEventId, lastSeen, 'the reconnection carried the last id received');
    assert.deepEqual(
      c.events.slice(1).map((e) => e.data.targetId),
      missed,
    );

    const live = await createCustomer('After the reconnect');
    await until(() => c.events.length === 5, 'the live event after catching up');
    assert.equal(c.events[4]!.data.targetId, live);
    const ids = c.events.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'no event twice');
    const cursors = ids.map((i) => Number(i.split('-').pop()));
    assert.deepEqual(
      [...cursors].sort((a, b) => a - b),
      cursors,
      'ids increase',
    );
    // Events arrive in order: once a later one has, nothing else came in between (no sleep).
    const sentinel = await createCustomer('Sentinel');
    await until(() => c.events.length >= 6, 'the sentinel event');
    assert.deepEqual(
      c.events.slice(5).map((e) => e.data.targetId),
      [sentinel],
      'nothing more arrived before the sentinel',
    );
    done(c);
  });

  it('resumes from the lastEventId query parameter too, for clients that cannot send headers', async () => {
    const first = await connect('?type=customer.*');
    await createCustomer('R1');
    await until(() => first.events.length === 1, 'R1');
    done(first);
    const r2 = await createCustomer('R2');
    const r3 = await createCustomer('R3');
    const c = await connect(`?type=customer.*&lastEventId=${first.events[0]!.id}`);
    await until(() => c.events.length === 2, 'R2 and R3');
    assert.deepEqual(
      c.events.map((e) => e.data.targetId),
      [r2, r3],
    );
    done(c);
  });

  it('without Last-Event-ID starts with events committed from now on', async () => {
    await createCustomer('Old news');
    const c = await connect('?type=customer.*');
    const fresh = await createCustomer('Fresh');
    const sentinel = await createCustomer('Sentinel');
    // Events arrive in order, so the sentinel's arrival means nothing older is still coming.
    await until(() => c.events.length >= 2, 'the fresh and sentinel events');
    assert.deepEqual(
      c.events.map((e) => e.data.targetId),
      [fresh, sentinel],
    );
    done(c);
  });

  it("filters like the search: type prefix, severity and above, full text; one tenant's events only", async () => {
    const byType = await connect('?type=api_key.*');
    const bySeverity = await connect('?severity=WARN');
    const byText = await connect('?q=Zanzibar');
    const otherTenant = await connect('', other.test.secretKey, other.workspaceId);
    const live = await connect('', ws.live.secretKey, ws.workspaceId);

    await createCustomer('Zanzibar Trading');
    const key = await api.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'stream key', scopes: ['ingest'] });
    assert.equal(key.status, 200);
    await api.post(`/api/v1/api-keys/${key.body.id}/rotate`, {});
    // A failed authentication in this workspace: a revoked key is still this tenant's actor.
    await api.delete(`/api/v1/api-keys/${key.body.id}`);
    await t.seed.client(key.body.fullToken).get('/api/v1/customers');
    const marker = await createCustomer('Marker', t.seed.client(other.test.secretKey));

    await until(
      () => byType.events.length >= 3 && byText.events.length >= 1 && bySeverity.events.length >= 1 && otherTenant.events.length >= 1,
      'the filtered events',
    );
    assert.deepEqual(byType.eventTypes, ['api_key.created', 'api_key.rotated', 'api_key.revoked']);
    assert.deepEqual(byText.eventTypes, ['customer.created']);
    assert.equal(byText.events[0]!.data.payload.name, 'Zanzibar Trading');
    assert.ok(bySeverity.events.every((e) => ['WARN', 'ERROR', 'CRITICAL'].includes(e.data.severity)));
    assert.ok(bySeverity.eventTypes.includes('auth.failed'));
    assert.deepEqual(
      otherTenant.events.map((e) => e.data.targetId),
      [marker],
      "the other workspace sees its own event and none of this one's",
    );
    assert.equal(live.events.length, 0, 'the live environment sees no test events');
    done(byType, bySeverity, byText, otherTenant, live);
  });
});

describe('GET /api/v1/events/stream: the protocol', () => {
  it('opens with text/event-stream and a retry field, then keep-alive comments', async () => {
    const r = await rawStream(auth(), (text) => text.includes(': keep-alive\n\n'));
    assert.equal(r.status, 200);
    assert.match(r.contentType ?? '', /^text\/event-stream/);
    assert.ok(r.text.startsWith('retry: 100\n\n'), r.text);
    assert.match(r.text, /\n: keep-alive\n\n/);
  });

  const refused: Array<[string, Record<string, string>, string, number, string]> = [
    ['no key', { 'x-tenant-id': 'ws_x' }, '', 401, 'UNAUTHENTICATED'],
    ['no X-Tenant-Id', { authorization: 'Bearer KEY' }, '', 400, 'header.x-tenant-id'],
    ["another workspace's id", { authorization: 'Bearer KEY', 'x-tenant-id': 'OTHER' }, '', 404, 'header.x-tenant-id'],
    ['a bad filter', { authorization: 'Bearer KEY', 'x-tenant-id': 'WS' }, '?severity=LOUD', 400, 'query.severity'],
    ['a bad Last-Event-ID', { authorization: 'Bearer KEY', 'x-tenant-id': 'WS', 'last-event-id': 'evt_nope' }, '', 400, 'header.last-event-id'],
    ['a bad lastEventId', { authorization: 'Bearer KEY', 'x-tenant-id': 'WS' }, '?lastEventId=x', 400, 'query.lastEventId'],
    ['an Accept without event streams', { authorization: 'Bearer KEY', 'x-tenant-id': 'WS', accept: 'application/json' }, '', 406, 'header.accept'],
  ];
  for (const [name, headers, query, status, named] of refused) {
    it(`refuses ${name} with ${status} before any stream opens`, async () => {
      const h: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers))
        h[k] = v.replace('KEY', ws.test.secretKey).replace('OTHER', other.workspaceId).replace('WS', ws.workspaceId);
      const res = await fetch(`${base}/api/v1/events/stream${query}`, { headers: h });
      assert.equal(res.status, status);
      const body = (await res.json()) as { success: boolean; errors: Array<{ code: string; field?: string }> };
      assert.equal(body.success, false);
      assert.ok(
        body.errors.some((e) => e.code === named || e.field === named),
        JSON.stringify(body),
      );
    });
  }

  it('needs the events:read scope', async () => {
    const key = await api.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'no events', scopes: ['ingest'] });
    assert.equal(key.status, 200);
    const res = await fetch(`${base}/api/v1/events/stream`, { headers: auth(key.body.fullToken) });
    assert.equal(res.status, 403);
  });
});

/**
 * A server of its own with a limit lowered, one workspace on it, and a stream request that
 * returns its response (the test ends what it leaves open).
 */
async function withLimitedServer(
  config: Partial<TestApp['deps']['config']>,
  run: (s: { t: TestApp; stream: (signal?: AbortSignal) => Promise<Response> }) => Promise<void>,
): Promise<void> {
  const own = await createTestApp({ config: { ...streamConfig, ...config } });
  try {
    const url = await own.app.listen({ host: '127.0.0.1', port: 0 });
    const w = await own.seed.workspace();
    const headers = auth(w.test.secretKey, w.workspaceId);
    await run({ t: own, stream: (signal = AbortSignal.timeout(5000)) => fetch(`${url}/api/v1/events/stream`, { headers, signal }) });
  } finally {
    await own.close();
  }
}

describe('GET /api/v1/events/stream: limits answered before the stream opens', () => {
  it('over the rate limit: 429 RATE_LIMITED with Retry-After and the reset headers, no stream', async () => {
    await withLimitedServer({ rateLimitPerMinute: 2 }, async ({ stream }) => {
      // Two allowed streams stay open; the third is over the limit.
      const open = [new AbortController(), new AbortController()];
      for (const ac of open) assert.equal((await stream(ac.signal)).headers.get('ratelimit-policy'), '"tenant";q=2;w=60');
      const res = await stream();
      const body = (await res.json()) as { success: boolean; errors: Array<{ code: string; message: string }> };
      for (const ac of open) ac.abort();
      assert.equal(res.status, 429);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(res.headers.get('retry-after'), '60');
      assert.equal(res.headers.get('x-ratelimit-reset'), '60');
      assert.equal(res.headers.get('ratelimit'), '"tenant";r=0;t=60');
      assert.equal(body.success, false);
      assert.equal(body.errors[0]?.code, 'RATE_LIMITED');
      assert.match(body.errors[0]?.message ?? '', /at most 2 requests per minute per tenant/);
    });
  });

  it('past the per-workspace cap: 429 TOO_MANY_STREAMS with Retry-After, and room again once one closes', async () => {
    await withLimitedServer({ auditStreamMaxPerTenant: 1 }, async ({ t: capped, stream }) => {
      const first = new AbortController();
      await stream(first.signal);
      await until(() => capped.composition.auditFeed.subscriberCount === 1, 'the first stream');
      const second = await stream();
      const body = (await second.json()) as { errors: Array<{ code: string }> };
      assert.equal(second.status, 429);
      assert.equal(second.headers.get('retry-after'), '1');
      assert.equal(body.errors[0]?.code, 'TOO_MANY_STREAMS');
      first.abort();
      await until(() => capped.composition.auditFeed.subscriberCount === 0, 'the first stream to end');
      const third = new AbortController();
      assert.equal((await stream(third.signal)).status, 200);
      await until(() => capped.composition.auditFeed.subscriberCount === 1, 'the third stream to be admitted');
      third.abort();
    });
  });
});
