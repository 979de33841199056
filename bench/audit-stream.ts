// The live audit stream (GET /api/v1/events/stream, Server-Sent Events): 1,000 subscribers of one
// workspace on one server while usage is ingested, each ingested batch committing one
// usage.batch_ingested audit event. Measured: the delay from an event's commit (its createdAt, the
// server's clock at insert) to its arrival at each subscriber (Date.now() on arrival, the same
// machine's clock), the server's memory (VmRSS) and CPU, and a check that every subscriber got
// every event of the run exactly once. The ceiling, in the same run: the same ingest load with no
// subscriber (batches/s) and the delay to one subscriber.
// Run: npm run bench:audit-stream   (about 45 s; 127.0.0.1 only; stops by itself)
//      BENCH_SUBSCRIBERS (default 1000), BENCH_SECONDS (load with the subscribers, default 15),
//      BENCH_CEILING_SECONDS (each ceiling run, default 8), BENCH_INGEST_CONNECTIONS (default 4),
//      BENCH_BATCH (events per ingested batch, default 10), BENCH_CLIENT_THREADS (worker threads
//      holding the subscribers, default 2), BENCH_DATABASE_URL=postgres://… (a scratch database
//      on that server instead of the SQLite default).
// The subscribers are raw node:http requests parsed here (no EventSource objects: 1,000 of them
// would cost the measuring process more than the server), spread over worker threads so that
// reading them does not delay the ingest loop or the clock readings of each other.
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, type Worker, workerData } from 'node:worker_threads';
import { closedLoop, cpuSecondsOf, percentile, rssOf, scratchPostgres, startBenchServer, tsWorker, type LoadResult } from './lib.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CEILING_SECONDS = Number(process.env.BENCH_CEILING_SECONDS ?? 8);
const INGEST_CONNECTIONS = Number(process.env.BENCH_INGEST_CONNECTIONS ?? 4);
const BATCH = Number(process.env.BENCH_BATCH ?? 10);
const CLIENT_THREADS = Math.max(1, Number(process.env.BENCH_CLIENT_THREADS ?? 2));
const TARGET_P99_MS = 250;
/** The whole run stops (server included) past this, whatever state it is in. */
const HARD_LIMIT_MS = 150_000;

// ---------------------------------------------------------------------------------------------
// The subscribers' side: one worker thread holds a share of the streams.

type ToClient =
  | { cmd: 'open'; url: string; headers: Record<string, string>; count: number }
  | { cmd: 'measure'; from: number }
  | { cmd: 'stats' }
  | { cmd: 'collect' }
  | { cmd: 'close' };

interface Collected {
  type: 'collected';
  /** Every event id this thread saw, its createdAt (ms) and whether it is a usage.batch_ingested. */
  ids: string[];
  createdAt: Float64Array;
  batch: Uint8Array;
  /** Per subscriber, deliveries of each event (indexed like ids). */
  counts: Uint8Array[];
  /** Arrival minus createdAt, ms, of every delivery of an event created at or after `measure.from`. */
  delays: Float64Array;
  deliveries: number;
  outOfOrder: number;
  refusals: string[];
  errors: string[];
  /** Streams that ended before the client closed them. */
  endedEarly: number;
}

type FromClient = { type: 'opened'; open: number; failed: number; errors: string[] } | { type: 'stats'; deliveries: number } | Collected | { type: 'closed' };

