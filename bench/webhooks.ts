// Webhook ingestion: signed Stripe-style payment_intent.succeeded events posted to
// POST /v1/ingest/webhook/{sourceId} (verified, mapped, stored as usage with their log entry) at
// 50 connections, against a bare POST route on the same server in the same run with bodies of the
// same size, headers and load generator. Afterwards the database is read: every accepted webhook
// must be stored exactly once, and nothing else.
// Run: npm run bench:webhooks   (about 35 s; 127.0.0.1 only; stops by itself)
//      BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 50) change the run; BENCH_BARE=0
//      skips the bare route (for a CPU profile of the webhook run alone:
//      BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' BENCH_BARE=0 npm run bench:webhooks).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { signWebhook } from '../packages/server/src/modules/plugs/sign-webhook.js';
import { cpuSecondsOf, percentile, startBenchServer } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_SECONDS = 2;
const WITH_BARE = process.env.BENCH_BARE !== '0';
const CUSTOMERS = 100; // bench-server.ts creates bench-0 … bench-99

/** Every event id of this run starts with this; an id's suffix is its index in the stream. */
const TAG = randomBytes(5).toString('hex');
const eventId = (i: number) => `evt_1Q${TAG}${i.toString(36).padStart(10, '0')}`;
// Random-looking ids for the other fields, cut from one block of noise (one randomBytes call per
// field would make signing the pool slow).
const NOISE = randomBytes(3 << 20).toString('base64url');
let noiseAt = 0;
const rand = (n: number) => {
  if (noiseAt + n > NOISE.length) noiseAt = 0;
  noiseAt += n + 7;
  return NOISE.slice(noiseAt - n - 7, noiseAt - 7);
};

