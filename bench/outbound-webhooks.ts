// Outbound webhooks (issue 19): deliveries per second from the sender to a local receiver, against
// the raw rate of the same POSTs from this process to the same receiver (the ceiling, same run),
// and the delay from an event's commit to its delivery at 1,000 events/s.
// Run: npm run bench:outbound-webhooks   (1-6 min: the backlog takes what the sender takes; 127.0.0.1 only; stops by itself)
//      BENCH_MESSAGES (throughput phase, default 20,000), BENCH_ENDPOINTS (1-15, default 8),
//      BENCH_ENDPOINT_CONCURRENCY (each endpoint's maxConcurrency, default 16), BENCH_SECONDS
//      (latency phase, default 15), BENCH_RATE (events/s in it, default 1,000), BENCH_REDIS_URL,
//      BENCH_HARD_LIMIT_SECONDS (default 600), BENCH_DATABASE_URL=postgres://… (a scratch
//      database on that server instead of the SQLite default, dropped at the end);
//      BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the server.
//
// The phases, on one bench-server data directory (SQLite file or scratch PostgreSQL database):
// 1. The server starts with the sender off (OUTBOUND_WEBHOOK_SENDER=false; http and private
//    addresses allowed, as the development profile does), and BENCH_ENDPOINTS endpoints are
//    created through the API, each subscribed to one business type and pointing at the receiver.
// 2. Fill, with the server stopped: BENCH_MESSAGES events written into the outbox by this process
//    with the server's own emitWebhookEvents (the function every business transaction calls) on
//    the same database, 500 per transaction. Honest: the rows are the ones a business change
//    writes (one message, one delivery to the endpoint subscribed to its type, pending, due now),
//    and the bodies are the full examples of the catalog's types (webhookExample: 370 to 1,200
//    bytes, the resource as its GET shows it), with ordering keys (about 4 messages per
//    subscription; api_key.* unordered), which the API cannot produce today: the only route that
//    writes a message is the test route, one small webhook.test (no ordering key) per request.
//    Fast: 20,000 events take a few seconds instead of 20,000 API calls.
// 3. Throughput: the server restarts on the same data with the sender on (the default) and sends
//    the backlog. Measured at the receiver: from the first arrival to the last, and to the moment
//    the API shows no delivery pending any more (every result written: the figure judged).
// 4. Ceiling: the same requests (the bodies and headers the receiver got) POSTed by this process
//    to the same receiver paths over keep-alive node:http, with the same total concurrency as
//    the sender had (the endpoints' maxConcurrency summed, at most OUTBOUND_WEBHOOK_MAX_IN_FLIGHT).
// 5. Latency: this process acts as another node: every 10 ms it writes the events due at
//    BENCH_RATE/s (full catalog examples, one ordering key each) with emitWebhookEvents in one
//    transaction on the same database, and announces the commit on the bus (Redis pub/sub, the
//    server started with REDIS_URL), as a node's sender does; 2 s of warm-up and BENCH_SECONDS
//    measured. The delay is the arrival at the receiver (Date.now()) minus the payload's
//    `timestamp`, this process's clock read inside the transaction before its commit (so the
//    commit is in the delay), on the same machine. Why not through the API: no route writes
//    1,000 events/s on one node (each business change is a durable transaction with an audit
//    event; the test route, measured so until 2026-11-27, was accepted at 114 to 300/s and its
//    flood starved the sender); at that rate the events come from several nodes, whose commits
//    reach the sender exactly so. Without Redis (BENCH_REDIS_URL, default
//    redis://127.0.0.1:6379) the phase is not run, and the output says why.
// Checks (exit 1 if any fails): every message reached the receiver exactly once in each phase,
// nothing else arrived, every signature of the sender's phases verifies with the
// `standardwebhooks` package, and the database holds every delivery succeeded after one
// attempt, one attempt logged each (a failed attempt is listed with its error).
//
// The receiver runs in a worker thread of this process: it answers 204 at once, then counts the
// webhook-id and verifies the signature with standardwebhooks (on arrival: the package refuses
// a timestamp over 5 minutes old; in the ceiling phase too, so it does the same work in every
// phase). On the main thread it would share one event loop with the ceiling's client (the
// ceiling would measure one thread doing both ends, the sender phase only the receiving end)
// and with the latency phase's open loop (arrival times would wait for the load generator's
// turns). Its own thread gives it the same resources in every phase.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, type Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import type { createIdGenerator } from '../packages/server/src/lib/ids.js';
import type { WebhookEventInput } from '../packages/server/src/modules/outbound-webhooks/emit-webhook-events.js';
import type { CatalogType } from '../packages/server/src/modules/outbound-webhooks/event-catalog.js';
import type { WebhookEventData } from '../packages/server/src/modules/outbound-webhooks/webhook-payload.js';
import { OUTBOX_CHANNEL } from '../packages/server/src/modules/outbound-webhooks/webhook-sender.js';
import type { Db } from '../packages/server/src/db/database.js';
import { cpuSecondsOf, percentile, scratchPostgres, startBenchServer, tsWorker, type BenchServer } from './lib.js';