function runClient(): void {
  const port = parentPort!;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  interface Sub {
    req: http.ClientRequest | null;
    buf: string;
    counts: Uint8Array;
    lastTx: number;
    lastSeq: number;
  }
  const subs: Sub[] = [];
  const index = new Map<string, number>();
  const ids: string[] = [];
  let createdAt = new Float64Array(1024);
  let batch = new Uint8Array(1024);
  let measureFrom = Number.POSITIVE_INFINITY;
  let delays = new Float64Array(1 << 16);
  let nDelays = 0;
  let deliveries = 0;
  let outOfOrder = 0;
  let endedEarly = 0;
  let closing = false;
  const refusals: string[] = [];
  const errors: string[] = [];
  const note = (list: string[], s: string) => {
    if (list.length < 20) list.push(s);
  };

  const field = (data: string, name: string): string | null => {
    const key = `"${name}":"`;
    const at = data.indexOf(key);
    if (at < 0) return null;
    const from = at + key.length;
    return data.slice(from, data.indexOf('"', from));
  };

  function deliver(sub: Sub, id: string, data: string, now: number) {
    const eventId = field(data, 'eventId');
    const created = field(data, 'createdAt');
    if (eventId === null || created === null) {
      note(errors, `unparsable message: ${data.slice(0, 200)}`);
      return;
    }
    // The cursor: `<seq>` on SQLite, `<tx>-<seq>` on PostgreSQL; each stream's must increase.
    const dash = id.indexOf('-');
    const tx = dash < 0 ? 0 : Number(id.slice(0, dash));
    const seq = Number(id.slice(dash + 1));
    if (!(tx > sub.lastTx || (tx === sub.lastTx && seq > sub.lastSeq))) outOfOrder += 1;
    sub.lastTx = tx;
    sub.lastSeq = seq;
    let i = index.get(eventId);
    if (i === undefined) {
      i = ids.length;
      index.set(eventId, i);
      ids.push(eventId);
      if (i >= createdAt.length) {
        const c = new Float64Array(createdAt.length * 2);
        c.set(createdAt);
        createdAt = c;
        const b = new Uint8Array(batch.length * 2);
        b.set(batch);
        batch = b;
      }
      createdAt[i] = Date.parse(created);
      batch[i] = field(data, 'eventType') === 'usage.batch_ingested' ? 1 : 0;
    }
    if (i >= sub.counts.length) {
      const c = new Uint8Array(Math.max(createdAt.length, i + 1));
      c.set(sub.counts);
      sub.counts = c;
    }
    if (sub.counts[i]! < 255) sub.counts[i]! += 1;
    deliveries += 1;
    const t = createdAt[i]!;
    if (t >= measureFrom) {
      if (nDelays === delays.length) {
        const d = new Float64Array(delays.length * 2);
        d.set(delays);
        delays = d;
      }
      delays[nDelays++] = now - t;
    }
  }

  function frame(sub: Sub, text: string, now: number) {
    if (text.startsWith(':')) return; // keep-alive comment
    let id = '';
    let event = 'message';
    let data: string | null = null;
    for (const line of text.split('\n')) {
      if (line.startsWith('data: ')) data = data === null ? line.slice(6) : `${data}\n${line.slice(6)}`;
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('event: ')) event = line.slice(7);
    }
    if (data === null) return; // the opening retry: frame
    if (event === 'audit_event') deliver(sub, id, data, now);
    else if (event === 'stream_error') note(refusals, data.slice(0, 300));
    else note(errors, `unexpected event '${event}'`);
  }

  function open(url: string, headers: Record<string, string>): Promise<string | null> {
    return new Promise((resolve) => {
      const sub: Sub = { req: null, buf: '', counts: new Uint8Array(0), lastTx: -1, lastSeq: 0 };
      const req = http.get(url, { agent, headers }, (res) => {
        if (res.statusCode !== 200) {
          res.setEncoding('utf8');
          let body = '';
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(`${res.statusCode} ${body.slice(0, 300)}`));
          return;
        }
        subs.push(sub);
        res.setEncoding('utf8');
        let first = true;
        res.on('data', (chunk: string) => {
          const now = Date.now();
          const buf = sub.buf + chunk;
          let start = 0;
          for (let at = buf.indexOf('\n\n'); at >= 0; at = buf.indexOf('\n\n', start)) {
            frame(sub, buf.slice(start, at), now);
            start = at + 2;
          }
          sub.buf = start === 0 ? buf : buf.slice(start);
          if (first) {
            first = false;
            resolve(null); // the opening retry: frame arrived: the stream is open
          }
        });
        res.on('close', () => {
          if (!closing) endedEarly += 1;
        });
      });
      sub.req = req;
      req.on('error', (err) => {
        if (!closing) resolve(`connection error: ${err.message}`);
      });
    });
  }

  const onMessage = async (m: ToClient) => {
    const reply = (r: FromClient, transfer: ArrayBuffer[] = []) => port.postMessage(r, transfer);
    if (m.cmd === 'open') {
      // In groups, so the server's accept backlog never overflows (a dropped SYN costs a second).
      let opened = 0;
      let failed = 0;
      const errs: string[] = [];
      for (let done = 0; done < m.count;) {
        const n = Math.min(100, m.count - done);
        const results = await Promise.all(Array.from({ length: n }, () => open(m.url, m.headers)));
        for (const r of results) {
          if (r === null) opened += 1;
          else {
            failed += 1;
            if (errs.length < 5) errs.push(r);
          }
        }
        done += n;
      }
      reply({ type: 'opened', open: opened, failed, errors: errs });
    } else if (m.cmd === 'measure') {
      measureFrom = m.from;
    } else if (m.cmd === 'stats') {
      reply({ type: 'stats', deliveries });
    } else if (m.cmd === 'collect') {
      const d = delays.slice(0, nDelays);
      const c = createdAt.slice(0, ids.length);
      const b = batch.slice(0, ids.length);
      const counts = subs.map((s) => {
        const out = new Uint8Array(ids.length);
        out.set(s.counts.subarray(0, ids.length));
        return out;
      });
      reply({ type: 'collected', ids, createdAt: c, batch: b, counts, delays: d, deliveries, outOfOrder, refusals, errors, endedEarly }, [
        d.buffer,
        c.buffer,
        b.buffer,
        ...counts.map((x) => x.buffer),
      ]);
    } else if (m.cmd === 'close') {
      closing = true;
      for (const s of subs) s.req?.destroy();
      agent.destroy();
      reply({ type: 'closed' });
      port.close();
    }
  };
  // A failed command ends the thread (an unhandled rejection), as it did when the listener was async.
  port.on('message', (m: ToClient) => void onMessage(m));
}

