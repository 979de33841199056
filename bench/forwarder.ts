// The gateway-log forwarder (issue 18): API Gateway access-log lines from CloudWatch Logs
// subscription events (base64 of gzip, as Lambda receives them) to acknowledged ingestion, in
// one process, against bench-server: log lines/s through decoding, the spec's mapping, batching
// (1,000 events, a fresh X-Idempotency-Key each, eventIds from the log-event ids) and POST
// /v1/ingest/batch with 4 batches in flight. The ceiling in the same run: the same events, already
// serialized as 1,000-event bodies, posted by the same process at the same concurrency (the raw
// batch ingest rate), and the same bodies without eventIds (what dedup costs the server). The
// paths alternate in 6 slices each. Every event is new (fresh ids each phase).
// Run: npm run bench:forwarder        (about 30 s; 127.0.0.1 only; stops by itself)
// BENCH_LINES (default 300,000 per path), BENCH_CONCURRENCY (4), BENCH_LINES_PER_EVENT (2,000);
// BENCH_DATABASE_URL=postgres://… runs the server on a scratch PostgreSQL database (dropped at the end).
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { createSdkBatchSender } from '../packages/forwarder/src/sdk-batch-sender.js';
import { decodeSubscriptionEvent, type SubscriptionEvent } from '../packages/forwarder/src/decode-subscription-event.js';
import { Forwarder } from '../packages/forwarder/src/forwarder.js';
import { mapLogEvent, DEFAULT_MAPPING } from '../packages/forwarder/src/map-access-log.js';
import type { UsageEvent } from '../packages/forwarder/src/types.js';
import { scratchPostgres, startBenchServer } from './lib.js';

