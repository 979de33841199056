// One delivery attempt against real servers on 127.0.0.1: what came back, what the guard refuses
// before any connection, and the socket lookup the guard lives in (a table of resolver answers).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupOptions } from 'node:dns';
import { WebhookReceiver, answers } from '../../../test/helpers/webhook-receiver.js';
import type { HostResolver } from './resolve-destination.js';
import { createAgents, guardedLookup, RESPONSE_KEEP_BYTES, sendAttempt, USER_AGENT, type OutboundRequest } from './send-attempt.js';

const dns: Record<string, string[]> = {
  'receiver.test': ['127.0.0.1'],
  'public.test': ['93.184.216.34'],
  'public6.test': ['2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.test': ['93.184.216.34', '10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'dual.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'empty.test': [],
};
const resolver: HostResolver = async (name) => {
  const found = dns[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};

function lookup(name: string, guard: boolean, options: LookupOptions = {}): Promise<{ err: string | null; addresses: unknown }> {
  return new Promise((resolve) => {
    guardedLookup(resolver, guard)(name, options, (err: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
      resolve({
        err: err ? String(err.code) : null,
        addresses: err ? null : options.all ? address : { address, family },
      }),
    );
  });
}

describe('outbound-webhooks.guardedLookup', () => {
  const table: Array<{ name: string; guard: boolean; options?: LookupOptions; err: string | null; addresses?: unknown }> = [
    { name: 'public.test', guard: true, err: null, addresses: { address: '93.184.216.34', family: 4 } },
    { name: 'public6.test', guard: true, err: null, addresses: { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 } },
    {
      name: 'dual.test',
      guard: true,
      options: { all: true },
      err: null,
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    },
    { name: 'dual.test', guard: true, options: { family: 6 }, err: null, addresses: { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 } },
    { name: 'receiver.test', guard: true, err: 'URL_NOT_ALLOWED' },
    { name: 'metadata.test', guard: true, err: 'URL_NOT_ALLOWED' },
    { name: 'mixed.test', guard: true, err: 'URL_NOT_ALLOWED' },
    { name: 'localhost', guard: true, err: 'URL_NOT_ALLOWED' },
    { name: 'api.localhost', guard: true, err: 'URL_NOT_ALLOWED' },
    { name: 'receiver.test', guard: false, err: null, addresses: { address: '127.0.0.1', family: 4 } },
    { name: 'mixed.test', guard: false, options: { all: true }, err: null, addresses: dns['mixed.test']!.map((address) => ({ address, family: 4 })) },
    { name: 'unknown.test', guard: true, err: 'ENOTFOUND' },
    { name: 'empty.test', guard: false, err: 'ENOTFOUND' },
    { name: 'public.test', guard: false, options: { family: 6 }, err: 'ENOTFOUND' },
  ];
  for (const c of table) {
    it(`${c.name}${c.guard ? ' (guarded)' : ''}${c.options ? ` ${JSON.stringify(c.options)}` : ''}: ${c.err ?? 'resolves'}`, async () => {
      const r = await lookup(c.name, c.guard, c.options);
      assert.equal(r.err, c.err);
      if (c.err === null) assert.deepEqual(r.addresses, c.addresses);
    });
  }
});

describe('outbound-webhooks.sendAttempt', () => {
  let rx: WebhookReceiver;
  const agents = createAgents();
  before(async () => {
    rx = await WebhookReceiver.start((r) => {
      if (r.path === '/big') return { status: 200, body: 'é'.repeat(RESPONSE_KEEP_BYTES) };
      if (r.path === '/moved') return { status: 302, headers: { location: '/elsewhere' } };
      if (r.path === '/busy') return { status: 503, headers: { 'retry-after': '120' }, body: 'busy' };
      if (r.path === '/hang') return 'hang';
      return answers.ok();
    });
  });
  after(async () => {
    agents.http.destroy();
    agents.https.destroy();
    await rx.close();
  });
  const send = (url: string, extra: Partial<OutboundRequest> = {}) =>
    sendAttempt({
      url,
      headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
      body: '{"type":"webhook.test"}',
      timeoutMs: 5_000,
      guard: false,
      allowHttp: true,
      resolver,
      agents,
      signal: new AbortController().signal,
      ...extra,
    });

  it('200: the status and body; the request carried the body, our headers, JSON and a user-agent naming Tollgate', async () => {
    const out = await send(rx.url('/ok'));
    assert.equal(out.abandoned, false);
    assert.deepEqual(!out.abandoned && out.result, { kind: 'response', status: 200, body: 'ok', truncated: false, retryAfter: undefined, location: undefined });
    const got = rx.at('/ok')[0]!;
    assert.equal(got.method, 'POST');
    assert.equal(got.body, '{"type":"webhook.test"}');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], USER_AGENT);
    assert.match(USER_AGENT, /Tollgate/);
    assert.equal(got.headers['webhook-id'], 'msg_1');
  });

  it(`a long body: its first ${RESPONSE_KEEP_BYTES} bytes, truncated`, async () => {
    const out = await send(rx.url('/big'));
    assert.ok(!out.abandoned && out.result.kind === 'response');
    assert.equal(out.result.truncated, true);
    assert.equal(Buffer.byteLength(out.result.body), RESPONSE_KEEP_BYTES);
  });

  it('302: the answer with its Location; the redirect is not followed', async () => {
    const out = await send(rx.url('/moved'));
    assert.ok(!out.abandoned && out.result.kind === 'response');
    assert.equal(out.result.status, 302);
    assert.equal(out.result.location, '/elsewhere');
    assert.equal(rx.at('/elsewhere').length, 0);
  });

  it('503: Retry-After is passed on', async () => {
    const out = await send(rx.url('/busy'));
    assert.ok(!out.abandoned && out.result.kind === 'response');
    assert.equal(out.result.retryAfter, '120');
  });

  it('no answer within the timeout: timeout', async () => {
    const out = await send(rx.url('/hang'), { timeoutMs: 200 });
    assert.ok(!out.abandoned);
    assert.equal(out.result.kind === 'error' && out.result.code, 'timeout');
  });

  it('aborted (the sender closing): abandoned', async () => {
    const controller = new AbortController();
    const arrived = rx.received.length;
    const pending = send(rx.url('/hang'), { signal: controller.signal });
    await rx.waitForCount(arrived + 1);
    controller.abort();
    assert.equal((await pending).abandoned, true);
  });

  it('nothing listening: connection_refused', async () => {
    const closed = await WebhookReceiver.start();
    const url = closed.url('/x');
    await closed.close();
    const out = await send(url);
    assert.equal(!out.abandoned && out.result.kind === 'error' && out.result.code, 'connection_refused');
  });

  it('guarded: a literal loopback address is refused before any connection (url_not_allowed)', async () => {
    const before = rx.received.length;
    const out = await send(rx.url('/ok'), { guard: true });
    assert.equal(!out.abandoned && out.result.kind === 'error' && out.result.code, 'url_not_allowed');
    assert.equal(rx.received.length, before);
  });

  it('guarded: a name resolving to 127.0.0.1 is refused in the socket lookup (url_not_allowed); unguarded it is sent', async () => {
    const before = rx.received.length;
    const guarded = await send(`http://receiver.test:${rx.port}/named`, { guard: true });
    assert.equal(!guarded.abandoned && guarded.result.kind === 'error' && guarded.result.code, 'url_not_allowed');
    assert.equal(rx.received.length, before);
    const open = await send(`http://receiver.test:${rx.port}/named`);
    assert.equal(!open.abandoned && open.result.kind === 'response' && open.result.status, 200);
    assert.equal(rx.at('/named').length, 1);
  });

  it('http where only https is allowed now: url_not_allowed', async () => {
    const out = await send(rx.url('/ok'), { allowHttp: false });
    assert.equal(!out.abandoned && out.result.kind === 'error' && out.result.code, 'url_not_allowed');
  });

  it('a name that does not resolve: dns', async () => {
    const out = await send('http://unknown.test/x');
    assert.equal(!out.abandoned && out.result.kind === 'error' && out.result.code, 'dns');
  });
});
