// Shared by the benchmark scripts: start bench-server.ts as a child and read its one JSON line,
// a bounded closed-loop HTTP load generator, and percentiles.
import { spawn, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';

export interface BenchServer {
  child: ChildProcess;
  info: {
    url: string;
    /** The demo workspace (ws_…). */
    workspaceId: string;
    dataDir: string;
    databaseFile: string | null;
    secretKey: string;
    productKey: string;
    customerId: string;
    productId: string;
    customerIds: string[];
    /** BENCH_PREPAID=1: 100 customers on a POSTPAID copy of the demo's Pro offering, and 100 on a PREPAID one holding 10 grants each. */
    postpaidCustomerIds?: string[];
    prepaidCustomerIds?: string[];
    /** The demo workspace's test-environment webhook sources, by provider key (payment, messaging…). */
    webhookSources: Record<string, { id: string; url: string; secret: string }>;
  };
  stop(): Promise<void>;
  cleanup(): void;
}

/**
 * `root` (or BENCH_SERVER_ROOT) is another checkout whose bench/bench-server.ts is started, in that
 * checkout, so that it runs that checkout's server code against this checkout's load generator
 * (bench/compare.ts starts a git ref's server this way); by default, this checkout's.
 */
export async function startBenchServer(env: Record<string, string> = {}, opts: { root?: string } = {}): Promise<BenchServer> {
  // BENCH_SERVER_NODE_ARGS passes flags to the server's node only, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const root = opts.root ?? (process.env.BENCH_SERVER_ROOT || undefined);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/bench-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
    ...(root ? { cwd: root } : {}),
  });
  // The server's own log lines (pino JSON, e.g. a start-up warning) may come first: the info line
  // is the first one with a url; the others go to stderr.
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const onLine = (l: string) => {
      if (l.startsWith('{"url":')) {
        lines.off('line', onLine);
        resolve(l);
      } else process.stderr.write(`${l}\n`);
    };
    lines.on('line', onLine);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const info = JSON.parse(line) as BenchServer['info'];
  return {
    child,
    info,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
    /** Removes the server's temporary data directory (after any reading of its file). */
    cleanup() {
      if (info.dataDir.includes('tollgate-bench-')) rmSync(info.dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A scratch database on a PostgreSQL server (BENCH_DATABASE_URL=postgres://…), dropped by `drop`.
 * pg is loaded only when asked for.
 */
export async function scratchPostgres(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `tg_bench_${Math.random().toString(36).slice(2, 10)}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(q).finally(() => c.end());
  };
  await admin(`create database ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A process's resident set (VmRSS) in bytes, read from /proc; null where there is no /proc. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A process's CPU time so far (user + system) in seconds, from /proc/<pid>/stat; null without /proc. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing paren).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface LoadResult {
  seconds: number;
  ok: number;
  refused: number;
  other: number;
  latenciesOk: number[];
}

/**
 * `connections` clients each send one request at a time for `seconds`. A 503 is answered as the
 * spec's retry guidance says: wait Retry-After seconds (bounded by the run's end), then retry.
 */
export async function closedLoop(opts: {
  connections: number;
  seconds: number;
  request: (i: number) => { url: string; init: RequestInit };
  /** Stops the run early once it returns true (checked before each request); `seconds` then bounds it. */
  until?: () => boolean;
}): Promise<LoadResult> {
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  const r: LoadResult = { seconds: opts.seconds, ok: 0, refused: 0, other: 0, latenciesOk: [] };
  let n = 0;
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < end && !opts.until?.()) {
        const { url, init } = opts.request(n++);
        const t0 = performance.now();
        const res = await fetch(url, init);
        await res.arrayBuffer();
        const dt = performance.now() - t0;
        if (res.status === 200) {
          r.ok += 1;
          r.latenciesOk.push(dt);
        } else if (res.status === 503) {
          r.refused += 1;
          const wait = Number(res.headers.get('retry-after') ?? '1') * 1000;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(wait, end - performance.now()))));
        } else {
          r.other += 1;
          if (r.other === 1) console.error(`unexpected ${res.status}: ${(await res.text?.().catch(() => '')) ?? ''}`);
        }
      }
    }),
  );
  r.latenciesOk.sort((a, b) => a - b);
  if (opts.until) r.seconds = (performance.now() - start) / 1000;
  return r;
}

/**
 * An open loop: requests sent at a fixed rate for `seconds`, each on its own, whatever the answers
 * (a gateway forwarding traffic does not wait for the last batch). A latency runs from the instant
 * the request was due, so a server that falls behind shows it (no coordinated omission). At most
 * `maxOutstanding` requests in flight: a request due beyond that is counted in `other` and not sent.
 */
