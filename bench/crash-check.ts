// Crash safety of ingestion: concurrent clients send 1,000-event batches, each under its own
// X-Idempotency-Key, while the server is killed with SIGKILL at random moments and restarted on
// the same store. Every batch that got no answer (connection error, reset, 503) is sent again with
// the same key and the same body until it gets a 200. At the end the store itself is read: every
// event of every acknowledged batch must be there exactly once, nothing twice, and the per-month
// aggregates must add up to the events.
//
// Events carry no eventId, only a unique marker in their metadata ({"mark": "<batch key>:<i>"}),
// so the batch key is the only thing that stops a retry from counting a batch twice.
//
// Used by bench/crash-safety.ts (the CLI, `npm run bench:crash`) and by the short form in
// packages/server/test/crash-safety.test.ts. Everything runs on 127.0.0.1; the only processes it
// ends are the ones it started, by their PID; its temp dir and scratch database are removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { adminQuery } from '../packages/server/test/helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'packages/server/bin/tollgate.js');
export const BATCH_EVENTS = 1000;

export interface CrashCheckOptions {
  /** Load time in seconds, from the first server start (the run goes on until minKills kills). */
  seconds?: number;
  /** At least this many SIGKILLs before the load stops. */
  minKills?: number;
  /** Concurrent clients, each with one batch in flight at a time. */
  clients?: number;
  /** A PostgreSQL server: a scratch database is made on it and dropped at the end. Else SQLite. */
  databaseUrl?: string | null;
  /** Milliseconds a server runs under load before it is killed: uniform in [min, max]. */
  killAfterMs?: [number, number];
  /** Progress lines (kills, restarts); silent when absent. */
  log?: (line: string) => void;
  /** Ends the run early (the check then fails); cleanup still runs. */
  signal?: AbortSignal;
}

export interface CrashReport {
  ok: boolean;
  /** Everything found wrong, one line each (the first 50). */
  problems: string[];
  backend: 'sqlite' | 'postgres';
  store: string;
  clients: number;
  loadSeconds: number;
  kills: number;
  /** Requests that were in flight at the moments of the kills, summed. */
  inFlightAtKills: number;
  /** Mean milliseconds from a kill to the restarted server's banner. */
  meanRestartMs: number;
  batchesSent: number;
  acknowledged: number;
  /** Batches that got no answer because the server was killed, and were then sent again. */
  retriedAfterKill: number;
  /** ... of which the 200 was a replay: the first attempt had committed before the kill. */
  replayedAfterKill: number;
  /** Batches answered 503 at least once (retried after Retry-After). */
  retried503: number;
  /** Attempts that got no answer from a server that had not been killed (should be 0). */
  noAnswerWithoutKill: number;
  attempts: number;
  eventsChecked: number;
  eventsStored: number;
  duplicates: number;
  missing: number;
  /** Stored events of this workspace with no marker of a batch this run sent. */
  unexpected: number;
  /** sum(quantity_sum) of the demo customers' usage_aggregates rows. */
  aggregateSum: string;
  aggregateEventCount: number;
  /** Log lines at warn or above from all the servers of the run, and the first few of them. */
  serverWarnings: number;
  serverWarningSamples: string[];
}

interface DemoEnvironment {
  secretKey: string;
  customerId: string;
  metricNames: string[];
}
interface Demo {
  workspaceId: string;
  environments: { test: DemoEnvironment; live: DemoEnvironment };
}

