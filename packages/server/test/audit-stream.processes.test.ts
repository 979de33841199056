/**
 * The live audit stream across processes, with a real EventSource client:
 * - a client reconnects to a restarted server with its Last-Event-ID and receives exactly what
 *   it missed (on SQLite and on PostgreSQL);
 * - with two `tollgate serve` processes on one PostgreSQL and Redis, an event committed on one
 *   node reaches subscribers on both. The nodes' fallback poll is set to ten minutes, so only the
 *   Redis signal can deliver within the test.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { backend } from './helpers/test-app.js';
import { Scratch, runCli } from './helpers/processes.js';
import { StreamClient, until } from './helpers/sse-client.js';

interface Demo {
  workspaceId: string;
  environments: { test: { secretKey: string; productKeyId: string } };
}

async function demo(env: Record<string, string>): Promise<Demo> {
  const r = await runCli(['demo', '--json'], env);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Demo;
}

const scratch = new Scratch('stream');
after(() => scratch.cleanup());

let stored: Promise<{ env: Record<string, string>; d: Demo }> | null = null;
/**
 * The storage and the demo workspace both tests use, made once (a `demo` is a process of its own:
 * seconds on a loaded machine). They do not meet in it: the first streams customer events, the
 * second API key events, and each starts servers of its own. On PostgreSQL, a schema that comes
 * migrated (Scratch.schema).
 */
function storage(): Promise<{ env: Record<string, string>; d: Demo }> {
  stored ??= (async () => {
    const dir = scratch.tempDir();
    const env: Record<string, string> = { DATA_DIR: path.join(dir, 'data'), SEED_DEMO: 'false', AUDIT_STREAM_RETRY_MS: '100' };
    if (backend === 'postgres') env.DATABASE_URL = (await scratch.schema({ migrated: true })).url;
    return { env, d: await demo(env) };
  })();
  return stored;
}

const post = async (base: string, key: string, url: string, body: unknown) => {
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, any>;
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
};

describe('the audit stream across a server restart', () => {
  it(`resumes with Last-Event-ID on the restarted server, nothing lost or repeated (${backend})`, { timeout: 90_000 }, async () => {
    const { env, d } = await storage();
    const key = d.environments.test.secretKey;
    const first = await scratch.serve(env, 'before restart');
    const before = (await post(first.address, key, '/api/v1/customers', { name: 'Restartable before' })).id as string;

    // lastEventId=0: from the beginning, so the client provably holds the stream before the restart.
    // (The demo's own customer is left out by the text filter.)
    const client = new StreamClient(first.address, '?type=customer.*&q=restartable&lastEventId=0', key, d.workspaceId);
    try {
      await until(() => client.events.length === 1, 'the event from before the restart', 15_000);
      assert.equal(client.events[0]!.data.targetId, before);

      client.hold();
      await first.stop();
      await until(() => client.attempts.length >= 2, 'the client to try to reconnect');
      const second = await scratch.serve(env, 'after restart');
      client.base = second.address;
      const missed = [
        (await post(second.address, key, '/api/v1/customers', { name: 'Restartable missed 1' })).id,
        (await post(second.address, key, '/api/v1/customers', { name: 'Restartable missed 2' })).id,
      ];
      client.release();

      await until(() => client.events.length === 3, 'the events committed while the client was away', 15_000);
      assert.equal(client.attempts.at(-1)!.lastEventId, client.events[0]!.id, 'the reconnection carried the last id received');
      assert.deepEqual(
        client.events.map((e) => e.data.targetId),
        [before, ...missed],
      );
      const live = (await post(second.address, key, '/api/v1/customers', { name: 'Restartable live' })).id;
      await until(() => client.events.length === 4, 'a live event after the catch-up');
      assert.equal(client.events[3]!.data.targetId, live);
      assert.equal(new Set(client.events.map((e) => e.id)).size, 4, 'no event twice');
    } finally {
      client.close();
    }
  });
});

const skipNodes: string | false =
  backend !== 'postgres'
    ? 'needs TEST_DATABASE_URL and REDIS_URL (the PostgreSQL pass)'
    : !process.env.REDIS_URL
      ? 'needs REDIS_URL (this PostgreSQL pass runs without Redis)'
      : false;

describe('the audit stream on two server processes (PostgreSQL and Redis)', () => {
  it('an event committed on one node reaches subscribers on both, through the Redis signal', { skip: skipNodes, timeout: 90_000 }, async () => {
    const shared = await storage();
    const env = { ...shared.env, REDIS_URL: process.env.REDIS_URL as string, AUDIT_STREAM_POLL_MS: '600000' };
    const d = shared.d;
    const key = d.environments.test.secretKey;
    const [a, b] = await Promise.all([scratch.serve(env, 'A'), scratch.serve(env, 'B')]);
    const onA = new StreamClient(a.address, '?type=api_key.*', key, d.workspaceId);
    const onB = new StreamClient(b.address, '?type=api_key.*', key, d.workspaceId);
    // Each rotation retires the key and answers with its successor, which the next one rotates.
    let keyId = d.environments.test.productKeyId;
    const rotate = async (base: string) => {
      const retired = keyId;
      const r = await post(base, key, `/api/v1/api-keys/${keyId}/rotate`, {});
      keyId = r.id as string;
      return { retired, successor: keyId };
    };
    try {
      // Each client is live once it has seen an event; rotating through the other node proves
      // the signal crosses. Repeat until both are live (a stream starts with events from now on).
      // The bound (150 tries, 30 s at least) only stops a broken run; a loaded machine needs more tries.
      for (let i = 0; onA.events.length === 0 || onB.events.length === 0; i++) {
        assert.ok(i < 150, 'both streams became live');
        await rotate(i % 2 === 0 ? a.address : b.address);
        await new Promise((r) => setTimeout(r, 200));
      }
      const rotated = await rotate(a.address);
      // This rotation's own event, found by its key: a rotation of the loop above may still be on
      // its way to one of the streams, so "one more event" could be that one.
      const ofRotation = (c: StreamClient) => c.events.find((e) => e.data.targetId === rotated.retired);
      // The fallback poll is ten minutes: only the Redis signal delivers within this (generous) bound.
      await until(() => Boolean(ofRotation(onA) && ofRotation(onB)), 'the rotation on both nodes', 30_000);
      for (const c of [onA, onB]) {
        const e = ofRotation(c)!.data;
        assert.equal(e.eventType, 'api_key.rotated');
        assert.equal(e.targetId, rotated.retired);
        assert.equal(e.payload.newKeyId, rotated.successor);
      }
      assert.equal(ofRotation(onA)!.id, ofRotation(onB)!.id, 'the same cursor on both nodes');
    } finally {
      onA.close();
      onB.close();
    }
  });
});