/**
 * The server code that writes the outbox, loaded from the checkout whose server runs: with
 * BENCH_SERVER_ROOT (bench/compare.ts starting a git ref's server) that checkout's, so the rows
 * written are the ones that server's business transactions write and its migrations expect.
 */
async function outboxWriters() {
  const root = process.env.BENCH_SERVER_ROOT || fileURLToPath(new URL('..', import.meta.url));
  const src = (file: string) => pathToFileURL(path.join(root, 'packages/server/src', file)).href;
  const [database, tx, clock, ids, emit, docs] = await Promise.all([
    import(src('db/database.ts')) as Promise<typeof import('../packages/server/src/db/database.js')>,
    import(src('db/transaction.ts')) as Promise<typeof import('../packages/server/src/db/transaction.js')>,
    import(src('lib/clock.ts')) as Promise<typeof import('../packages/server/src/lib/clock.js')>,
    import(src('lib/ids.ts')) as Promise<typeof import('../packages/server/src/lib/ids.js')>,
    import(src('modules/outbound-webhooks/emit-webhook-events.ts')) as Promise<
      typeof import('../packages/server/src/modules/outbound-webhooks/emit-webhook-events.js')
    >,
    import(src('modules/outbound-webhooks/webhook-docs.ts')) as Promise<typeof import('../packages/server/src/modules/outbound-webhooks/webhook-docs.js')>,
  ]);
  return {
    openDatabase: database.openDatabase,
    transaction: tx.transaction,
    systemClock: clock.systemClock,
    createIdGenerator: ids.createIdGenerator,
    emitWebhookEvents: emit.emitWebhookEvents,
    webhookExample: docs.webhookExample,
  };
}
type OutboxWriters = Awaited<ReturnType<typeof outboxWriters>>;

/** One type per endpoint, a mix of sizes and categories. */
const TYPES: CatalogType[] = [
  'subscription.upgraded',
  'invoice.finalized',
  'subscription.renewed',
  'invoice.paid',
  'usage.limit_alert',
  'api_key.rotated',
  'subscription.cancelled',
  'credit_note.created',
  'subscription.created',
  'invoice.created',
  'subscription.downgraded',
  'invoice.voided',
  'api_key.revoked',
  'subscription.change_scheduled',
  'api_key.grace_used',
];
const DEFAULT_MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 8);
const ENDPOINT_CONCURRENCY = Number(process.env.BENCH_ENDPOINT_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const WARMUP_SECONDS = 2;
const HARD_LIMIT_MS = Number(process.env.BENCH_HARD_LIMIT_SECONDS ?? 600) * 1000;
/** The sender's node-wide cap (config.ts default): the ceiling's concurrency is capped alike. */
const MAX_IN_FLIGHT = Number(process.env.OUTBOUND_WEBHOOK_MAX_IN_FLIGHT ?? 512);
const EMIT_BATCH = 500;
/** The latency phase's source commits this often (RATE / 100 events a commit at 10 ms). */
const EMIT_TICK_MS = 10;
/** The Redis the server and this process share in the latency phase (the bus between nodes). */
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The server's bus channels are namespaced (compose.ts's default Redis prefix). */
const BUS_PREFIX = 'tollgate:';
const TARGET_RATE = 5_000;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 250;
/** How long the sender gets to deliver the backlog, and the latency phase's messages after its load. */
const DELIVER_TIMEOUT_MS = 300_000;
const DRAIN_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// The receiver (a worker thread).

type Phase = 'idle' | 'sender' | 'ceiling' | 'latency';

/** One request as received: the endpoint path, the headers a Standard Webhooks receiver reads, the body. */
interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  userAgent: string;
  body: string;
}

type ToReceiver =
  | { cmd: 'phase'; phase: Phase }
  | { cmd: 'stats' }
  | { cmd: 'collect'; phase: Phase; requests: boolean }
  | { cmd: 'secrets'; secrets: Record<string, string> }
  | { cmd: 'close' };

interface PhaseStats {
  type: 'stats';
  count: number;
}

interface PhaseResult {
  type: 'collected';
  /** webhook-id → requests received with it. */
  counts: Array<[string, number]>;
  /** performance.now() of this thread at the first and last arrival; Date.now() at the first. */
  first: number;
  last: number;
  firstWall: number;
  /** Per arrival: Date.now() at arrival, and the payload's timestamp (ms). */
  arrivedAt: Float64Array;
  emittedAt: Float64Array;
  requests: Received[];
  /** Requests that were not a POST to an endpoint path, or lacked the webhook headers. */
  malformed: number;
  /** Signatures checked with standardwebhooks on arrival. */
  verified: number;
  unverified: number;
  failures: string[];
}

type FromReceiver = { type: 'listening'; port: number } | PhaseStats | PhaseResult | { type: 'closed' };