interface Batch {
  key: string;
  body: string;
  environment: 'test' | 'live';
  acked: boolean;
  failed: boolean;
  replayed: boolean;
  noAnswerAfterKill: number;
  noAnswerOther: number;
  got503: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** Sends `sig` to `pid` alone; a process that is already gone is not an error. */
function signalPid(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** Only what node needs plus the run's own settings: nothing else leaks into the children. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k]) env[k] = process.env[k];
  return { ...env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', TOLLGATE_PROFILE: 'development', SEED_DEMO: 'false', ...extra };
}

/** Output kept from a child: the start in full (the banner is there), then only the last 16 KB. */
class Output {
  head = '';
  tail = '';
  add(d: string): void {
    if (this.head.length < 16_384) this.head += d;
    else this.tail = (this.tail + d).slice(-16_384);
  }
  toString(): string {
    return this.tail ? `${this.head}\n…\n${this.tail}` : this.head;
  }
}

/** Every child one run started, so that its cleanup can end any still running, by PID. */
class Children {
  private readonly running = new Set<ChildProcess>();

  track(child: ChildProcess): void {
    this.running.add(child);
    child.once('exit', () => this.running.delete(child));
    child.once('error', () => {
      if (child.pid === undefined) this.running.delete(child);
    });
  }

  killAll(): void {
    for (const child of this.running) signalPid(child.pid, 'SIGKILL');
  }
}

function runCli(
  children: Children,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    children.track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      signalPid(child.pid, 'SIGKILL');
      reject(new Error(`tollgate ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** One `tollgate serve` child on PORT=0; its address comes from the start-up banner. */
class ServeChild {
  readonly out = new Output();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited = false;
  private readonly child: ChildProcess;

  constructor(children: Children, env: Record<string, string>, onWarning: (line: string) => void) {
    this.child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env: childEnv({ ...env, PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.track(this.child);
    let partial = '';
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.out.add(d);
      // Logs are JSON lines (LOG_LEVEL=warn, so only warnings and errors).
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('{') && /"level":\s*[4-6]\d/.test(line)) onWarning(line);
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => this.out.add(d));
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.hasExited = true;
        resolve({ code, signal });
      });
      this.child.on('error', (err) => {
        this.out.add(`${err}\n`);
        if (this.child.pid === undefined) {
          this.hasExited = true;
          resolve({ code: null, signal: null });
        }
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The base URL from the banner; only a loopback address is accepted. */
  async started(timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = /Tollgate is running at (http:\/\/127\.0\.0\.1:\d+) /.exec(this.out.head);
      if (m) return m[1] as string;
      if (this.hasExited) throw new Error(`tollgate serve exited before its banner:\n${this.out.toString()}`);
      if (Date.now() > deadline) throw new Error(`tollgate serve printed no banner in ${timeoutMs} ms:\n${this.out.toString()}`);
      await sleep(10);
    }
  }

  async kill(): Promise<void> {
    signalPid(this.child.pid, 'SIGKILL');
    await this.exited;
  }

  /** SIGTERM (the clean shutdown), SIGKILL if still running 10 s later. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.hasExited) return this.exited;
    signalPid(this.child.pid, 'SIGTERM');
    const timer = setTimeout(() => signalPid(this.child.pid, 'SIGKILL'), 10_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The one server of the run: started, killed and restarted on the same store. Clients ask it for
 * the live address; while it is down they wait for the next one.
 */
class Supervisor {
  generation = 0;
  url = '';
  alive = false;
  current: ServeChild | null = null;
  /** Generations that were killed: a request that failed against one of them failed because of a kill. */
  readonly killed = new Set<number>();
  fatal: Error | null = null;
  inFlight = 0;
  warnings = 0;
  readonly warningSamples: string[] = [];
  /** When the current server printed its banner, and when it first answered a batch with a 200. */
  upAt = 0;
  firstAckAt: number | null = null;
  private waiters: Array<{ resolve: (v: { generation: number; url: string }) => void; reject: (e: Error) => void }> = [];

  constructor(
    private readonly children: Children,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<number> {
    const t0 = performance.now();
    let lastError: unknown;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const server = new ServeChild(this.children, this.env, (line) => {
        this.warnings += 1;
        if (this.warningSamples.length < 5) this.warningSamples.push(`pid ${server.pid}: ${line.slice(0, 500)}`);
      });
      this.current = server;
      try {
        this.url = await server.started();
        this.generation += 1;
        this.alive = true;
        this.upAt = performance.now();
        this.firstAckAt = null;
        const generation = this.generation;
        // A server that dies without being killed is a failure of the check, not something to retry.
        void server.exited.then((exit) => {
          if (this.alive && this.generation === generation) {
            this.alive = false;
            this.fail(new Error(`tollgate serve (pid ${server.pid}) exited by itself (${exit.signal ?? `code ${exit.code}`}):\n${server.out.toString()}`));
          }
        });
        for (const w of this.waiters.splice(0)) w.resolve({ generation: this.generation, url: this.url });
        return performance.now() - t0;
      } catch (err) {
        lastError = err;
        await server.kill();
      }
    }
    this.fail(new Error(`the server did not start (3 attempts): ${(lastError as Error).message}`));
    throw this.fatal!;
  }

  fail(err: Error): void {
    this.fatal ??= err;
    for (const w of this.waiters.splice(0)) w.reject(this.fatal);
  }

  live(): Promise<{ generation: number; url: string }> {
    if (this.fatal) return Promise.reject(this.fatal);
    if (this.alive) return Promise.resolve({ generation: this.generation, url: this.url });
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Marks the generation killed before the signal, so every failure it causes is counted as one. */
  async kill(): Promise<void> {
    this.alive = false;
    this.killed.add(this.generation);
    await this.current?.kill();
  }

  async stop(): Promise<void> {
    this.alive = false;
    // One that already ended (by itself: a failure already reported) has nothing to stop.
    if (this.current && !this.current.hasExited) {
      const exit = await this.current.stop();
      if (exit.code !== 0) throw new Error(`tollgate serve ended with ${exit.signal ?? `code ${exit.code}`} on SIGTERM:\n${this.current.out.toString()}`);
    }
  }
}

function batchBody(key: string, customerId: string, metrics: string[]): string {
  const occurredAt = new Date().toISOString();
  const events = new Array(BATCH_EVENTS);
  for (let i = 0; i < BATCH_EVENTS; i++) {
    events[i] = { customerId, metricName: metrics[i % metrics.length], quantity: 1, occurredAt, metadata: { mark: `${key}:${i}` } };
  }
  return JSON.stringify({ events });
}

/** A decimal string with no fraction (or only zeros after the point) as a bigint; null otherwise. */
function wholeDecimal(s: string): bigint | null {
  const m = /^(\d+)(?:\.0*)?$/.exec(s.trim());
  return m ? BigInt(m[1] as string) : null;
}

interface StoredBatch {
  n: number;
  distinct: number;
  lo: number;
  hi: number;
}
interface StoredGroup {
  environment: string;
  customerId: string;
  metricName: string;
  events: number;
  quantity: string;
}
interface AggregateRow {
  environment: string;
  customerId: string;
  metricName: string;
  quantitySum: string;
  eventCount: number;
}
interface Stored {
  total: number;
  unmarked: number;
  perBatch: Map<string, StoredBatch>;
  duplicateSamples: Array<{ mark: string; copies: number; rows: string }>;
  groups: StoredGroup[];
  aggregates: AggregateRow[];
}

// The marker is "<36-character UUID>:<index>".
const SQLITE_MARKS = `
  select substr(m, 1, 36) as b, count(*) as n, count(distinct m) as d,
         min(cast(substr(m, 38) as integer)) as lo, max(cast(substr(m, 38) as integer)) as hi
  from (select json_extract(metadata, '$.mark') as m from usage_events where workspace_id = ?)
  where m is not null group by b`;
const PG_MARKS = `
  select substr(m, 1, 36) as b, count(*)::int as n, count(distinct m)::int as d,
         min(substr(m, 38)::int) as lo, max(substr(m, 38)::int) as hi
  from (select metadata::jsonb ->> 'mark' as m from usage_events where workspace_id = $1) t
  where m is not null group by b`;

function readSqlite(file: string, workspaceId: string): Stored {
  const db = new SQLite(file, { fileMustExist: true });
  registerDecSum(db);
  try {
    const total = (db.prepare('select count(*) as n from usage_events where workspace_id = ?').get(workspaceId) as { n: number }).n;
    const unmarked = (
      db.prepare(`select count(*) as n from usage_events where workspace_id = ? and json_extract(metadata, '$.mark') is null`).get(workspaceId) as { n: number }
    ).n;
    const perBatch = new Map<string, StoredBatch>();
    for (const r of db.prepare(SQLITE_MARKS).all(workspaceId) as Array<{ b: string; n: number; d: number; lo: number; hi: number }>) {
      perBatch.set(r.b, { n: r.n, distinct: r.d, lo: r.lo, hi: r.hi });
    }
    const duplicateSamples = (
      db
        .prepare(
          `select json_extract(metadata, '$.mark') as mark, count(*) as copies,
                  group_concat('seq ' || seq || ' received_at ' || received_at, '; ') as rows
           from usage_events where workspace_id = ? group by mark having mark is not null and count(*) > 1 limit 10`,
        )
        .all(workspaceId) as Array<{ mark: string; copies: number; rows: string }>
    ).map((r) => ({ mark: r.mark, copies: r.copies, rows: r.rows }));
    const groups = (
      db
        .prepare(
          `select environment, customer_id as customerId, metric_name as metricName, count(*) as events, dec_sum(quantity) as quantity
           from usage_events where workspace_id = ? group by 1, 2, 3`,
        )
        .all(workspaceId) as Array<Omit<StoredGroup, 'quantity'> & { quantity: unknown }>
    ).map((g) => ({ ...g, quantity: String(g.quantity) }));
    const aggregates = db
      .prepare(
        `select environment, customer_id as customerId, metric_name as metricName, quantity_sum as quantitySum, event_count as eventCount
         from usage_aggregates where workspace_id = ? and dimension = ''`,
      )
      .all(workspaceId) as AggregateRow[];
    return { total, unmarked, perBatch, duplicateSamples, groups, aggregates };
  } finally {
    db.close();
  }
}

// A sum of the stored quantities without the server's dec_add: exact for the whole numbers sent here.
function registerDecSum(db: SQLite.Database): void {
  db.aggregate('dec_sum', {
    start: () => 0n,
    step: (total: bigint, value: unknown) => total + (wholeDecimal(String(value)) ?? 0n),
    result: (total: bigint) => total.toString(),
  });
}

async function readPostgres(url: string, workspaceId: string): Promise<Stored> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const q = async <T>(text: string): Promise<T[]> => (await client.query(text, [workspaceId])).rows as T[];
    const total = Number((await q<{ n: string }>('select count(*) as n from usage_events where workspace_id = $1'))[0]?.n ?? 0);
    const unmarked = Number(
      (await q<{ n: string }>(`select count(*) as n from usage_events where workspace_id = $1 and (metadata::jsonb ->> 'mark') is null`))[0]?.n ?? 0,
    );
    const perBatch = new Map<string, StoredBatch>();
    for (const r of await q<{ b: string; n: number; d: number; lo: number; hi: number }>(PG_MARKS)) {
      perBatch.set(r.b, { n: r.n, distinct: r.d, lo: r.lo, hi: r.hi });
    }
    const duplicateSamples = (
      await q<{ mark: string; copies: string; rows: string }>(
        `select metadata::jsonb ->> 'mark' as mark, count(*) as copies,
                string_agg('seq ' || seq || ' received_at ' || received_at, '; ') as rows
         from usage_events where workspace_id = $1 and (metadata::jsonb ->> 'mark') is not null
         group by 1 having count(*) > 1 limit 10`,
      )
    ).map((r) => ({ mark: r.mark, copies: Number(r.copies), rows: r.rows }));
    const groups = (
      await q<{ environment: string; customerId: string; metricName: string; events: string; quantity: string }>(
        `select environment, customer_id as "customerId", metric_name as "metricName", count(*) as events, sum(quantity::numeric)::text as quantity
         from usage_events where workspace_id = $1 group by 1, 2, 3`,
      )
    ).map((g) => ({ ...g, events: Number(g.events) }));
    const aggregates = (
      await q<{ environment: string; customerId: string; metricName: string; quantitySum: string; eventCount: string }>(
        `select environment, customer_id as "customerId", metric_name as "metricName", quantity_sum as "quantitySum", event_count as "eventCount"
         from usage_aggregates where workspace_id = $1 and dimension = ''`,
      )
    ).map((a) => ({ ...a, eventCount: Number(a.eventCount) }));
    return { total, unmarked, perBatch, duplicateSamples, groups, aggregates };
  } finally {
    await client.end();
  }
}

export async function runCrashCheck(options: CrashCheckOptions = {}): Promise<CrashReport> {
  const seconds = options.seconds ?? 30;
  const minKills = options.minKills ?? 5;
  const clients = options.clients ?? 6;
  const [killMin, killMax] = options.killAfterMs ?? [300, 1500];
  const log = options.log ?? (() => undefined);
  const backend = options.databaseUrl ? 'postgres' : 'sqlite';
  const problems: string[] = [];
  const problem = (line: string) => {
    if (problems.length < 50) problems.push(line);
    else if (problems.length === 50) problems.push('… (further problems not listed)');
  };

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tollgate-crash-'));
  const dataDir = path.join(tmp, 'data');
  let scratchDb: string | null = null;
  let storeUrl: string | null = null;
  let supervisor: Supervisor | null = null;
  const children = new Children();
  const report: CrashReport = {
    ok: false,
    problems,
    backend,
    store: '',
    clients,
    loadSeconds: 0,
    kills: 0,
    inFlightAtKills: 0,
    meanRestartMs: 0,
    batchesSent: 0,
    acknowledged: 0,
    retriedAfterKill: 0,
    replayedAfterKill: 0,
    retried503: 0,
    noAnswerWithoutKill: 0,
    attempts: 0,
    eventsChecked: 0,
    eventsStored: 0,
    duplicates: 0,
    missing: 0,
    unexpected: 0,
    aggregateSum: '0',
    aggregateEventCount: 0,
    serverWarnings: 0,
    serverWarningSamples: [],
  };

  try {
    // The store: a temp DATA_DIR (SQLite), or a scratch database on the given PostgreSQL server.
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (options.databaseUrl) {
      scratchDb = `tg_crash_${randomBytes(6).toString('hex')}`;
      await adminQuery(options.databaseUrl, `CREATE DATABASE ${scratchDb}`);
      const u = new URL(options.databaseUrl);
      u.pathname = `/${scratchDb}`;
      storeUrl = u.toString();
      env.DATABASE_URL = storeUrl;
      report.store = `PostgreSQL ${u.hostname}:${u.port || 5432}/${scratchDb}`;
    } else {
      report.store = `SQLite ${path.join(dataDir, 'tollgate.db')}`;
    }

    // Keys and ids from the CLI, and the workspace's rate limit out of the way.
    const made = await runCli(children, ['demo', '--json'], env);
    if (made.status !== 0) throw new Error(`tollgate demo --json failed (${made.status}): ${made.stderr}`);
    const demo = JSON.parse(made.stdout) as Demo;
    const limited = await runCli(children, ['workspace', 'set-rate-limit', '--id', demo.workspaceId, '--per-minute', '10000000'], env);
    if (limited.status !== 0) throw new Error(`tollgate workspace set-rate-limit failed (${limited.status}): ${limited.stderr}`);

    const sup = new Supervisor(children, env);
    supervisor = sup;
    await sup.start();
    const loadStart = performance.now();
    log(`server (pid ${sup.current?.pid}) up at ${sup.url} on ${report.store}; ${clients} clients, ${seconds} s, at least ${minKills} kills`);

    const batches: Batch[] = [];
    let stopSending = false;
    const aborted = () => options.signal?.aborted === true;

    /** Sends one batch until it gets a 200 (or a definite failure); the same key and body each time. */
    async function deliver(b: Batch): Promise<void> {
      let serverErrors = 0;
      for (;;) {
        if (aborted()) return;
        let srv: { generation: number; url: string };
        try {
          srv = await sup.live();
        } catch {
          return; // the run failed; the reason is in sup.fatal
        }
        report.attempts += 1;
        const keys = demo.environments[b.environment];
        let status: number;
        let text: string;
        let retryAfter: string | null;
        sup.inFlight += 1;
        try {
          const res = await fetch(`${srv.url}/v1/ingest/batch`, {
            method: 'POST',
            headers: { authorization: `Bearer ${keys.secretKey}`, 'content-type': 'application/json', 'x-idempotency-key': b.key },
            body: b.body,
            signal: AbortSignal.timeout(60_000),
          });
          text = await res.text();
          status = res.status;
          retryAfter = res.headers.get('retry-after');
        } catch (err) {
          // No answer. If this server was killed, that is why; otherwise it is worth a line.
          if (sup.killed.has(srv.generation)) b.noAnswerAfterKill += 1;
          else {
            b.noAnswerOther += 1;
            report.noAnswerWithoutKill += 1;
            const cause = (err as { cause?: { code?: string; message?: string } }).cause;
            if (report.noAnswerWithoutKill <= 20) {
              log(`batch ${b.key}: no answer from a live server (${(err as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ''}); retrying`);
            }
          }
          await sleep(b.noAnswerOther > 0 ? 100 : 5);
          continue;
        } finally {
          sup.inFlight -= 1;
        }
        if (status === 200) {
          let body: { accepted?: unknown; duplicates?: unknown; idempotentReplay?: unknown };
          try {
            body = JSON.parse(text) as typeof body;
          } catch {
            problem(`batch ${b.key}: 200 with a body that is not JSON: ${text.slice(0, 200)}`);
            b.failed = true;
            return;
          }
          if (body.accepted !== BATCH_EVENTS || body.duplicates !== 0) {
            problem(
              `batch ${b.key}: 200 saying accepted ${String(body.accepted)}, duplicates ${String(body.duplicates)} (expected ${BATCH_EVENTS} and 0): ${text.slice(0, 300)}`,
            );
          }
          const retried = b.noAnswerAfterKill + b.noAnswerOther + b.got503 > 0;
          if (body.idempotentReplay === true && !retried) {
            problem(`batch ${b.key}: its first attempt was answered as an idempotent replay`);
          }
          b.replayed = body.idempotentReplay === true;
          b.acked = true;
          if (srv.generation === sup.generation && sup.firstAckAt === null) sup.firstAckAt = performance.now();
          return;
        }
        if (status === 503) {
          b.got503 += 1;
          const wait = Number(retryAfter ?? '1');
          await sleep((Number.isFinite(wait) && wait >= 0 ? Math.min(wait, 10) : 1) * 1000);
          continue;
        }
        const attempt = `attempt ${b.noAnswerAfterKill + b.noAnswerOther + b.got503 + serverErrors + 1}`;
        const history = `after ${b.noAnswerAfterKill} no-answer(s) from killed servers, ${b.noAnswerOther} other, ${b.got503} 503s`;
        problem(`batch ${b.key} (${b.environment}): ${attempt} answered ${status} ${history}: ${text.slice(0, 300)}`);
        if (status >= 500 && ++serverErrors < 5) {
          await sleep(200);
          continue; // a 5xx other than 503 fails the check, but the batch is still driven to a 200 if it can be
        }
        b.failed = true;
        return;
      }
    }

    const clientLoops = Array.from({ length: clients }, async (_, c) => {
      const environment = c % 2 === 0 ? ('test' as const) : ('live' as const);
      const keys = demo.environments[environment];
      while (!stopSending && !sup.fatal && !aborted()) {
        const key = randomUUID();
        const b: Batch = {
          key,
          body: batchBody(key, keys.customerId, keys.metricNames),
          environment,
          acked: false,
          failed: false,
          replayed: false,
          noAnswerAfterKill: 0,
          noAnswerOther: 0,
          got503: 0,
        };
        batches.push(b);
        await deliver(b);
        b.body = ''; // the body is only needed until the batch is settled
      }
    });

    // Kill at random moments of the servers' uptime, restart on the same store, until the time is
    // up and at least minKills kills happened.
    const restarts: number[] = [];
    const loadMs = seconds * 1000;
    while (!aborted() && !sup.fatal) {
      const elapsed = performance.now() - loadStart;
      if (elapsed >= loadMs && report.kills >= minKills) break;
      const wait = killMin + Math.random() * (killMax - killMin);
      const untilEnd = report.kills >= minKills ? loadMs - elapsed : Infinity;
      await sleep(Math.min(wait, untilEnd));
      if (performance.now() - loadStart >= loadMs && report.kills >= minKills) break;
      if (aborted() || sup.fatal) break;
      const inFlight = sup.inFlight;
      const pid = sup.current?.pid;
      const killAt = performance.now();
      const firstAck = sup.firstAckAt === null ? 'no 200 yet' : `first 200 ${((sup.firstAckAt - sup.upAt) / 1000).toFixed(1)} s after its banner`;
      const upFor = ((killAt - sup.upAt) / 1000).toFixed(1);
      await sup.kill();
      report.kills += 1;
      report.inFlightAtKills += inFlight;
      const restartMs = await sup.start();
      restarts.push(restartMs);
      log(
        `kill ${report.kills} at ${((killAt - loadStart) / 1000).toFixed(1)} s: SIGKILL to pid ${pid} (up ${upFor} s, ${firstAck}) with ${inFlight} requests in flight; ` +
          `restarted in ${(restartMs / 1000).toFixed(1)} s (pid ${sup.current?.pid})`,
      );
    }
    report.loadSeconds = (performance.now() - loadStart) / 1000;
    report.meanRestartMs = restarts.length ? restarts.reduce((a, b) => a + b, 0) / restarts.length : 0;

    // Drain: no new batches; every pending one is driven to its answer against the live server.
    stopSending = true;
    let drainTimer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      Promise.all(clientLoops).then(() => true),
      new Promise<boolean>((resolve) => (drainTimer = setTimeout(() => resolve(false), 120_000))),
    ]);
    clearTimeout(drainTimer);
    if (!drained) {
      sup.fail(new Error('the pending batches did not drain in 120 s'));
      problem('the pending batches did not drain in 120 s after the load stopped');
    }
    if (aborted()) problem('the run was interrupted');
    if (sup.fatal) problem(sup.fatal.message);
    await sup.stop().catch((err) => problem((err as Error).message));
    report.serverWarnings = sup.warnings;
    report.serverWarningSamples = sup.warningSamples;

    // The store itself.
    const stored = storeUrl ? await readPostgres(storeUrl, demo.workspaceId) : readSqlite(path.join(dataDir, 'tollgate.db'), demo.workspaceId);
    verify(report, problem, batches, stored, demo);
  } catch (err) {
    problem(`the check could not run to the end: ${(err as Error).stack ?? String(err)}`);
  } finally {
    // Only what this run started, by PID; then the scratch database and the temp dir.
    if (supervisor?.current && !supervisor.current.hasExited) await supervisor.current.kill().catch(() => undefined);
    children.killAll();
    if (scratchDb && options.databaseUrl) {
      await adminQuery(options.databaseUrl, `DROP DATABASE IF EXISTS ${scratchDb} WITH (FORCE)`).catch((err) =>
        problem(`could not drop the scratch database ${scratchDb}: ${(err as Error).message}`),
      );
    }
    rmSync(tmp, { recursive: true, force: true });
  }
  report.ok = problems.length === 0;
  return report;
}

function verify(report: CrashReport, problem: (line: string) => void, batches: Batch[], stored: Stored, demo: Demo): void {
  report.batchesSent = batches.length;
  report.eventsStored = stored.total;
  const sent = new Map(batches.map((b) => [b.key, b]));
  for (const b of batches) {
    if (b.acked) report.acknowledged += 1;
    if (b.noAnswerAfterKill > 0) {
      report.retriedAfterKill += 1;
      if (b.acked && b.replayed) report.replayedAfterKill += 1;
    }
    if (b.got503 > 0) report.retried503 += 1;
    const s = stored.perBatch.get(b.key);
    const extra = s ? s.n - s.distinct : 0;
    report.duplicates += extra;
    if (extra > 0) {
      problem(
        `batch ${b.key} (${b.environment}): ${s!.n} events stored for ${s!.distinct} distinct markers (${extra} stored twice); ` +
          `its answer: ${b.acked ? `200${b.replayed ? ' (replay)' : ''}` : 'none'}, after ${b.noAnswerAfterKill} no-answer(s) from killed servers, ${b.noAnswerOther} other, ${b.got503} 503s`,
      );
    }
    if (b.acked) {
      report.eventsChecked += BATCH_EVENTS;
      const missing = BATCH_EVENTS - (s?.distinct ?? 0);
      report.missing += missing;
      if (missing > 0) {
        problem(
          `batch ${b.key} (${b.environment}) got a 200${b.replayed ? ' (replay)' : ''} after ${b.noAnswerAfterKill} no-answer(s) from killed servers, ` +
            `but ${missing} of its ${BATCH_EVENTS} events are not stored`,
        );
      }
      if (s && (s.lo !== 0 || s.hi !== BATCH_EVENTS - 1)) problem(`batch ${b.key}: stored markers run from ${s.lo} to ${s.hi}, not 0 to ${BATCH_EVENTS - 1}`);
    } else if (s && s.distinct !== BATCH_EVENTS) {
      // A batch that never got its 200: all or nothing still holds.
      problem(`batch ${b.key} (${b.environment}) never got a 200 and ${s.distinct} of its ${BATCH_EVENTS} events are stored (all or nothing was broken)`);
    }
  }
  for (const [key, s] of stored.perBatch) {
    if (sent.has(key)) continue;
    report.unexpected += s.n;
    problem(`${s.n} stored events carry marker ${key}, which no batch of this run had`);
  }
  if (stored.unmarked > 0) {
    report.unexpected += stored.unmarked;
    problem(`${stored.unmarked} stored events of the workspace carry no marker`);
  }
  for (const d of stored.duplicateSamples) problem(`marker ${d.mark} is stored ${d.copies} times: ${d.rows}`);
  const accounted = [...stored.perBatch.values()].reduce((a, s) => a + s.n, 0) + stored.unmarked;
  if (accounted !== stored.total) problem(`${stored.total} events stored but ${accounted} accounted for by markers`);
  const expectedTotal = report.acknowledged * BATCH_EVENTS;
  if (report.acknowledged === batches.length && stored.total !== expectedTotal) {
    problem(`${stored.total} events stored for ${report.acknowledged} acknowledged batches (${expectedTotal} expected)`);
  }

  // The aggregates: per (environment, customer, metric), the sum and count equal the stored events.
  const demoCustomers = new Set([demo.environments.test.customerId, demo.environments.live.customerId]);
  const k = (g: { environment: string; customerId: string; metricName: string }) => `${g.environment}/${g.customerId}/${g.metricName}`;
  const byGroup = new Map<string, { events: number; quantity: bigint; aggSum: bigint; aggCount: number }>();
  for (const g of stored.groups) {
    const q = wholeDecimal(g.quantity);
    if (q === null) problem(`events of ${k(g)} have quantities summing to ${g.quantity}, not a whole number`);
    byGroup.set(k(g), { events: g.events, quantity: q ?? 0n, aggSum: 0n, aggCount: 0 });
    if (!demoCustomers.has(g.customerId)) problem(`${g.events} events stored for ${g.customerId}, not a demo customer`);
  }
  let aggSum = 0n;
  let aggCount = 0;
  for (const a of stored.aggregates) {
    const sum = wholeDecimal(a.quantitySum);
    if (sum === null) {
      problem(`usage_aggregates ${k(a)}: quantity_sum ${a.quantitySum} is not a whole number`);
      continue;
    }
    if (demoCustomers.has(a.customerId)) {
      aggSum += sum;
      aggCount += a.eventCount;
    }
    const g = byGroup.get(k(a)) ?? { events: 0, quantity: 0n, aggSum: 0n, aggCount: 0 };
    g.aggSum += sum;
    g.aggCount += a.eventCount;
    byGroup.set(k(a), g);
  }
  for (const [key, g] of byGroup) {
    if (g.aggSum !== BigInt(g.events) || g.aggCount !== g.events || g.quantity !== BigInt(g.events)) {
      problem(`${key}: ${g.events} events stored (quantities summing to ${g.quantity}), usage_aggregates say sum ${g.aggSum} over ${g.aggCount} events`);
    }
  }
  report.aggregateSum = aggSum.toString();
  report.aggregateEventCount = aggCount;
  if (aggSum !== BigInt(stored.total))
    problem(`usage_aggregates sum ${aggSum} for the demo customers, but ${stored.total} events (quantity 1 each) are stored`);
}

const n = (x: number) => x.toLocaleString('en-US');

export function formatReport(r: CrashReport): string {
  const rows: Array<[string, string]> = [
    ['store', r.store],
    ['clients', `${r.clients} (1,000-event batches, each with its own X-Idempotency-Key, no eventIds)`],
    ['load', `${r.loadSeconds.toFixed(1)} s`],
    ['kills (SIGKILL)', `${n(r.kills)} (requests in flight at the kills: ${n(r.inFlightAtKills)}; mean restart ${(r.meanRestartMs / 1000).toFixed(1)} s)`],
    ['batches sent', n(r.batchesSent)],
    ['acknowledged (200)', n(r.acknowledged)],
    ['retried after a kill', `${n(r.retriedAfterKill)} (answered as idempotent replays: ${n(r.replayedAfterKill)})`],
    ['retried after a 503', n(r.retried503)],
    ['no answer without a kill', n(r.noAnswerWithoutKill)],
    ['requests', n(r.attempts)],
    ['events checked', n(r.eventsChecked)],
    ['events stored', n(r.eventsStored)],
    ['duplicates found', n(r.duplicates)],
    ['missing', n(r.missing)],
    ['unexpected events', n(r.unexpected)],
    ['usage_aggregates', `sum ${n(Number(r.aggregateSum))} over ${n(r.aggregateEventCount)} events (demo customers)`],
    ['server warnings/errors', `${n(r.serverWarnings)} log lines`],
  ];
  const width = Math.max(...rows.map(([a]) => a.length));
  const lines = [`Crash safety (${r.backend}): ${r.ok ? 'OK' : 'FAILED'}`, ...rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`)];
  if (r.serverWarningSamples.length > 0) lines.push('Server log lines at warn or above (first ones):', ...r.serverWarningSamples.map((w) => `  ${w}`));
  if (r.problems.length > 0) lines.push('Problems:', ...r.problems.map((p) => `  - ${p}`));
  return lines.join('\n');
}