/** A Stripe payment_intent.succeeded event much as Stripe sends it (about 840 bytes). */
function stripeEvent(i: number, createdSeconds: number): string {
  const pi = `pi_3Q${rand(22)}`;
  const amount = 500 + ((i * 37) % 9_500);
  return JSON.stringify({
    id: eventId(i),
    object: 'event',
    api_version: '2024-06-20',
    created: createdSeconds,
    data: {
      object: {
        id: pi,
        object: 'payment_intent',
        amount,
        amount_capturable: 0,
        amount_received: amount,
        capture_method: 'automatic_async',
        client_secret: `${pi}_secret_${rand(25)}`,
        confirmation_method: 'automatic',
        created: createdSeconds - 2,
        currency: 'usd',
        customer: `bench-${i % CUSTOMERS}`,
        description: 'Subscription update',
        latest_charge: `ch_3Q${rand(22)}`,
        livemode: false,
        metadata: { order_id: String(100_000 + i) },
        payment_method: `pm_1Q${rand(22)}`,
        payment_method_types: ['card'],
        status: 'succeeded',
      },
    },
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${rand(14)}`, idempotency_key: `${rand(8)}-${rand(4)}-${rand(4)}-${rand(12)}` },
    type: 'payment_intent.succeeded',
  });
}

/**
 * Requests signed before the run (Stripe accepts a signature for 300 s), handed out once each so
 * that no event id is sent twice. Past the pool, requests are signed as they are sent (counted).
 */
class SignedPool {
  private bodies: Buffer[] = [];
  private signatures: string[] = [];
  next = 0;
  signedLive = 0;
  signSeconds = 0;
  constructor(private readonly secret: string) {}
  private sign(i: number): { body: Buffer; signature: string } {
    const now = Date.now();
    const body = Buffer.from(stripeEvent(i, Math.floor(now / 1000) - 1));
    return { body, signature: signWebhook({ kind: 'stripe' }, this.secret, body, { nowMs: now }).headers['stripe-signature']! };
  }
  get size(): number {
    return this.bodies.length;
  }
  /** Signs requests up to index `upTo` (exclusive). */
  fill(upTo: number): void {
    const t0 = performance.now();
    for (let i = this.bodies.length; i < upTo; i++) {
      const s = this.sign(i);
      this.bodies.push(s.body);
      this.signatures.push(s.signature);
    }
    this.signSeconds += (performance.now() - t0) / 1000;
  }
  take(): { index: number; body: Buffer; signature: string } {
    const index = this.next++;
    if (index < this.bodies.length) {
      const out = { index, body: this.bodies[index]!, signature: this.signatures[index]! };
      this.bodies[index] = Buffer.alloc(0); // sent once; let it go
      return out;
    }
    this.signedLive += 1;
    return { index, ...this.sign(index) };
  }
}

interface Tally {
  sent: number;
  answers: number;
  accepted: number;
  /** Status code and the answer's status or error code, e.g. "200 duplicate", "422 UNKNOWN_CUSTOMER". */
  other: Map<string, number>;
  latencies: number[];
}

const newTally = (): Tally => ({ sent: 0, answers: 0, accepted: 0, other: new Map(), latencies: [] });
const acceptedIds = new Set<string>();

function answerKind(status: number, body: string): string {
  const m = /"(?:status|code)":"([A-Za-z_]+)"/.exec(body);
  return `${status} ${m?.[1] ?? '?'}`;
}

async function drive(url: string, path: string, seconds: number, next: () => { body: Buffer; signature: string }, tally: Tally, webhook: boolean) {
  // One dynamic request: setupRequest hands each send the next body, so every connection sends
  // fresh event ids. The bare route runs through the same callback with bodies of the same size.
  const request: autocannon.Request = {
    method: 'POST',
    path,
    setupRequest: (req) => {
      const s = next();
      tally.sent += 1;
      req.body = s.body;
      req.headers!['stripe-signature'] = s.signature;
      return req;
    },
    onResponse: (status, body) => {
      tally.answers += 1;
      if (!webhook) {
        if (status !== 200) tally.other.set(answerKind(status, body), (tally.other.get(answerKind(status, body)) ?? 0) + 1);
        return;
      }
      if (status === 200 && body.startsWith('{"status":"accepted"')) {
        tally.accepted += 1;
        const at = body.indexOf('"event_id":"');
        acceptedIds.add(body.slice(at + 12, body.indexOf('"', at + 12)));
      } else {
        const k = answerKind(status, body);
        tally.other.set(k, (tally.other.get(k) ?? 0) + 1);
        if ((tally.other.get(k) ?? 0) === 1) console.error(`first "${k}" answer: ${body.slice(0, 300)}`);
      }
    },
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: `${url}${path}`, connections: CONNECTIONS, duration: seconds, headers: { 'content-type': 'application/json' }, requests: [request] },
      (err, r) => (err ? reject(err as Error) : resolve(r)),
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => tally.latencies.push(ms));
  });
  tally.latencies.sort((a, b) => a - b);
  return result;
}

/** The bare route gets bodies of the same size and a dummy signature header of the same length. */
function barePool(secret: string) {
  const now = Date.now();
  const bodies = Array.from({ length: 1_000 }, (_, i) => Buffer.from(stripeEvent(i, Math.floor(now / 1000))));
  const signature = signWebhook({ kind: 'stripe' }, secret, bodies[0]!, { nowMs: now }).headers['stripe-signature']!;
  let n = 0;
  return () => ({ body: bodies[n++ % bodies.length]!, signature });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * One server: the warm-up, the bare route (the ceiling, unless BENCH_BARE=0), the webhooks, then the
 * store check read from the database file; `cpuSeconds` is the server's CPU during the webhook run
 * (bench/compare.ts divides it by the webhooks accepted).
 */
export async function measureWebhooks() {
  acceptedIds.clear();
  const server = await startBenchServer();
  const { url, webhookSources, databaseFile } = server.info;
  const source = webhookSources.payment;
  if (!source) throw new Error('bench server did not report the payment webhook source');
  const pool = new SignedPool(source.secret);
  const bare = barePool(source.secret);
  const warm = newTally();
  const hook = newTally();
  const ceil = newTally();
  let hookResult: autocannon.Result;
  let bareResult: autocannon.Result | null;
  let cpu0: number | null;
  let cpu1: number | null;
  try {
    pool.fill(40_000);
    // One webhook alone first: the first write starts the writer thread and opens the source.
    const first = pool.take();
    const res = await fetch(`${url}${source.url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': first.signature },
      body: first.body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    warm.sent += 1;
    warm.answers += 1;
    if (res.status !== 200 || !text.startsWith('{"status":"accepted"')) throw new Error(`the first webhook was not accepted: ${res.status} ${text}`);
    warm.accepted += 1;
    acceptedIds.add((JSON.parse(text) as { event_id: string }).event_id);
    await drive(url, source.url, WARMUP_SECONDS, () => pool.take(), warm, true); // warm-up
    await drive(url, '/__bench/bare', WARMUP_SECONDS, bare, newTally(), false);
    // Enough signed requests for 1.5 times the warm-up's rate (those past it are signed live).
    const warmRate = warm.answers / WARMUP_SECONDS;
    pool.fill(pool.next + Math.ceil(warmRate * (SECONDS + 1) * 1.5) + 20_000);
    // The ceiling first, on the fresh server (as entitlements.ts does), then the webhooks.
    bareResult = WITH_BARE ? await drive(url, '/__bench/bare', SECONDS, bare, ceil, false) : null;
    cpu0 = cpuSecondsOf(server.child.pid!);
    hookResult = await drive(url, source.url, SECONDS, () => pool.take(), hook, true);
    cpu1 = cpuSecondsOf(server.child.pid!);
    await new Promise((r) => setTimeout(r, 500)); // let requests cut off at the end finish on the server
  } catch (err) {
    await server.stop();
    server.cleanup();
    throw err;
  }
  await server.stop();

  // The store, read straight from the file after the server stopped.
  const db = new SQLite(databaseFile as string, { readonly: true });
  const storedIds = db.prepare(`select event_id as id from usage_events where source = 'webhook'`).pluck().all() as string[];
  const logByStatus = db.prepare(`select status, count(*) as n from webhook_log group by status`).all() as Array<{ status: string; n: number }>;
  const claimedIds = db.prepare(`select count(*) from webhook_event_ids`).pluck().get() as number;
  const aggregateCount = Number(
    db.prepare(`select coalesce(sum(event_count), 0) from usage_aggregates where metric_name = 'payment_volume' and dimension = ''`).pluck().get(),
  );
  db.close();
  server.cleanup();

  const stored = new Set(storedIds);
  const logAccepted = logByStatus.find((r) => r.status === 'accepted')?.n ?? 0;
  const clientAccepted = warm.accepted + hook.accepted;
  const sent = warm.sent + hook.sent;
  const unanswered = sent - warm.answers - hook.answers;
  const missing = [...acceptedIds].filter((id) => !stored.has(id));
  const extra = storedIds.filter((id) => !acceptedIds.has(id));
  const foreign = extra.filter((id) => !id.startsWith(`evt_1Q${TAG}`) || parseInt(id.slice(6 + TAG.length), 36) >= pool.next);
  const problems = [
    storedIds.length !== stored.size && `${storedIds.length - stored.size} event ids stored twice`,
    missing.length > 0 && `${missing.length} accepted webhooks not stored (e.g. ${missing[0]})`,
    foreign.length > 0 && `${foreign.length} stored events that were never sent`,
    extra.length > unanswered && `${extra.length} stored events beyond the ${unanswered} requests unanswered at the cut-off`,
    acceptedIds.size !== clientAccepted && `${clientAccepted - acceptedIds.size} accepted answers repeated an event id`,
    logAccepted !== storedIds.length && `webhook_log says ${logAccepted} accepted, usage_events holds ${storedIds.length}`,
    claimedIds !== storedIds.length && `webhook_event_ids holds ${claimedIds}, usage_events ${storedIds.length}`,
    aggregateCount !== storedIds.length && `usage_aggregates counts ${aggregateCount} payment_volume events, usage_events holds ${storedIds.length}`,
  ].filter(Boolean);

  const hookRate = hook.accepted / hookResult.duration;
  const bareRate = bareResult ? ceil.answers / bareResult.duration : NaN;
  const cpuSeconds = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
  return {
    pool,
    warm,
    hook,
    ceil,
    hookResult,
    bareResult,
    hookRate,
    bareRate,
    cpuSeconds,
    problems,
    storedIds,
    logByStatus,
    claimedIds,
    aggregateCount,
    logAccepted,
    clientAccepted,
    extra,
    unanswered,
  };
}

async function main() {
  const loadAtStart = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const m = await measureWebhooks();
  const { pool, hook, ceil, hookResult, bareResult, hookRate, bareRate, problems } = m;
  const { storedIds, logByStatus, claimedIds, aggregateCount, logAccepted, clientAccepted, extra, unanswered } = m;
  const cpu = os.cpus();
  console.log(`\nWebhooks, ${CONNECTIONS} connections, ${SECONDS} s each, SQLite (WAL, synchronous=FULL), autocannon in this process`);
  console.log(
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}; ` +
      `load average at start ${loadAtStart}, at end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  console.log(
    `requests: Stripe-style payment_intent.succeeded events of about ${stripeEvent(0, 1_800_000_000).length} bytes, stripe-signature over the body, customers cycling over ${CUSTOMERS}`,
  );
  console.log(
    `signed before sending: ${fmt(pool.size)} requests in ${pool.signSeconds.toFixed(1)} s, of which ${fmt(pool.next - pool.signedLive)} were sent; signed while sending: ${pool.signedLive}`,
  );
  console.log('| route | per second | ratio to bare | p50 ms | p99 ms | answers | not accepted / non-200 |');
  console.log('|---|---|---|---|---|---|---|');
  const others = (t: Tally, r: autocannon.Result) =>
    [
      ...[...t.other].map(([k, n]) => `${k}: ${n}`),
      ...(r.errors > 0 ? [`connection errors: ${r.errors}`] : []),
      ...(r.timeouts > 0 ? [`timeouts: ${r.timeouts}`] : []),
    ].join(', ') || '0';
  if (bareResult)
    console.log(
      `| bare POST /__bench/bare (ceiling) | ${fmt(bareRate)} | 1.00 | ${percentile(ceil.latencies, 50).toFixed(1)} | ${percentile(ceil.latencies, 99).toFixed(1)} | ${fmt(ceil.answers)} | ${others(ceil, bareResult)} |`,
    );
  console.log(
    `| POST /v1/ingest/webhook/{id}, accepted | ${fmt(hookRate)} | ${(hookRate / bareRate).toFixed(2)} | ${percentile(hook.latencies, 50).toFixed(1)} | ${percentile(hook.latencies, 99).toFixed(1)} | ${fmt(hook.answers)} | ${others(hook, hookResult)} |`,
  );
  console.log(
    `\nStore check (warm-up and run): ${fmt(clientAccepted)} answered accepted, ${fmt(storedIds.length)} usage events from webhooks, ${fmt(logAccepted)} accepted log entries ` +
      `(log: ${logByStatus.map((r) => `${r.status} ${r.n}`).join(', ')}), ${fmt(claimedIds)} claimed event ids, ${fmt(aggregateCount)} counted in usage_aggregates; ` +
      `${extra.length} stored of the ${unanswered} requests still unanswered when the client stopped.`,
  );
  console.log(problems.length === 0 ? 'Store check: OK (nothing lost, nothing stored twice).' : `Store check FAILED: ${problems.join('; ')}`);
  console.log(
    `Targets: >= 10,000 webhooks/s: ${hookRate >= 10_000 ? 'met' : 'not met'}; >= 0.50 of the bare route: ${bareResult ? (hookRate / bareRate >= 0.5 ? 'met' : 'not met') : 'n/a'}.`,
  );
  if (problems.length > 0) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