function runReceiver(): void {
  const port = parentPort!;
  interface Log {
    counts: Map<string, number>;
    first: number;
    last: number;
    firstWall: number;
    arrivedAt: number[];
    emittedAt: number[];
    requests: Received[];
    malformed: number;
    verified: number;
    unverified: number;
    failures: string[];
  }
  const hooks = new Map<string, Webhook>();
  const logs = new Map<Phase, Log>();
  const logOf = (p: Phase) => {
    let l = logs.get(p);
    if (!l)
      logs.set(
        p,
        (l = {
          counts: new Map(),
          first: 0,
          last: 0,
          firstWall: 0,
          arrivedAt: [],
          emittedAt: [],
          requests: [],
          malformed: 0,
          verified: 0,
          unverified: 0,
          failures: [],
        }),
      );
    return l;
  };
  let phase: Phase = 'idle';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      const wall = Date.now();
      res.writeHead(204).end();
      const log = logOf(phase);
      const h = req.headers;
      const id = h['webhook-id'];
      if (req.method !== 'POST' || !req.url?.startsWith('/ep/') || typeof id !== 'string') {
        log.malformed += 1;
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      if (log.counts.size === 0) {
        log.first = now;
        log.firstWall = wall;
      }
      log.last = now;
      log.counts.set(id, (log.counts.get(id) ?? 0) + 1);
      // The body starts {"type":"…","timestamp":"…": no parse needed.
      const at = body.indexOf('"timestamp":"');
      log.arrivedAt.push(wall);
      log.emittedAt.push(at < 0 ? NaN : Date.parse(body.slice(at + 13, body.indexOf('"', at + 13))));
      const r: Received = {
        path: req.url,
        id,
        timestamp: String(h['webhook-timestamp'] ?? ''),
        signature: String(h['webhook-signature'] ?? ''),
        userAgent: String(h['user-agent'] ?? ''),
        body,
      };
      log.requests.push(r);
      // Verified as a seller's receiver would, after answering (standardwebhooks refuses a
      // timestamp over 5 minutes old, so not at the end of a long run).
      try {
        const hook = hooks.get(r.path);
        if (!hook) throw new Error('no secret for this endpoint');
        hook.verify(body, { 'webhook-id': id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
        log.verified += 1;
      } catch (err) {
        log.unverified += 1;
        if (log.failures.length < 5) log.failures.push(`${r.path} ${id}: ${(err as Error).message}`);
      }
    });
  });
  server.listen(0, '127.0.0.1', () => port.postMessage({ type: 'listening', port: (server.address() as { port: number }).port } satisfies FromReceiver));

  port.on('message', (m: ToReceiver) => {
    const reply = (r: FromReceiver, transfer: ArrayBuffer[] = []) => port.postMessage(r, transfer);
    if (m.cmd === 'phase') phase = m.phase;
    else if (m.cmd === 'stats') reply({ type: 'stats', count: logOf(phase).arrivedAt.length });
    else if (m.cmd === 'collect') {
      const l = logOf(m.phase);
      const arrivedAt = Float64Array.from(l.arrivedAt);
      const emittedAt = Float64Array.from(l.emittedAt);
      reply(
        {
          type: 'collected',
          counts: [...l.counts],
          first: l.first,
          last: l.last,
          firstWall: l.firstWall,
          arrivedAt,
          emittedAt,
          requests: m.requests ? l.requests : [],
          malformed: l.malformed,
          verified: l.verified,
          unverified: l.unverified,
          failures: l.failures,
        },
        [arrivedAt.buffer, emittedAt.buffer],
      );
    } else if (m.cmd === 'secrets') {
      for (const [path, secret] of Object.entries(m.secrets)) hooks.set(path, new Webhook(secret));
    } else if (m.cmd === 'close') {
      server.closeAllConnections();
      server.close(() => {
        reply({ type: 'closed' });
        port.close();
      });
    }
  });
}