const LINES = Number(process.env.BENCH_LINES ?? 300_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const PER_EVENT = Number(process.env.BENCH_LINES_PER_EVENT ?? 2_000);
const SLICES = 6;

/** Subscription events holding `lines` access-log lines of 100 consumers (bench-0…bench-99). */
function subscriptionEvents(tag: string, lines: number): SubscriptionEvent[] {
  const now = Date.now();
  const out: SubscriptionEvent[] = [];
  for (let start = 0; start < lines; start += PER_EVENT) {
    const logEvents = [];
    for (let i = start; i < Math.min(lines, start + PER_EVENT); i++) {
      const at = now - 60_000 + (i % 60_000);
      logEvents.push({
        // As long as CloudWatch's own ids (56 digits): the eventId index pays for their length.
        id: `${tag}${String(i).padStart(56 - tag.length, '0')}`,
        timestamp: at,
        message: JSON.stringify({
          requestId: randomUUID(),
          extendedRequestId: `${tag}${i}=`,
          ip: '203.0.113.7',
          requestTimeEpoch: String(at - 30),
          httpMethod: i % 4 === 0 ? 'POST' : 'GET',
          resourcePath: '/pets/{petId}',
          path: `/prod/pets/${i % 1000}`,
          status: i % 50 === 0 ? '404' : '200',
          protocol: 'HTTP/1.1',
          responseLength: '87',
          responseLatency: String(10 + (i % 90)),
          integrationLatency: String(8 + (i % 80)),
          apiKeyId: `bench-${i % 100}`,
        }),
      });
    }
    const decoded = {
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: 'API-Gateway-Access-Logs/prod',
      logStream: 'stream',
      subscriptionFilters: ['tollgate'],
      logEvents,
    };
    out.push({ awslogs: { data: gzipSync(JSON.stringify(decoded)).toString('base64') } });
  }
  return out;
}

/** The same events as the forwarder would send them, serialized ahead as 1,000-event bodies. */
function rawBodies(events: SubscriptionEvent[], withEventIds = true): string[] {
  const all: UsageEvent[] = [];
  for (const e of events)
    for (const l of decodeSubscriptionEvent(e).logEvents) {
      const m = mapLogEvent(l, DEFAULT_MAPPING);
      if ('event' in m) {
        if (!withEventIds) delete m.event.eventId;
        all.push(m.event);
      }
    }
  const bodies: string[] = [];
  for (let i = 0; i < all.length; i += 1000) bodies.push(JSON.stringify({ events: all.slice(i, i + 1000) }));
  return bodies;
}

async function postRaw(url: string, key: string, bodies: string[]): Promise<number> {
  let next = 0;
  let retried = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const idem = randomUUID();
      for (;;) {
        const res = await fetch(`${url}/v1/ingest/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-idempotency-key': idem },
          body,
        });
        await res.arrayBuffer();
        if (res.status === 200) break;
        if (res.status !== 503 && res.status !== 429) throw new Error(`raw batch answered ${res.status}`);
        retried++;
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return retried;
}

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const server = await startBenchServer({
    INGEST_MAX_IN_FLIGHT: process.env.INGEST_MAX_IN_FLIGHT ?? '4',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  }).catch(async (err: unknown) => {
    await scratch?.drop();
    throw err;
  });
  const { url, secretKey } = server.info;
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const rows: string[] = [];
  let retries = 0;
  const sender = createSdkBatchSender({
    url,
    apiKey: secretKey,
    sleep: (ms) => {
      retries++;
      return new Promise((r) => setTimeout(r, ms));
    },
  });
  try {
    // Warm-up: both paths, a tenth of a phase.
    await postRaw(url, secretKey, rawBodies(subscriptionEvents('w1', LINES / 10)));
    const wf = new Forwarder({ sender, concurrency: CONCURRENCY });
    for (const e of subscriptionEvents('w2', LINES / 10)) await wf.addDecoded(decodeSubscriptionEvent(e));
    await wf.finish();

    // Slices alternate (raw, forwarder, raw-without-ids, then the next slice in another order),
    // so a drift over the run (the eventId table growing, other load on the machine) falls on
    // every path alike.
    const slice = LINES / SLICES;
    const time = { raw: 0, fwd: 0, bare: 0, decode: 0 };
    let rawRetries = 0;
    for (let k = 0; k < SLICES; k++) {
      const bodies = rawBodies(subscriptionEvents(`r${k}-`, slice));
      const bare = rawBodies(subscriptionEvents(`b${k}-`, slice), false);
      const events = subscriptionEvents(`f${k}-`, slice);
      const phases: Array<[keyof typeof time, () => Promise<unknown>]> = [
        ['raw', async () => (rawRetries += await postRaw(url, secretKey, bodies))],
        [
          'fwd',
          async () => {
            const f = new Forwarder({ sender, concurrency: CONCURRENCY });
            for (const e of events) await f.addDecoded(decodeSubscriptionEvent(e));
            const s = await f.finish();
            if (s.accepted !== slice || s.duplicates !== 0) throw new Error(`forwarder: ${JSON.stringify(s)}`);
          },
        ],
        ['bare', () => postRaw(url, secretKey, bare)],
      ];
      const order = k % 3 === 0 ? [0, 1, 2] : k % 3 === 1 ? [1, 2, 0] : [2, 0, 1];
      for (const i of order) {
        const [name, run] = phases[i]!;
        const t0 = performance.now();
        await run();
        time[name] += (performance.now() - t0) / 1000;
      }
      // Decoding alone (also part of the forwarder's time above).
      const t0 = performance.now();
      for (const e of events) decodeSubscriptionEvent(e);
      time.decode += (performance.now() - t0) / 1000;
    }
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    const rate = (k: keyof typeof time) => LINES / time[k];
    rows.push(
      `| ${n(rate('fwd'))} | ${n(rate('raw'))} | ${(rate('fwd') / rate('raw')).toFixed(2)} | ${n(rate('bare'))} | ${n(rate('decode'))} | ${retries} / ${rawRetries} |`,
    );
  } finally {
    await server.stop();
    await scratch?.drop();
    server.cleanup();
  }
  console.log(
    `\nForwarder, ${scratch ? 'PostgreSQL' : 'SQLite'} (bench-server), ${LINES.toLocaleString('en-US')} log lines per path in 6 alternating slices, subscription events of ${PER_EVENT.toLocaleString('en-US')}, ${CONCURRENCY} batches in flight; load average at the start ${load}`,
  );
  console.log(
    '| forwarder: log lines/s acknowledged | ceiling: raw 1,000-event batches, events/s | ratio | raw batches without eventIds, events/s | gunzip + JSON.parse alone, lines/s | 503 retries (forwarder / raw) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

await main();