// ---------------------------------------------------------------------------------------------
// The measuring side: the server, the ingest load, the clients' threads and the report.

class ClientThread {
  private readonly worker: Worker;
  private waiting: Array<{ type: string; resolve: (m: FromClient) => void; reject: (err: Error) => void }> = [];
  private failed: Error | null = null;
  constructor() {
    this.worker = tsWorker(import.meta.url, { role: 'client' });
    this.worker.on('message', (m: FromClient) => {
      const i = this.waiting.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
    // A thread that fails fails the run (instead of leaving it waiting for an answer).
    const fail = (err: Error) => {
      this.failed ??= err;
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`client thread exited with code ${code}`)));
  }
  private ask<T extends FromClient['type']>(msg: ToClient, type: T): Promise<Extract<FromClient, { type: T }>> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      this.waiting.push({ type, resolve: resolve as (m: FromClient) => void, reject });
      this.worker.postMessage(msg);
    });
  }
  open(url: string, headers: Record<string, string>, count: number) {
    return this.ask({ cmd: 'open', url, headers, count }, 'opened');
  }
  measure(from: number) {
    this.worker.postMessage({ cmd: 'measure', from } satisfies ToClient);
  }
  stats() {
    return this.ask({ cmd: 'stats' }, 'stats');
  }
  collect() {
    return this.ask({ cmd: 'collect' }, 'collected');
  }
  async close() {
    if (!this.failed) await Promise.race([this.ask({ cmd: 'close' }, 'closed').catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    await this.worker.terminate();
  }
}

interface StreamRun {
  subscribers: number;
  opened: number;
  openFailed: string[];
  load: LoadResult;
  /** Unique events of the run (created at or after the load began) and how many are the ingested batches' own. */
  events: number;
  batchEvents: number;
  deliveries: number;
  expectedDeliveries: number;
  missing: number;
  duplicates: number;
  /** Subscribers that missed or repeated anything. */
  subscribersWrong: number;
  /** Events seen before the load began (other writers): left out of the check. */
  before: number;
  outOfOrder: number;
  refusals: string[];
  errors: string[];
  endedEarly: number;
  delays: Float64Array;
  drainMs: number;
  rss: { idle: number | null; peak: number | null; after: number | null };
  serverCpu: number | null;
  clientCpu: number;
  seconds: number;
}

const MiB = (b: number | null) => (b === null ? 'n/a' : `${(b / 2 ** 20).toFixed(0)} MiB`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** Percentile of an ascending typed array. */
const q = (a: Float64Array, p: number) => (a.length === 0 ? NaN : a[Math.min(a.length - 1, Math.floor((p / 100) * a.length))]!);
const ms = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(1));

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const server = await startBenchServer({
    AUDIT_STREAM_MAX_PER_TENANT: String(Math.max(5000, SUBSCRIBERS)),
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  });
  const pid = server.child.pid!;
  const hardStop = setTimeout(() => {
    console.error(`audit-stream: still running after ${HARD_LIMIT_MS / 1000} s; stopping the server and exiting`);
    server.child.kill('SIGTERM');
    setTimeout(() => {
      server.cleanup();
      process.exit(2);
    }, 2_000);
  }, HARD_LIMIT_MS);
  hardStop.unref();

  const { url, secretKey, customerIds, workspaceId } = server.info;
  const streamUrl = `${url}/api/v1/events/stream`;
  const streamHeaders = { authorization: `Bearer ${secretKey}`, 'x-tenant-id': workspaceId, accept: 'text/event-stream' };
  const now = Date.now();
  const bodies = Array.from({ length: 64 }, (_, b) =>
    JSON.stringify({
      events: Array.from({ length: BATCH }, (_, i) => ({
        customerId: customerIds[(b * 7 + i) % customerIds.length],
        metricName: 'api_calls',
        quantity: 1,
        occurredAt: new Date(now - ((b * BATCH + i) % 600_000)).toISOString(),
      })),
    }),
  );
  const ingest = (seconds: number) =>
    closedLoop({
      connections: INGEST_CONNECTIONS,
      seconds,
      request: (i) => ({
        url: `${url}/v1/ingest/batch`,
        init: { method: 'POST', headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' }, body: bodies[i % bodies.length] },
      }),
    });

  /** Subscribers open, then the load, then the deliveries drain, then the check. */
  async function streamRun(subscribers: number, seconds: number): Promise<StreamRun> {
    const threads = Array.from({ length: Math.min(CLIENT_THREADS, subscribers) }, () => new ClientThread());
    try {
      const share = (t: number) => Math.floor(subscribers / threads.length) + (t < subscribers % threads.length ? 1 : 0);
      const opened = await Promise.all(threads.map((t, i) => t.open(streamUrl, streamHeaders, share(i))));
      // A stream's headers and retry: frame go out before the server has registered the subscriber
      // (it first reads the feed's head); give every one time to be registered.
      await new Promise((r) => setTimeout(r, 1_500));
      const rssIdle = rssOf(pid);
      let rssPeak = rssIdle;
      const sampler = setInterval(() => {
        const r = rssOf(pid);
        if (r !== null && (rssPeak === null || r > rssPeak)) rssPeak = r;
      }, 200);
      const from = Date.now();
      for (const t of threads) t.measure(from);
      const cpu0 = process.cpuUsage();
      const server0 = cpuSecondsOf(pid);
      const t0 = performance.now();
      const load = await ingest(seconds);
      const loadEnd = performance.now();
      // Until nothing arrives for a second (or 15 s).
      let last = -1;
      let stableSince = performance.now();
      while (performance.now() - loadEnd < 15_000) {
        const n = (await Promise.all(threads.map((t) => t.stats()))).reduce((a, s) => a + s.deliveries, 0);
        if (n !== last) {
          last = n;
          stableSince = performance.now();
        } else if (performance.now() - stableSince >= 1_000) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const drainMs = stableSince - loadEnd;
      const elapsed = (performance.now() - t0) / 1000;
      clearInterval(sampler);
      const cpu = process.cpuUsage(cpu0);
      const server1 = cpuSecondsOf(pid);
      const results = await Promise.all(threads.map((t) => t.collect()));

      // The union of every thread's events; each subscriber's deliveries against it.
      const union = new Map<string, { createdAt: number; batch: boolean }>();
      for (const r of results) r.ids.forEach((id, i) => union.set(id, { createdAt: r.createdAt[i]!, batch: r.batch[i] === 1 }));
      const inRun = new Set([...union].filter(([, e]) => e.createdAt >= from).map(([id]) => id));
      let missing = 0;
      let duplicates = 0;
      let subscribersWrong = 0;
      let deliveries = 0;
      for (const r of results) {
        const local = r.ids.map((id) => inRun.has(id));
        for (const counts of r.counts) {
          let got = 0;
          let dup = 0;
          for (let i = 0; i < counts.length; i++) {
            if (!local[i] || counts[i] === 0) continue;
            got += 1;
            dup += counts[i]! - 1;
          }
          deliveries += got + dup;
          const miss = inRun.size - got;
          missing += miss;
          duplicates += dup;
          if (miss > 0 || dup > 0) subscribersWrong += 1;
        }
      }
      const open = opened.reduce((a, o) => a + o.open, 0);
      const delays = new Float64Array(results.reduce((a, r) => a + r.delays.length, 0));
      let at = 0;
      for (const r of results) {
        delays.set(r.delays, at);
        at += r.delays.length;
      }
      delays.sort();
      return {
        subscribers,
        opened: open,
        openFailed: opened.flatMap((o) => o.errors),
        load,
        events: inRun.size,
        batchEvents: [...inRun].filter((id) => union.get(id)!.batch).length,
        deliveries,
        expectedDeliveries: inRun.size * open,
        missing,
        duplicates,
        subscribersWrong,
        before: union.size - inRun.size,
        outOfOrder: results.reduce((a, r) => a + r.outOfOrder, 0),
        refusals: results.flatMap((r) => r.refusals),
        errors: results.flatMap((r) => r.errors),
        endedEarly: results.reduce((a, r) => a + r.endedEarly, 0),
        delays,
        drainMs,
        rss: { idle: rssIdle, peak: rssPeak, after: null },
        serverCpu: server0 !== null && server1 !== null ? (server1 - server0) / elapsed : null,
        clientCpu: (cpu.user + cpu.system) / 1e6 / elapsed,
        seconds: elapsed,
      };
    } finally {
      await Promise.all(threads.map((t) => t.close()));
    }
  }

  let rssStart: number | null;
  let rssBefore: number | null;
  let ceiling: LoadResult;
  let ceilingCpu: { server: number | null; client: number };
  let one: StreamRun;
  let many: StreamRun;
  let rssAfterClose: number | null;
  try {
    rssStart = rssOf(pid);
    await ingest(2); // warm-up: the writer thread starts, statements are prepared
    // Ceiling 1: the same load, nobody subscribed.
    const c0 = process.cpuUsage();
    const s0 = cpuSecondsOf(pid);
    ceiling = await ingest(CEILING_SECONDS);
    const c1 = process.cpuUsage(c0);
    const s1 = cpuSecondsOf(pid);
    ceilingCpu = { server: s0 !== null && s1 !== null ? (s1 - s0) / CEILING_SECONDS : null, client: (c1.user + c1.system) / 1e6 / CEILING_SECONDS };
    // Ceiling 2: one subscriber.
    one = await streamRun(1, CEILING_SECONDS);
    await new Promise((r) => setTimeout(r, 500));
    rssBefore = rssOf(pid);
    many = await streamRun(SUBSCRIBERS, SECONDS);
    await new Promise((r) => setTimeout(r, 1_000));
    rssAfterClose = rssOf(pid);
  } finally {
    await server.stop();
    await scratch?.drop();
    server.cleanup();
    clearTimeout(hardStop);
  }

  const cpu = os.cpus();
  const backend = scratch ? 'PostgreSQL' : 'SQLite (WAL, synchronous=FULL, usage writes on the writer thread)';
  console.log(`\nAudit stream, ${backend}: GET /api/v1/events/stream, no filter, one workspace`);
  console.log(
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), Node ${process.version}; load average at start ${loadAtStart}, at end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ` +
      `subscribers in ${Math.min(CLIENT_THREADS, SUBSCRIBERS)} worker thread(s) of this process (raw node:http, SSE parsed here), ingest from its main thread`,
  );
  console.log(
    `load: ${INGEST_CONNECTIONS} connections, closed loop, POST /v1/ingest/batch of ${BATCH} events (one usage.batch_ingested audit event per batch); ${CEILING_SECONDS} s per ceiling run, ${SECONDS} s with ${fmt(SUBSCRIBERS)} subscribers`,
  );
  console.log('delay = arrival (Date.now() in the subscriber) - createdAt (the server clock when the batch was handed to the writer, before its commit)\n');
  console.log(
    '| run | batches/s acked (= audit events/s) | usage events/s | ingest p99 ms | deliveries | deliveries/s | delay p50 ms | p99 ms | max ms | server CPU | client CPU |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`);
  const row = (name: string, load: LoadResult, r: StreamRun | null, cpuS: number | null, cpuC: number) => {
    const bps = load.ok / load.seconds;
    console.log(
      `| ${name} | ${fmt(bps)} | ${fmt(bps * BATCH)} | ${ms(percentile(load.latenciesOk, 99))} | ${r ? fmt(r.deliveries) : '-'} | ${r ? fmt(r.deliveries / r.load.seconds) : '-'} | ` +
        `${r ? ms(q(r.delays, 50)) : '-'} | ${r ? ms(q(r.delays, 99)) : '-'} | ${r ? ms(r.delays[r.delays.length - 1] ?? NaN) : '-'} | ${pct(cpuS)} | ${pct(cpuC)} |`,
    );
  };
  row('ceiling: no subscriber', ceiling!, null, ceilingCpu!.server, ceilingCpu!.client);
  row('ceiling: 1 subscriber', one!.load, one!, one!.serverCpu, one!.clientCpu);
  row(`${fmt(SUBSCRIBERS)} subscribers`, many!.load, many!, many!.serverCpu, many!.clientCpu);
  console.log('(CPU: share of one core over the run, e.g. 150% = one and a half of the 2 cores; client = this whole process)');
  const ratio = many!.load.ok / many!.load.seconds / (ceiling!.ok / ceiling!.seconds);
  console.log(`\nIngest with ${fmt(SUBSCRIBERS)} subscribers against none: ${ratio.toFixed(2)} of the rate.`);
  console.log(
    `Server RSS: ${MiB(rssStart)} at start, ${MiB(rssBefore)} before the ${fmt(SUBSCRIBERS)} subscribers, ${MiB(many!.rss.idle)} with them connected and idle ` +
      `(${many!.rss.idle !== null && rssBefore !== null ? `${((many!.rss.idle - rssBefore) / SUBSCRIBERS / 1024).toFixed(0)} KiB per subscriber` : 'n/a'}), ` +
      `${MiB(many!.rss.peak)} at the peak under load, ${MiB(rssAfterClose)} a second after they closed.`,
  );

  const problems: string[] = [];
  for (const r of [one!, many!]) {
    const who = `${fmt(r.subscribers)} subscriber${r.subscribers === 1 ? '' : 's'}`;
    console.log(
      `\nCheck, ${who}: ${fmt(r.opened)} streams open; ${fmt(r.events)} events in the run (${fmt(r.batchEvents)} usage.batch_ingested; ${fmt(r.load.ok)} batches acknowledged), ` +
        `${fmt(r.deliveries)} deliveries of ${fmt(r.expectedDeliveries)} expected, ${fmt(r.missing)} missing, ${fmt(r.duplicates)} duplicates, ` +
        `${r.subscribersWrong} subscribers with a miss or duplicate, ${r.outOfOrder} out of cursor order; the last delivery ${fmt(r.drainMs)} ms after the load ended` +
        (r.before > 0 ? `; ${r.before} events from before the load left out` : '') +
        '.',
    );
    if (r.opened !== r.subscribers) problems.push(`${who}: ${r.subscribers - r.opened} streams did not open (${r.openFailed.join(' | ')})`);
    if (r.missing > 0) problems.push(`${who}: ${r.missing} deliveries missing over ${r.subscribersWrong} subscribers`);
    if (r.duplicates > 0) problems.push(`${who}: ${r.duplicates} duplicate deliveries`);
    if (r.batchEvents !== r.load.ok)
      problems.push(`${who}: ${r.load.ok} batches acknowledged but ${r.batchEvents} usage.batch_ingested events reached the subscribers`);
    if (r.outOfOrder > 0) problems.push(`${who}: ${r.outOfOrder} deliveries out of cursor order`);
    if (r.refusals.length > 0) problems.push(`${who}: refused in stream: ${r.refusals.join(' | ')}`);
    if (r.errors.length > 0) problems.push(`${who}: ${r.errors.join(' | ')}`);
    if (r.endedEarly > 0) problems.push(`${who}: ${r.endedEarly} streams ended by the server during the run`);
    if (r.load.other > 0 || r.load.refused > 0) problems.push(`${who}: ingest answered ${r.load.refused} 503s and ${r.load.other} other errors`);
  }
  console.log(
    problems.length === 0 ? '\nCheck: OK (every subscriber got every event of the run exactly once, in order).' : `\nCheck FAILED:\n- ${problems.join('\n- ')}`,
  );
  const p99 = q(many!.delays, 99);
  console.log(
    `Target p99 <= ${TARGET_P99_MS} ms with ${fmt(SUBSCRIBERS)} subscribers: ${p99 <= TARGET_P99_MS ? 'met' : 'not met'} (p99 ${ms(p99)} ms; 1 subscriber: ${ms(q(one!.delays, 99))} ms).`,
  );
  console.log(`Wall time ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  if (problems.length > 0) process.exitCode = 1;
}

if (isMainThread) await main();
else if ((workerData as { role?: string } | null)?.role === 'client') runClient();