class Receiver {
  private readonly worker: Worker;
  private waiting: Array<{ type: string; resolve: (m: FromReceiver) => void; reject: (err: Error) => void }> = [];
  private failed: Error | null = null;
  readonly port: Promise<number>;
  constructor() {
    this.worker = tsWorker(import.meta.url, { role: 'receiver' });
    this.port = this.next('listening').then((m) => m.port);
    this.worker.on('message', (m: FromReceiver) => {
      const i = this.waiting.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
    const fail = (err: Error) => {
      this.failed ??= err;
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`receiver thread exited with code ${code}`)));
  }
  private next<T extends FromReceiver['type']>(type: T): Promise<Extract<FromReceiver, { type: T }>> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      this.waiting.push({ type, resolve: resolve as (m: FromReceiver) => void, reject });
    });
  }
  private ask<T extends FromReceiver['type']>(msg: ToReceiver, type: T): Promise<Extract<FromReceiver, { type: T }>> {
    const answer = this.next(type);
    this.worker.postMessage(msg);
    return answer;
  }
  phase(phase: Phase) {
    this.worker.postMessage({ cmd: 'phase', phase } satisfies ToReceiver);
  }
  async count(): Promise<number> {
    return (await this.ask({ cmd: 'stats' }, 'stats')).count;
  }
  collect(phase: Phase, requests = false) {
    return this.ask({ cmd: 'collect', phase, requests }, 'collected');
  }
  /** The signing secret of each endpoint path: every request is verified from then on. */
  secrets(secrets: Record<string, string>) {
    this.worker.postMessage({ cmd: 'secrets', secrets } satisfies ToReceiver);
  }
  async close() {
    if (!this.failed) await Promise.race([this.ask({ cmd: 'close' }, 'closed').catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    await this.worker.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// The measuring side.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Every webhook-id expected arrived once, nothing else arrived: the problems found, if any. */
function exactlyOnce(what: string, expected: ReadonlySet<string>, got: PhaseResult): string[] {
  let missing = expected.size;
  let duplicates = 0;
  let unexpected = 0;
  for (const [id, n] of got.counts) {
    if (expected.has(id)) missing -= 1;
    else unexpected += 1;
    duplicates += n - 1;
  }
  const out: string[] = [];
  if (missing > 0) out.push(`${what}: ${fmt(missing)} of ${fmt(expected.size)} messages never arrived`);
  if (duplicates > 0) out.push(`${what}: ${fmt(duplicates)} duplicate arrivals`);
  if (unexpected > 0) out.push(`${what}: ${fmt(unexpected)} unexpected webhook-ids`);
  if (got.malformed > 0) out.push(`${what}: ${fmt(got.malformed)} malformed requests`);
  return out;
}

/** POSTs every request once, `concurrency` at a time, over keep-alive connections (the sender's agent options). */
async function postRaw(port: number, requests: readonly Received[], concurrency: number): Promise<{ failed: number }> {
  const agent = new http.Agent({ keepAlive: true, timeout: 4_000, scheduling: 'lifo' });
  let next = 0;
  let failed = 0;
  const one = (r: Received) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: r.path,
          method: 'POST',
          agent,
          headers: {
            'webhook-id': r.id,
            'webhook-timestamp': r.timestamp,
            'webhook-signature': r.signature,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(r.body)),
            'user-agent': r.userAgent,
          },
        },
        (res) => {
          if (res.statusCode !== 204) failed += 1;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end(r.body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) await one(requests[next++]!);
    }),
  );
  agent.destroy();
  return { failed };
}

/** Waits until `done()` holds (checked every `every` ms) or `timeoutMs` passes; the time it held (performance.now()), or null. */
/** The latency phase's figures. */
interface LatencyRun {
  measured: EmitRun;
  delays: number[];
  drainMs: number | null;
  serverCpu: number | null;
  result: PhaseResult;
}

interface EmitRun {
  emitted: number;
  commits: number;
  seconds: number;
  /** Each commit's duration (begin → committed), ms. */
  commitMs: number[];
}

/** Event i of the latency phase: round robin over the endpoints' types, one ordering key each (no waits behind an earlier one). */
function latencyEvent(
  i: number,
  endpoints: ReadonlyArray<{ type: CatalogType }>,
  data: ReadonlyMap<CatalogType, WebhookEventData>,
  workspaceId: string,
): { origin: { workspaceId: string; environment: 'test'; correlationId: string }; event: WebhookEventInput } {
  const type = endpoints[i % endpoints.length]!.type;
  return {
    origin: { workspaceId, environment: 'test', correlationId: `bench-latency-${i}` },
    event: { type, data: data.get(type)!, orderingKey: type.startsWith('api_key.') ? null : `sub_latency${i}` },
  };
}

/**
 * Another node's business commits: every EMIT_TICK_MS, the events due by then at `perSecond`
 * (open loop: a slow commit makes the next one bigger, never the rate lower) written with
 * emitWebhookEvents in one transaction, and the commit announced on the bus as a node's sender
 * does (webhook-sender.ts, OUTBOX_CHANNEL), so the server's sender wakes at once.
 */
async function emitAtRate(o: {
  db: Db;
  bus: Redis;
  perSecond: number;
  seconds: number;
  /** The first event's index (the warm-up's count, so ids and keys never repeat). */
  from: number;
  make: (i: number) => ReturnType<typeof latencyEvent>;
  ids: ReturnType<typeof createIdGenerator>;
  w: OutboxWriters;
}): Promise<EmitRun> {
  const { transaction, emitWebhookEvents, systemClock } = o.w;
  const t0 = performance.now();
  const commitMs: number[] = [];
  let emitted = 0;
  for (let tick = 1; ; tick++) {
    const dueAt = tick * EMIT_TICK_MS;
    const wait = t0 + dueAt - performance.now();
    if (wait > 0) await sleep(wait);
    const due = Math.floor((Math.min(dueAt, o.seconds * 1000) * o.perSecond) / 1000) - emitted;
    if (due > 0) {
      const items = Array.from({ length: due }, (_, k) => o.make(o.from + emitted + k));
      const c0 = performance.now();
      await transaction(o.db, (trx) => emitWebhookEvents(trx, { clock: systemClock, ids: o.ids }, items));
      commitMs.push(performance.now() - c0);
      emitted += due;
      await o.bus.publish(BUS_PREFIX + OUTBOX_CHANNEL, 'bench-node');
    }
    if (dueAt >= o.seconds * 1000) break;
  }
  return { emitted, commits: commitMs.length, seconds: (performance.now() - t0) / 1000, commitMs: commitMs.sort((a, b) => a - b) };
}