export async function openLoop(opts: {
  perSecond: number;
  seconds: number;
  request: (i: number) => { url: string; init: RequestInit };
  /** Stops the run early once it returns true (checked before each request); `seconds` then bounds it. */
  until?: () => boolean;
  maxOutstanding?: number;
  /** The status counted in `ok` (200 unless given); `onOk` gets each such answer's body. */
  okStatus?: number;
  onOk?: (body: string) => void;
}): Promise<LoadResult> {
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  const gap = 1000 / opts.perSecond;
  const max = opts.maxOutstanding ?? 256;
  const r: LoadResult = { seconds: opts.seconds, ok: 0, refused: 0, other: 0, latenciesOk: [] };
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; ; i++) {
    const due = start + i * gap;
    if (due >= end || opts.until?.()) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight.size >= max) {
      r.other += 1;
      continue;
    }
    const { url, init } = opts.request(i);
    const p = (async () => {
      try {
        const res = await fetch(url, init);
        const body = opts.onOk ? await res.text() : (await res.arrayBuffer(), '');
        if (res.status === (opts.okStatus ?? 200)) {
          r.ok += 1;
          r.latenciesOk.push(performance.now() - due);
          opts.onOk?.(body);
        } else if (res.status === 503) r.refused += 1;
        else r.other += 1;
      } catch {
        r.other += 1;
      }
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  r.latenciesOk.sort((a, b) => a - b);
  r.seconds = Math.min(opts.seconds, (performance.now() - start) / 1000);
  return r;
}

/** Events per ingestion batch in the benchmarks. */
export const BATCH = 1000;

/**
 * `count` different 1,000-event batch bodies over the given customers, as a gateway would send
 * them. With `occurredAt`, every event carries that text as its time (a placeholder to replace at
 * send time, say); without, times spread over the last 10 minutes, fixed now.
 */
export function batchBodies(customerIds: string[], count: number, occurredAt?: string): string[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, b) =>
    JSON.stringify({
      events: Array.from({ length: BATCH }, (_, i) => ({
        customerId: customerIds[(b * 7 + i) % customerIds.length],
        metricName: i % 5 === 0 ? 'tokens' : 'api_calls',
        quantity: i % 5 === 0 ? 512 : 1,
        occurredAt: occurredAt ?? new Date(now - ((b * BATCH + i) % 600_000)).toISOString(),
        metadata: { method: 'GET', path: '/v1/search', statusCode: 200, latencyMs: 12 },
      })),
    }),
  );
}

/**
 * A worker thread running the TypeScript module at `moduleUrl` (its `isMainThread` false branch).
 * Node 20 does not apply the main thread's --import tsx hooks to workers: the worker registers
 * tsx itself, then loads the module.
 */
export function tsWorker(moduleUrl: string, workerData: unknown): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

export interface RetryingLoadResult extends LoadResult {
  /** Batches (each with its own idempotency key) accepted, possibly after retries. */
  accepted: number;
  /** Requests that were a retry of a batch answered 503. */
  retries: number;
  /** Batches still answered 503 after the last retry: the client gave them up. */
  givenUp: number;
}

/**
 * A closed loop whose clients follow the spec's retry rule: each batch carries its own
 * X-Idempotency-Key; a 503 waits Retry-After seconds (5 when absent) and sends the same request
 * again, at most `maxRetries` times, after which the batch counts as given up. A batch begun before
 * the run's end is seen through to its outcome (the run lasts longer by at most its retries' waits),
 * so no batch is counted as lost for want of time. `ok` counts the 200 answers received within the
 * run's seconds (the rate), `refused` every 503, the latencies every 200 (each attempt on its own).
 */
export async function retryingClosedLoop(opts: {
  connections: number;
  seconds: number;
  request: (i: number) => { url: string; init: RequestInit };
  maxRetries?: number;
}): Promise<RetryingLoadResult> {
  const maxRetries = opts.maxRetries ?? 3;
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  const r: RetryingLoadResult = { seconds: opts.seconds, ok: 0, refused: 0, other: 0, latenciesOk: [], accepted: 0, retries: 0, givenUp: 0 };
  const run = `${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  let n = 0;
  let okInTime = 0;
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < end) {
        const i = n++;
        const { url, init } = opts.request(i);
        const headers = { ...(init.headers as Record<string, string>), 'x-idempotency-key': `bench-${run}-${i}` };
        const sent = { ...init, headers };
        for (let attempt = 0; ; attempt++) {
          if (attempt > 0) r.retries += 1;
          const t0 = performance.now();
          const res = await fetch(url, sent);
          await res.arrayBuffer();
          const dt = performance.now() - t0;
          if (res.status === 200) {
            r.ok += 1;
            r.accepted += 1;
            if (t0 + dt <= end) okInTime += 1;
            r.latenciesOk.push(dt);
            break;
          }
          if (res.status !== 503) {
            r.other += 1;
            if (r.other === 1) console.error(`unexpected ${res.status}`);
            break;
          }
          r.refused += 1;
          if (attempt === maxRetries) {
            r.givenUp += 1;
            break;
          }
          const header = res.headers.get('retry-after');
          await new Promise((resolve) => setTimeout(resolve, Number(header ?? '5') * 1000));
        }
      }
    }),
  );
  // Throughput over the run's own seconds: batches answered after its end are not counted in it.
  r.ok = okInTime;
  r.latenciesOk.sort((a, b) => a - b);
  return r;
}

/** A small deterministic generator (mulberry32): the same seed gives the same data in every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