/** A Redis client for the bus, or why there is none (the latency phase is then not measured). */
async function connectBus(url: string): Promise<{ bus: Redis | null; why: string }> {
  const bus = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2_000, retryStrategy: () => null });
  try {
    await bus.connect();
    await bus.ping();
    return { bus, why: '' };
  } catch (err) {
    bus.disconnect();
    return { bus: null, why: `no Redis at ${url} (BENCH_REDIS_URL): ${(err as Error).message}` };
  }
}

async function until(done: () => Promise<boolean>, timeoutMs: number, every = 50): Promise<number | null> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (await done()) return performance.now();
    await sleep(every);
  }
  return null;
}

/**
 * The phases above on one data directory; `latency: false` leaves out the latency phase, `messages`
 * sets the backlog (BENCH_MESSAGES by default). `throughput.serverCpuSeconds` is the server's CPU
 * while it sent the backlog (bench/compare.ts divides it by the messages).
 */
export async function measureOutbound(opts: { messages?: number; latency?: boolean } = {}) {
  const MESSAGES = opts.messages ?? DEFAULT_MESSAGES;
  const w = await outboxWriters();
  const { openDatabase, transaction, systemClock, createIdGenerator, emitWebhookEvents, webhookExample } = w;
  if (!(ENDPOINTS >= 1 && ENDPOINTS <= TYPES.length)) throw new Error(`BENCH_ENDPOINTS must be 1 to ${TYPES.length}`);
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const receiver = new Receiver();
  let server: BenchServer | null = null;
  let dataDir: string | null = null;
  const cleanup = () => {
    if (dataDir?.includes('tollgate-bench-')) server?.cleanup();
  };
  /** Stops the server this run started (by its PID), removes its data, and exits. */
  const abort = (why: string, code: number) => {
    console.error(`outbound-webhooks: ${why}; stopping the server and exiting`);
    if (server?.child.exitCode === null) server.child.kill('SIGTERM');
    setTimeout(() => {
      cleanup();
      void (scratch?.drop() ?? Promise.resolve()).finally(() => process.exit(code));
    }, 2_000);
  };
  const hardStop = setTimeout(() => abort(`still running after ${HARD_LIMIT_MS / 1000} s`, 2), HARD_LIMIT_MS);
  hardStop.unref();
  const onSignal = (signal: NodeJS.Signals) => abort(`${signal} received`, 130);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, onSignal);

  const env = {
    OUTBOUND_WEBHOOK_ALLOW_HTTP: 'true',
    OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    OUTBOUND_WEBHOOK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  };
  const problems: string[] = [];
  const { bus, why: busMissing } = opts.latency === false ? { bus: null, why: 'not asked for' } : await connectBus(REDIS_URL);
  const rcvPort = await receiver.port;
  const endpoints: Array<{ id: string; path: string; type: CatalogType }> = [];
  const secrets: Record<string, string> = {};
  let fill: { seconds: number };
  let throughput: {
    arrivalsPerSecond: number;
    recordedPerSecond: number;
    recordedMs: number;
    fromSpawnMs: number;
    serverCpu: number | null;
    serverCpuSeconds: number | null;
  };
  let ceiling: { perSecond: number; clientPerSecond: number; concurrency: number };
  let latency: LatencyRun | null;
  let dbCheck: string;
  let store: ReturnType<typeof openDatabase> | null = null;
  try {
    // 1. Endpoints, through the API, with the sender off.
    server = await startBenchServer({ ...env, OUTBOUND_WEBHOOK_SENDER: 'false' });
    dataDir = server.info.dataDir;
    const { secretKey } = server.info;
    const api = (base: string, path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (let i = 0; i < ENDPOINTS; i++) {
      const path = `/ep/${i}`;
      const res = await api(server.info.url, '/api/v1/webhook-endpoints', {
        url: `http://127.0.0.1:${rcvPort}${path}`,
        eventTypes: [TYPES[i]!],
        maxConcurrency: ENDPOINT_CONCURRENCY,
        description: `bench receiver ${i}`,
      });
      const e = (await res.json()) as { id: string; secret: string };
      if (res.status !== 201 && res.status !== 200) throw new Error(`creating an endpoint answered ${res.status}: ${JSON.stringify(e)}`);
      endpoints.push({ id: e.id, path, type: TYPES[i]! });
      secrets[path] = e.secret;
    }
    receiver.secrets(secrets);
    await server.stop();

    // 2. Fill the outbox with the server stopped, as business transactions do. The same handle
    // then watches the deliveries (a read of the partial index of pending rows; on SQLite a
    // second reader of the WAL file, which never blocks the server's writes).
    store = openDatabase({ databaseUrl: scratch?.url ?? null, dataDir });
    const db = store.db;
    const pending = async () =>
      Number(
        (
          await db
            .selectFrom('webhookDeliveries')
            .select(sql<number>`count(*)`.as('n'))
            .where('status', '=', sql.lit('pending'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const expected = new Set<string>();
    const workspaceId = server.info.workspaceId;
    const ids = createIdGenerator(systemClock);
    const keys = Math.max(1, Math.ceil(MESSAGES / 4));
    const data = new Map(endpoints.map((e) => [e.type, webhookExample(e.type).data as unknown as WebhookEventData]));
    const f0 = performance.now();
    for (let from = 0; from < MESSAGES; from += EMIT_BATCH) {
      const items = Array.from({ length: Math.min(EMIT_BATCH, MESSAGES - from) }, (_, k) => {
        const i = from + k;
        const type = endpoints[i % ENDPOINTS]!.type;
        const event: WebhookEventInput = { type, data: data.get(type)!, orderingKey: type.startsWith('api_key.') ? null : `sub_bench${(i * 7919) % keys}` };
        return { origin: { workspaceId, environment: 'test' as const, correlationId: `bench-fill-${i}` }, event };
      });
      await transaction(db, (trx) => emitWebhookEvents(trx, { clock: systemClock, ids }, items));
    }
    fill = { seconds: (performance.now() - f0) / 1000 };
    // PostgreSQL: the statistics a running database has (autovacuum analyzes a table once a tenth
    // of it changed). Without them, on tables filled a second ago, the planner reads the tenant's
    // every message to find 16 by id (a bitmap scan on the tenant prefix): 10 ms a claim.
    if (scratch) await sql`analyze webhook_messages, webhook_deliveries`.execute(db);
    for (const r of await db.selectFrom('webhookMessages').select('id').execute()) expected.add(r.id);
    if (expected.size !== MESSAGES) problems.push(`fill: ${expected.size} messages in the outbox, ${MESSAGES} emitted`);

    // 3. Throughput: restart with the sender on; it sends the backlog. With Redis as the bus, for
    // the latency phase (its commits come from this process, as another node's would).
    receiver.phase('sender');
    const spawnedAt = Date.now();
    server = await startBenchServer({ ...env, BENCH_RESUME: '1', DATA_DIR: dataDir, ...(bus ? { REDIS_URL } : {}) });
    const pid = server.child.pid!;
    const cpu0 = { at: performance.now(), server: cpuSecondsOf(pid) };
    /** The server's CPU since `from`, as a share of one core. */
    const serverCpu = (from: { at: number; server: number | null }) => {
      const now = cpuSecondsOf(pid);
      return now === null || from.server === null ? null : (now - from.server) / ((performance.now() - from.at) / 1000);
    };
    const arrived = await until(async () => (await receiver.count()) >= expected.size, DELIVER_TIMEOUT_MS, 100);
    const recorded = arrived === null ? null : await until(async () => (await pending()) === 0, DRAIN_TIMEOUT_MS, 25);
    const backlogCpu = serverCpu(cpu0);
    const cpuNow = cpuSecondsOf(pid);
    const backlogCpuSeconds = cpuNow === null || cpu0.server === null ? null : cpuNow - cpu0.server;
    // Whatever came late (a duplicate) is counted too.
    await sleep(200);
    const sent = await receiver.collect('sender', true);
    problems.push(...exactlyOnce('sender', expected, sent));
    if (recorded === null) problems.push('sender: deliveries still pending after the receiver got them all');
    // When the last result was written: the server's clock in the row (the same machine's as the receiver's).
    const lastWrite = Number(
      (
        await db
          .selectFrom('webhookDeliveries')
          .select(sql<number>`max(updated_at)`.as('t'))
          .where('status', '=', 'succeeded')
          .executeTakeFirstOrThrow()
      ).t,
    );
    const arrivalSpan = (sent.last - sent.first) / 1000;
    const recordedSpan = (lastWrite - sent.firstWall) / 1000;
    throughput = {
      arrivalsPerSecond: (sent.counts.length - 1) / arrivalSpan,
      recordedPerSecond: sent.counts.length / recordedSpan,
      recordedMs: recordedSpan * 1000,
      fromSpawnMs: lastWrite - spawnedAt,
      serverCpu: backlogCpu,
      serverCpuSeconds: backlogCpuSeconds,
    };

    // 4. Ceiling: the same requests, raw, from this process, at the sender's total concurrency.
    receiver.phase('ceiling');
    const concurrency = Math.min(ENDPOINTS * ENDPOINT_CONCURRENCY, MAX_IN_FLIGHT);
    const c0 = performance.now();
    const raw = await postRaw(rcvPort, sent.requests, concurrency);
    const clientSeconds = (performance.now() - c0) / 1000;
    const ceil = await receiver.collect('ceiling');
    problems.push(...exactlyOnce('ceiling', expected, ceil));
    if (raw.failed > 0) problems.push(`ceiling: ${raw.failed} raw POSTs failed`);
    ceiling = { perSecond: (ceil.counts.length - 1) / ((ceil.last - ceil.first) / 1000), clientPerSecond: sent.requests.length / clientSeconds, concurrency };

    // 5. Latency: another node's commits, RATE events/s, announced on the bus.
    receiver.phase('latency');
    const latencyIds = new Set<string>();
    let latencyRun: LatencyRun | null = null;
    if (bus) {
      const source = (seconds: number, from: number) =>
        emitAtRate({ db, bus, perSecond: RATE, seconds, from, make: (i) => latencyEvent(i, endpoints, data, workspaceId), ids, w });
      const warm = await source(WARMUP_SECONDS, 0);
      const measuredFrom = Date.now();
      const cpu1 = { at: performance.now(), server: cpuSecondsOf(pid) };
      const measured = await source(SECONDS, warm.emitted);
      const loadCpu = serverCpu(cpu1);
      const loadEnd = performance.now();
      for (const r of await db.selectFrom('webhookMessages').select('id').where('correlationId', 'like', 'bench-latency-%').execute()) latencyIds.add(r.id);
      const drained = await until(async () => (await receiver.count()) >= latencyIds.size, DRAIN_TIMEOUT_MS, 50);
      if ((await until(async () => (await pending()) === 0, DRAIN_TIMEOUT_MS, 50)) === null) problems.push('latency: deliveries still pending at the end');
      await sleep(200);
      const lat = await receiver.collect('latency');
      problems.push(...exactlyOnce('latency', latencyIds, lat));
      const delays: number[] = [];
      for (let i = 0; i < lat.arrivedAt.length; i++) if (lat.emittedAt[i]! >= measuredFrom) delays.push(lat.arrivedAt[i]! - lat.emittedAt[i]!);
      delays.sort((x, y) => x - y);
      latencyRun = { measured, delays, drainMs: drained === null ? null : drained - loadEnd, serverCpu: loadCpu, result: lat };
    }
    latency = latencyRun;

    // Every signature of the sender's phases verified, with the package sellers verify with.
    for (const [what, got] of [['sender', sent] as const, ...(latencyRun ? [['latency', latencyRun.result] as const] : [])]) {
      if (got.unverified > 0 || got.verified !== got.arrivedAt.length)
        problems.push(`${what}: ${fmt(got.unverified)} signatures failed (${got.failures.join(' | ')}), ${fmt(got.verified)} verified`);
    }
    await server.stop();

    // The database after both phases: every delivery succeeded at its first attempt, one attempt logged each.
    const byStatus = await db
      .selectFrom('webhookDeliveries')
      .select(['status', sql<number>`count(*)`.as('n')])
      .groupBy('status')
      .execute();
    const notOnce = await db
      .selectFrom('webhookDeliveries')
      .select(sql<number>`count(*)`.as('n'))
      .where('attempts', '!=', 1)
      .executeTakeFirstOrThrow();
    const attempts = await db
      .selectFrom('webhookAttempts')
      .select(['status', sql<number>`count(*)`.as('n')])
      .groupBy('status')
      .execute();
    const failures = await db
      .selectFrom('webhookAttempts')
      .select(['errorCode', 'errorMessage', sql<number>`count(*)`.as('n')])
      .where('status', '!=', 'succeeded')
      .groupBy(['errorCode', 'errorMessage'])
      .limit(5)
      .execute();
    const total = expected.size + latencyIds.size;
    const st = Object.fromEntries(byStatus.map((r) => [r.status, Number(r.n)]));
    const at = Object.fromEntries(attempts.map((r) => [r.status, Number(r.n)]));
    dbCheck = `deliveries ${JSON.stringify(st)}, attempts logged ${JSON.stringify(at)}, deliveries with attempts != 1: ${Number(notOnce.n)}${
      failures.length > 0 ? `; failed attempts: ${failures.map((f) => `${Number(f.n)} ${f.errorCode} (${f.errorMessage})`).join(', ')}` : ''
    }`;
    if (st.succeeded !== total || Object.keys(st).length !== 1) problems.push(`database: ${total} deliveries expected succeeded, found ${JSON.stringify(st)}`);
    if (Number(notOnce.n) !== 0) problems.push(`database: ${Number(notOnce.n)} deliveries took more than one attempt`);
    if (at.succeeded !== total || Object.keys(at).length !== 1) problems.push(`database: ${total} attempts expected succeeded, found ${JSON.stringify(at)}`);
  } finally {
    await server?.stop();
    bus?.disconnect();
    await store?.close();
    await receiver.close();
    await scratch?.drop();
    cleanup();
    clearTimeout(hardStop);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, onSignal);
  }
  return { backend: scratch ? 'PostgreSQL' : 'SQLite', messages: MESSAGES, fill, throughput, ceiling, latency, busMissing, dbCheck, problems };
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg();
  const { backend, messages: MESSAGES, fill, throughput, ceiling, latency, busMissing, dbCheck, problems } = await measureOutbound();
  const cpu = os.cpus();
  console.log(`\nOutbound webhooks, ${backend} (bench-server), receiver on 127.0.0.1 in a worker thread of this process answering 204`);
  console.log(
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), Node ${process.version}; load average at start ${loadAtStart}, at end ${loadavg()}`,
  );
  console.log(
    `throughput: ${fmt(MESSAGES)} messages (full catalog examples of ${ENDPOINTS} types, one endpoint each, maxConcurrency ${ENDPOINT_CONCURRENCY}) written into the outbox in ${fill.seconds.toFixed(1)} s with the server stopped, then sent by the restarted server; ceiling at concurrency ${ceiling.concurrency}`,
  );
  console.log(
    latency
      ? `latency: this process as another node: ${fmt(RATE)} events/s (full catalog examples, round robin over the endpoints) written into the outbox with emitWebhookEvents, a transaction each ${EMIT_TICK_MS} ms, each commit announced on the bus (Redis); ${WARMUP_SECONDS} s warm-up then ${SECONDS} s measured\n`
      : `latency: not measured (${busMissing})\n`,
  );
  console.log(
    '| backend | load average at the start | sender: deliveries/s (first arrival → all recorded) | sender: first → last arrival, /s | ceiling: raw POSTs/s | ratio | events/s written | delay p50 ms | p95 | p99 | max |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const t = throughput;
  const ratio = t.recordedPerSecond / ceiling.perSecond;
  const d = latency?.delays ?? [];
  const achieved = latency ? latency.measured.emitted / latency.measured.seconds : NaN;
  const p99 = percentile(d, 99);
  const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`);
  console.log(
    `| ${backend} | ${loadAtStart} | ${fmt(t.recordedPerSecond)} | ${fmt(t.arrivalsPerSecond)} | ${fmt(ceiling.perSecond)} | ${ratio.toFixed(2)} | ` +
      `${latency ? fmt(achieved) : 'n/a'} | ${ms(percentile(d, 50))} | ${ms(percentile(d, 95))} | ${ms(p99)} | ${ms(d[d.length - 1] ?? NaN)} |`,
  );
  console.log(
    `\nThe backlog: all recorded ${fmt(t.recordedMs)} ms after the first arrival, ${fmt(t.fromSpawnMs)} ms after the server process was spawned; server CPU ${pct(t.serverCpu)} of one core meanwhile.`,
  );
  console.log(`Ceiling as this process timed it (first request sent → last answer): ${fmt(ceiling.clientPerSecond)}/s.`);
  if (latency)
    console.log(
      `Latency phase: ${fmt(latency.measured.emitted)} events written in ${latency.measured.seconds.toFixed(1)} s in ${fmt(latency.measured.commits)} commits ` +
        `(a commit's p99 ${ms(percentile(latency.measured.commitMs, 99))} ms); server CPU ${pct(latency.serverCpu)}; ` +
        `${fmt(d.length)} delays measured; the last delivery ${latency.drainMs === null ? 'n/a' : `${fmt(latency.drainMs)} ms`} after the load ended.`,
    );
  console.log(`Database at the end: ${dbCheck}.`);
  console.log(
    problems.length === 0 ? '\nCheck: OK (every message delivered exactly once, every signature verified).' : `\nCheck FAILED:\n- ${problems.join('\n- ')}`,
  );
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`Target >= ${fmt(TARGET_RATE)} deliveries/s: ${verdict(t.recordedPerSecond >= TARGET_RATE)} (${fmt(t.recordedPerSecond)}).`);
  console.log(`Target >= ${TARGET_RATIO * 100}% of the ceiling: ${verdict(ratio >= TARGET_RATIO)} (${ratio.toFixed(2)}).`);
  const reached = achieved >= RATE * 0.95;
  console.log(
    latency
      ? `Target p99 commit-to-delivery <= ${TARGET_P99_MS} ms at ${fmt(RATE)} events/s: ${verdict(p99 <= TARGET_P99_MS && reached)} (p99 ${ms(p99)} ms at ${fmt(achieved)} events/s` +
          `${reached ? '' : `: this process wrote fewer than ${fmt(RATE * 0.95)} events/s`}).`
      : `Target p99 commit-to-delivery <= ${TARGET_P99_MS} ms: not measured (${busMissing}).`,
  );
  console.log(`Wall time ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  if (problems.length > 0) process.exitCode = 1;
}

if (!isMainThread) runReceiver();
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
