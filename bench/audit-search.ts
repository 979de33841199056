// Audit search over ten million events of one workspace (SQLite, or PostgreSQL): the
// repository's own listAuditEvents with filters parsed by parseAuditFilter, a page of 50, newest
// first, for a table of queries, each run with varying words and values; against the ceiling of
// the same run, the newest page with no filter (the tenant index walked from its end).
// Target: p99 <= 200 ms for a filtered query.
// Run: npm run bench:audit-search   (10M events: 6 to 13 min to generate on the 2-core machine,
//      then 1 to 3 min to measure; each query runs in a worker thread that is stopped past its
//      budget, so a query that regresses to seconds cannot stall the run)
//      npm run bench:audit-search:pg   the same on PostgreSQL (BENCH_AUDIT_BACKEND=postgres): a
//      scratch database on the server of TEST_DATABASE_URL (default
//      postgres://postgres@127.0.0.1:5432/test), dropped at the end; BENCH_AUDIT_PG_URL=
//      postgres://.../name keeps that database instead and reuses it.
//      BENCH_AUDIT_EVENTS (default 10,000,000 events to generate; several minutes, with progress),
//      BENCH_AUDIT_DB=/path/audit.db keeps the generated SQLite database (and /path/audit.db.json,
//      its workspace and key) and reuses it when it holds enough events; without it, a temporary
//      directory is used and removed at the end.
//      BENCH_RUNS (measured runs per query, default 50), BENCH_QUERY_BUDGET_S (per query, default
//      60: a query that takes longer stops early and says so), BENCH_GENERATE_BUDGET_S (default
//      3600: generation stops there and the run goes on with what was written), BENCH_HTTP=0 skips
//      the HTTP comparison.
// 127.0.0.1 only; stops by itself.
//
// The events are written straight into the database the server's migrations made, row for row
// what recordAudit writes: audit_events (seq in commit order, time-sortable evt_ ids over 364
// days) and the FTS5 table audit_events_fts (rowid = seq, ftsDocument: the event's words, type
// and severity, scoped to the tenant), or on PostgreSQL the tsvector column. About 20 event types
// (usage.batch_ingested 60%), severities by type, a few hundred key ids as actors, payloads with
// names, e-mails and a few words drawn (Zipf) from a vocabulary of 3,000, correlation ids shared
// by the events of one request.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { sql, type RawBuilder } from 'kysely';
import { buildApp } from '../packages/server/src/app.js';
import { loadConfig } from '../packages/server/src/lib/config.js';
import { openDatabase, type OpenedDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { compose } from '../packages/server/src/compose.js';
import { createIdGenerator, idFloor } from '../packages/server/src/lib/ids.js';
import { listAuditEvents } from '../packages/server/src/modules/audit/audit-search.repository.js';
import { filterErrors, type AuditFilterQuery } from '../packages/server/src/modules/audit/audit-filter.js';
import { auditSearchText, ftsDocument, ftsScope, tsDocument } from '../packages/server/src/modules/audit/audit-search-text.js';
import { prng, scratchPostgres } from './lib.js';
import { createDemoWorkspace } from '../packages/server/src/demo/create-demo-workspace.js';
import { setWorkspaceRateLimit } from '../packages/server/src/modules/tenancy/workspace.repository.js';
import type { Tenant } from '../packages/server/src/lib/tenant.js';

const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 10_000_000);
const CACHE = process.env.BENCH_AUDIT_DB ? path.resolve(process.env.BENCH_AUDIT_DB) : null;
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const WARMUP_RUNS = 3;
const QUERY_BUDGET_MS = Number(process.env.BENCH_QUERY_BUDGET_S ?? 60) * 1000;
const GENERATE_BUDGET_MS = Number(process.env.BENCH_GENERATE_BUDGET_S ?? 3600) * 1000;
const WITH_HTTP = process.env.BENCH_HTTP !== '0';
const BACKEND: 'sqlite' | 'postgres' = process.env.BENCH_AUDIT_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
const PG_KEEP_URL = process.env.BENCH_AUDIT_PG_URL ?? null;
const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PG_ROWS_PER_STATEMENT = 500;
const TARGET_P99_MS = 200;
const PAGE = 50;
const DAY = 86_400_000;
const SPAN_MS = 364 * DAY;
const ROWS_PER_TX = 50_000;
const ROWS_PER_STATEMENT = 50;
const SEED = 20261123;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------
// Deterministic data: the same seed gives the same vocabulary, so a reused database is queried
// with the words it holds.

const SYLLABLES =
  'ba be bi bo bu da de di do du fa fe fi fo ga ge gi go ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zo'.split(
    ' ',
  );
const ENDINGS = ['', 'n', 'r', 's', 'l', 'x', 'nd', 'st', 'rk'];

/** Pseudo-words of 2 to 4 syllables, distinct, none an English word the events otherwise hold. */
function makeWords(count: number, rand: () => number, taken: Set<string>): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    w += ENDINGS[Math.floor(rand() * ENDINGS.length)];
    if (taken.has(w)) continue;
    taken.add(w);
    out.push(w);
  }
  return out;
}

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

/** 16 base32 digits (80 bits) from the PRNG; the first below 16, as createIdGenerator leaves headroom. */
function randomPart(rand: () => number): string {
  let out = BASE32[Math.floor(rand() * 16)]!;
  for (let i = 1; i < 16; i++) out += BASE32[Math.floor(rand() * 32)]!;
  return out;
}

/** Zipf (s = 1) over ranks 1..n: rank r is drawn with probability proportional to 1/r. */
function zipf(n: number) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 1; r <= n; r++) cdf[r - 1] = sum += 1 / r;
  for (let i = 0; i < n; i++) cdf[i]! /= sum;
  return (u: number) => {
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo; // 0-based rank
  };
}

const VOCABULARY_SIZE = 3000;

interface Model {
  vocabulary: string[];
  firstNames: string[];
  lastNames: string[];
}

export function model(): Model {
  const rand = prng(SEED);
  const taken = new Set(['api', 'key', 'usage', 'batch', 'ingested', 'customer', 'webhook', 'auth', 'failed', 'rejected', 'subscription', 'test', 'live']);
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  return {
    vocabulary: makeWords(VOCABULARY_SIZE, rand, taken),
    firstNames: makeWords(300, rand, taken).map(cap),
    lastNames: makeWords(500, rand, taken).map(cap),
  };
}

// ---------------------------------------------------------------------------------------------
// Generation.

interface Row {
  eventType: string;
  source: string;
  severity: string;
  actorType: string;
  actorId: string;
  targetType: string | null;
  targetId: string | null;
  payload: Record<string, unknown>;
}

/** The event types and their share (weights add up to about 100). */
const TYPES: Array<[type: string, weight: number]> = [
  ['usage.batch_ingested', 60],
  ['api.requests_summarized', 8],
  ['customer.created', 4],
  ['customer.updated', 5],
  ['customer.deleted', 0.5],
  ['auth.failed', 4],
  ['webhook.rejected', 3],
  ['webhook.source_created', 0.2],
  ['usage.limit_alert', 2],
  ['subscription.created', 2],
  ['subscription.updated', 2.5],
  ['subscription.canceled', 0.8],
  ['subscription.payment_failed', 1],
  ['api_key.created', 0.8],
  ['api_key.rotated', 0.6],
  ['api_key.revoked', 0.3],
  ['product.updated', 0.8],
  ['rate_plan.published', 0.3],
  ['workspace.rate_limit_changed', 0.2],
  ['entitlement.blocked', 1.6],
  ['storefront.checkout_completed', 1.5],
];

export function generator(m: Model, spanStart: number) {
  const rand = prng(SEED + 1);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const rank = zipf(VOCABULARY_SIZE);
  const word = () => m.vocabulary[rank(rand())]!;
  const words = (min: number, max: number) => {
    const n = min + Math.floor(rand() * (max - min + 1));
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(word());
    return out.join(' ');
  };
  // Ids of the things events point at, made as the server makes them (time-sortable).
  let idClock = spanStart - 30 * DAY;
  const ids = createIdGenerator({ now: () => (idClock += 1_000) });
  const keys = Array.from({ length: 300 }, () => ids.next('apiKey'));
  const customers = Array.from({ length: 5000 }, () => ({
    id: ids.next('customer'),
    first: pick(m.firstNames),
    last: pick(m.lastNames),
    ext: `acct-${Math.floor(rand() * 900_000) + 100_000}`,
  }));
  const subscriptions = Array.from({ length: 3000 }, () => ids.next('subscription'));
  const sources = Array.from({ length: 12 }, () => ids.next('webhookSource'));
  const ips = Array.from(
    { length: 2000 },
    () => `${10 + Math.floor(rand() * 180)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`,
  );
  const metrics = ['api_calls', 'tokens', 'storage_gb', 'seats', 'searches', 'minutes'];
  const providers = ['stripe', 'paddle', 'chargebee', 'twilio', 'sendgrid', 'github'];
  const offerings = m.vocabulary.slice(0, 40);
  const cdf: Array<[string, number]> = [];
  let total = 0;
  for (const [t, w] of TYPES) cdf.push([t, (total += w)]);
  const typeOf = () => {
    const u = rand() * total;
    for (const [t, c] of cdf) if (u < c) return t;
    return cdf[cdf.length - 1]![0];
  };
  const keyActor = (): [string, string] => (rand() < 0.75 ? ['WORKSPACE_KEY', pick(keys)] : ['PRODUCT_KEY', pick(keys)]);
  const person = (c: (typeof customers)[number]) => `${c.first} ${c.last}`;
  const email = (c: (typeof customers)[number]) => `${c.first.toLowerCase()}.${c.last.toLowerCase()}@${word()}.example`;

  return function next(): Row {
    const eventType = typeOf();
    const c = pick(customers);
    let [actorType, actorId] = keyActor();
    let source = 'api';
    let severity = 'INFO';
    let targetType: string | null = null;
    let targetId: string | null = null;
    let payload: Record<string, unknown>;
    switch (eventType) {
      case 'usage.batch_ingested': {
        const accepted = 1 + Math.floor(rand() * 1000);
        const up = rand() < 0.1;
        targetType = 'usage';
        payload = { accepted, duplicates: rand() < 0.05 ? Math.floor(rand() * 10) : 0, source: up ? 'upload' : 'api' };
        break;
      }
      case 'api.requests_summarized': {
        [actorType, actorId, source] = ['SYSTEM', 'api-request-summary', 'system'];
        payload = {
          node: 'a1b2c3d4e5f6',
          total: Math.floor(rand() * 50_000),
          routes: { 'POST /v1/ingest/batch': Math.floor(rand() * 40_000), 'GET /v1/entitlements/check': Math.floor(rand() * 9_000) },
        };
        break;
      }
      case 'customer.created':
        [targetType, targetId] = ['customer', c.id];
        payload = { externalId: c.ext, name: person(c), email: email(c), note: words(2, 5) };
        break;
      case 'customer.updated':
        [targetType, targetId] = ['customer', c.id];
        payload = { changes: { name: person(c), metadata: { plan: pick(offerings), region: word(), team: word() } }, note: words(1, 4) };
        break;
      case 'customer.deleted':
        [targetType, targetId, severity] = ['customer', c.id, 'NOTICE'];
        payload = { externalId: c.ext, reason: words(2, 6) };
        break;
      case 'auth.failed':
        [actorType, actorId, severity] = ['ANONYMOUS', pick(ips), 'WARN'];
        payload = {
          reason: pick(['unknown_key', 'revoked', 'expired', 'missing_key']),
          ip: actorId,
          method: pick(['GET', 'POST']),
          route: pick(['/v1/ingest/batch', '/v1/entitlements/check', '/api/v1/customers']),
        };
        break;
      case 'webhook.rejected':
        [actorType, actorId, source, severity] = ['WEBHOOK_SOURCE', pick(sources), 'webhook', 'WARN'];
        [targetType, targetId] = ['webhook_source', actorId];
        payload = { reason: pick(['bad_signature', 'unknown_customer', 'stale_timestamp', 'unmapped_event']), provider: pick(providers), detail: words(2, 6) };
        break;
      case 'webhook.source_created':
        [targetType, targetId] = ['webhook_source', pick(sources)];
        payload = { provider: pick(providers), name: words(1, 3) };
        break;
      case 'usage.limit_alert':
        [actorType, actorId, source, severity] = ['SYSTEM', 'usage-limits', 'system', rand() < 0.8 ? 'WARN' : 'CRITICAL'];
        [targetType, targetId] = ['subscription', pick(subscriptions)];
        payload = { metricName: pick(metrics), threshold: pick([80, 90, 100]), customer: person(c), note: words(1, 3) };
        break;
      case 'subscription.created':
      case 'subscription.updated':
      case 'subscription.canceled':
        [targetType, targetId] = ['subscription', pick(subscriptions)];
        if (eventType === 'subscription.canceled') severity = 'NOTICE';
        payload = { customerId: c.id, customer: person(c), offering: pick(offerings), reason: words(1, 5) };
        break;
      case 'subscription.payment_failed':
        [actorType, actorId, source, severity] = ['SYSTEM', 'billing', 'system', 'ERROR'];
        [targetType, targetId] = ['subscription', pick(subscriptions)];
        payload = { customer: person(c), amount: (rand() * 900).toFixed(2), currency: 'usd', reason: words(2, 5) };
        break;
      case 'api_key.created':
      case 'api_key.rotated':
      case 'api_key.revoked':
        [actorType, actorId] = ['WORKSPACE_KEY', pick(keys)];
        [targetType, targetId] = ['api_key', pick(keys)];
        if (eventType !== 'api_key.created') severity = eventType === 'api_key.revoked' ? 'WARN' : 'NOTICE';
        payload = { name: words(1, 3), kind: pick(['SECRET', 'PRODUCT']) };
        break;
      case 'product.updated':
        [targetType, targetId] = ['product', 'prod_01h8x3k5p7q9r2s4t6v8w0y1z3'];
        payload = { name: words(1, 3), description: words(3, 8) };
        break;
      case 'rate_plan.published':
        [targetType, targetId, severity] = ['rate_plan', 'plan_01h8x3k5p7q9r2s4t6v8w0y1z4', 'NOTICE'];
        payload = { name: words(1, 2), version: 1 + Math.floor(rand() * 20) };
        break;
      case 'workspace.rate_limit_changed':
        [actorType, actorId, source, severity] = ['OPERATOR', 'operator', 'cli', 'NOTICE'];
        payload = { from: 1000, to: pick([2000, 5000, 10_000]) };
        break;
      case 'entitlement.blocked':
        [actorType, actorId, severity] = ['PRODUCT_KEY', pick(keys), 'WARN'];
        [targetType, targetId] = ['customer', c.id];
        payload = { metricName: pick(metrics), customer: person(c), reason: words(1, 4) };
        break;
      default: // storefront.checkout_completed
        [actorType, actorId] = ['STOREFRONT_KEY', 'sfk_01h8x3k5p7q9r2s4t6v8w0y1z5'];
        [targetType, targetId] = ['customer', c.id];
        payload = { customer: person(c), email: email(c), offering: pick(offerings) };
    }
    return { eventType, source, severity, actorType, actorId, targetType, targetId, payload };
  };
}

interface Sidecar {
  workspaceId: string;
  environment: 'test';
  secretKey: string;
  /** Events generated (besides the demo workspace's own). */
  rows: number;
  complete: boolean;
  spanStart: number;
  spanEnd: number;
}

function quietConfig(dataDir: string) {
  const env: Record<string, string | undefined> = { ...process.env, TOLLGATE_PROFILE: 'test', DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return { ...loadConfig(env), logLevel: 'error', seedDemo: false, port: 0 };
}

/** Where the benchmark database is. */
type Location = { backend: 'sqlite'; file: string } | { backend: 'postgres'; url: string };

function openStore(loc: Location): OpenedDatabase {
  return loc.backend === 'sqlite' ? openDatabase({ databaseUrl: null, sqlitePath: loc.file }) : openDatabase({ databaseUrl: loc.url });
}

/** The composition root on this store; its deps are what operations take. */
async function composeOn(loc: Location, opened: OpenedDatabase) {
  const dataDir = loc.backend === 'sqlite' ? path.dirname(loc.file) : tmpdir();
  return compose({
    config: quietConfig(dataDir),
    db: opened.db,
    dialect: opened.dialect,
    sqlite: opened.sqlite,
    sqliteFile: opened.sqliteFile,
    closeDb: opened.close,
  });
}

/** The server's own database (migrations) with the demo workspace in it; its key goes to the sidecar. */
async function createStore(loc: Location): Promise<Sidecar> {
  const opened = openStore(loc);
  await migrateToLatest(opened.db);
  const composition = await composeOn(loc, opened);
  const { deps } = composition;
  const demo = await createDemoWorkspace(deps, { actor: { type: 'SYSTEM', id: 'bench' }, source: 'system', correlationId: 'bench' });
  await setWorkspaceRateLimit(deps.db, demo.workspaceId, 10_000_000, Date.now());
  await composition.close();
  const spanEnd = Date.now() - 60_000;
  return {
    workspaceId: demo.workspaceId,
    environment: 'test',
    secretKey: demo.environments.test.secretKey,
    rows: 0,
    complete: false,
    spanStart: spanEnd - SPAN_MS,
    spanEnd,
  };
}

/**
 * The events to write, oldest first: each event's columns (id to created_at, as EVENT_COLUMNS
 * names them) and its search words. The same seed gives the same events on either backend.
 */
function eventSource(side: Sidecar): () => { values: unknown[]; text: string; eventType: string; severity: string; idMs: number } {
  const next = generator(model(), side.spanStart);
  let t = side.spanStart;
  const step = SPAN_MS / EVENTS;
  const rand = prng(SEED + 2);
  // Ids as createIdGenerator makes them (prefix, 48-bit time, 80 random bits in Crockford
  // base32), with this run's PRNG for the random part: randomBytes per id would be a third of the
  // generation time. Events are milliseconds apart, so each id has a millisecond of its own.
  const idOf = (kind: 'auditEvent' | 'request', ms: number) => `${idFloor(kind, ms)}${randomPart(rand)}`;
  let correlation = '';
  return () => {
    t += step;
    const r = next();
    // One request often writes several events (a customer and its subscription): a quarter
    // share the previous event's correlation id; a few carry the client's own X-Correlation-Id.
    const u = rand();
    if (correlation === '' || u >= 0.25) correlation = u > 0.97 ? `ci-${Math.floor(rand() * 2 ** 52).toString(16)}` : idOf('request', Math.floor(t));
    const text = auditSearchText({ eventType: r.eventType, targetType: r.targetType, payload: r.payload });
    const ms = Math.floor(t);
    return {
      values: [
        idOf('auditEvent', ms),
        side.workspaceId,
        side.environment,
        r.eventType,
        r.source,
        r.severity,
        r.actorType,
        r.actorId,
        r.targetType,
        r.targetId,
        JSON.stringify(r.payload),
        correlation,
        ms,
      ],
      text,
      eventType: r.eventType,
      severity: r.severity,
      idMs: ms,
    };
  };
}

const EVENT_COLUMNS =
  'id, workspace_id, environment, event_type, source, severity, actor_type, actor_id, target_type, target_id, payload, correlation_id, created_at';

/**
 * Reports generation progress every 5 s (and calls `saved` then), and says whether the budget
 * is spent: the caller stops and the run goes on with the rows written so far.
 */
function generationProgress(t0: number, saved: (rows: number) => unknown = () => undefined): (done: number) => boolean {
  let lastReport = t0;
  return (done) => {
    const now = performance.now();
    if (now - lastReport >= 5_000 || done === EVENTS) {
      lastReport = now;
      const rate = done / ((now - t0) / 1000);
      console.log(
        `  ${fmt(done)} / ${fmt(EVENTS)} rows, ${fmt(rate)} rows/s, ${((now - t0) / 1000).toFixed(0)} s elapsed, ETA ${((EVENTS - done) / rate).toFixed(0)} s`,
      );
      saved(done);
    }
    if (now - t0 > GENERATE_BUDGET_MS && done < EVENTS) {
      console.log(`  generation budget of ${GENERATE_BUDGET_MS / 1000} s reached: going on with ${fmt(done)} events`);
      return true;
    }
    return false;
  };
}

function generate(file: string, side: Sidecar, sidecarFile: string | null): { seconds: number; rows: number } {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000'); // 1 GB while generating
  db.pragma('temp_store = MEMORY');
  const columns = `(seq, ${EVENT_COLUMNS})`;
  const many = (n: number, k: number) => Array.from({ length: n }, () => `(${Array.from({ length: k }, () => '?').join(', ')})`).join(', ');
  const insertEvents = db.prepare(`insert into audit_events ${columns} values ${many(ROWS_PER_STATEMENT, 14)}`);
  const insertFts = db.prepare(`insert into audit_events_fts (rowid, body) values ${many(ROWS_PER_STATEMENT, 2)}`);
  const one = db.prepare(`insert into audit_events ${columns} values ${many(1, 14)}`);
  const oneFts = db.prepare(`insert into audit_events_fts (rowid, body) values (?, ?)`);
  const scope = ftsScope(side.workspaceId, side.environment);
  const nextEvent = eventSource(side);
  const baseSeq = (db.prepare(`select coalesce(max(seq), 0) as s from audit_events`).get() as { s: number }).s;
  let seq = baseSeq;
  const eventParams: unknown[] = [];
  const ftsParams: unknown[] = [];
  const flush = () => {
    insertEvents.run(eventParams);
    insertFts.run(ftsParams);
    eventParams.length = 0;
    ftsParams.length = 0;
  };
  const chunk = db.transaction((n: number) => {
    for (let i = 0; i < n; i++) {
      const e = nextEvent();
      seq += 1;
      eventParams.push(seq, ...e.values);
      ftsParams.push(seq, ftsDocument(scope, e));
      if (ftsParams.length === ROWS_PER_STATEMENT * 2) flush();
    }
    // The rest of a chunk one row at a time (a chunk is a multiple of the statement size but the last).
    for (let i = 0; i < ftsParams.length / 2; i++) {
      one.run(eventParams.slice(i * 14, i * 14 + 14));
      oneFts.run(ftsParams.slice(i * 2, i * 2 + 2));
    }
    eventParams.length = 0;
    ftsParams.length = 0;
  });
  const t0 = performance.now();
  let done = 0;
  console.log(
    `generating ${fmt(EVENTS)} audit events into ${file} (${ROWS_PER_TX.toLocaleString('en-US')} rows a transaction, synchronous=OFF while generating)`,
  );
  const progress = generationProgress(t0, (rows) => sidecarFile && writeFileSync(sidecarFile, JSON.stringify({ ...side, rows, complete: false })));
  while (done < EVENTS) {
    const n = Math.min(ROWS_PER_TX, EVENTS - done);
    chunk(n);
    done += n;
    if (progress(done)) break;
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { seconds: (performance.now() - t0) / 1000, rows: done };
}

/**
 * The same events into PostgreSQL, with the tsvector recordAudit writes (tsDocument's lexemes): multi-row inserts on two
 * connections (PostgreSQL's two backends use both cores), asynchronous commit while generating,
 * then VACUUM ANALYZE so the planner has the statistics a live database gathers by itself.
 */
async function generatePg(url: string, side: Sidecar): Promise<{ seconds: number; rows: number }> {
  const { default: pg } = await import('pg');
  const clients = await Promise.all(
    [0, 1].map(async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query('set synchronous_commit = off');
      return c;
    }),
  );
  const statement = (n: number) =>
    `insert into audit_events (${EVENT_COLUMNS}, search) values ` +
    Array.from(
      { length: n },
      (_, r) => `(${Array.from({ length: 13 }, (_, k) => `$${r * 14 + k + 1}`).join(', ')}, array_to_tsvector(string_to_array($${r * 14 + 14}, ' ')))`,
    ).join(', ');
  const full = statement(PG_ROWS_PER_STATEMENT);
  const nextEvent = eventSource(side);
  const scope = ftsScope(side.workspaceId, side.environment);
  const inFlight: Array<Promise<unknown>> = [Promise.resolve(), Promise.resolve()];
  const t0 = performance.now();
  const progress = generationProgress(t0);
  let done = 0;
  let batch = 0;
  console.log(
    `generating ${fmt(EVENTS)} audit events into PostgreSQL (${PG_ROWS_PER_STATEMENT} rows a statement on 2 connections, synchronous_commit=off while generating)`,
  );
  try {
    while (done < EVENTS) {
      const n = Math.min(PG_ROWS_PER_STATEMENT, EVENTS - done);
      const params: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const e = nextEvent();
        params.push(...e.values, tsDocument(scope, e).join(' '));
      }
      const k = batch++ % 2;
      await inFlight[k];
      inFlight[k] = clients[k]!.query(n === PG_ROWS_PER_STATEMENT ? full : statement(n), params);
      done += n;
      if (progress(done)) break;
    }
    await Promise.all(inFlight);
    const v0 = performance.now();
    await clients[0]!.query('vacuum analyze audit_events');
    console.log(`  VACUUM ANALYZE: ${((performance.now() - v0) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  return { seconds: (performance.now() - t0) / 1000, rows: done };
}

/** Where a kept database's sidecar lives: a file next to the SQLite file, a table in PostgreSQL. */
interface SidecarStore {
  read(): Promise<Sidecar | null>;
  write(s: Sidecar): Promise<void>;
}

function sidecarStore(loc: Location, keep: boolean): SidecarStore {
  if (!keep) return { read: async () => null, write: async () => undefined };
  if (loc.backend === 'sqlite') {
    const f = `${loc.file}.json`;
    return {
      read: async () => (existsSync(f) && existsSync(loc.file) ? (JSON.parse(readFileSync(f, 'utf8')) as Sidecar) : null),
      write: async (s) => writeFileSync(f, JSON.stringify(s)),
    };
  }
  const query = async <T>(q: string, params: unknown[] = []): Promise<T[]> => {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: loc.url });
    await c.connect();
    try {
      return (await c.query(q, params)).rows as T[];
    } finally {
      await c.end();
    }
  };
  return {
    read: async () => {
      const [t] = await query<{ t: string | null }>(`select to_regclass('bench_audit_sidecar')::text as t`);
      if (!t?.t) return null;
      const [row] = await query<{ doc: string }>('select doc from bench_audit_sidecar');
      return row ? (JSON.parse(row.doc) as Sidecar) : null;
    },
    write: async (s) => {
      await query('create table if not exists bench_audit_sidecar (doc text not null)');
      await query('delete from bench_audit_sidecar');
      await query('insert into bench_audit_sidecar (doc) values ($1)', [JSON.stringify(s)]);
    },
  };
}

/** Empties a kept database for a new generation: the SQLite file, or PostgreSQL's public schema. */
async function resetStore(loc: Location): Promise<void> {
  if (loc.backend === 'sqlite') {
    for (const f of [loc.file, `${loc.file}-wal`, `${loc.file}-shm`, `${loc.file}.json`]) rmSync(f, { force: true });
    return;
  }
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: loc.url });
  await c.connect();
  try {
    await c.query('drop schema public cascade; create schema public');
  } finally {
    await c.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement.

interface QueryCase {
  key: string;
  name: string;
  /** The i-th run's filters, as the HTTP query string would give them. */
  filters: (i: number) => AuditFilterQuery;
}

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

function cases(m: Model, side: Sidecar, samples: { actors: string[]; correlations: string[] }): QueryCase[] {
  const rand = prng(SEED + 3);
  const common = m.vocabulary.slice(0, 25);
  const rare = m.vocabulary.slice(2000, 3000);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const typeSeverity: Array<[string, string]> = [
    ['webhook.*', 'WARN'],
    ['subscription.*', 'WARN'],
    ['usage.*', 'WARN'],
    ['entitlement.*', 'WARN'],
    ['customer.*', 'NOTICE'],
    ['auth.*', 'WARN'],
    ['api_key.*', 'WARN'],
  ];
  // A moment 60 to 150 days before the newest event, to the second.
  const monthsAgo = () => side.spanEnd - 60 * DAY - Math.floor(rand() * 90 * DAY);
  const hourTypes = ['usage.batch_ingested', 'customer.*', 'auth.failed', 'webhook.*', 'subscription.*'];
  return [
    { key: 'a', name: 'no filter (ceiling: newest page by the tenant index)', filters: () => ({}) },
    {
      key: 'b',
      name: 'type prefix + severity (WARN and above, or NOTICE and above)',
      filters: (i) => ({ type: typeSeverity[i % typeSeverity.length]![0], severity: typeSeverity[i % typeSeverity.length]![1] }),
    },
    { key: 'c', name: 'full text, one common word (vocabulary ranks 1-25)', filters: (i) => ({ q: common[i % common.length] }) },
    { key: 'd', name: 'full text, one rare word (ranks 2,001-3,000)', filters: () => ({ q: pick(rare) }) },
    {
      key: 'e',
      name: 'full text (common word) + type prefix + severity',
      filters: (i) => {
        const [type, severity] = typeSeverity[i % 5]!; // the five prefixes whose payloads hold words
        return { q: common[i % common.length], type, severity };
      },
    },
    { key: 'f', name: 'actorId (one of 300 keys)', filters: () => ({ actorId: pick(samples.actors) }) },
    { key: 'g', name: 'correlationId', filters: () => ({ correlationId: pick(samples.correlations) }) },
    {
      key: 'h',
      name: 'one hour 60-150 days ago + type',
      filters: (i) => {
        const from = monthsAgo();
        return { createdFrom: iso(from), createdTo: iso(from + 3_600_000), type: hourTypes[i % hourTypes.length] };
      },
    },
    {
      key: 'i',
      name: 'full text (common word) + one day 60-150 days ago',
      filters: (i) => {
        const from = monthsAgo();
        return { q: common[i % common.length], createdFrom: iso(from), createdTo: iso(from + DAY) };
      },
    },
    { key: 'j', name: 'full text, two common words', filters: (i) => ({ q: `${common[i % common.length]} ${common[(i * 7 + 3) % common.length]}` }) },
    {
      key: 'l',
      name: 'full text (two common words) + type prefix + severity',
      filters: (i) => {
        const [type, severity] = typeSeverity[i % 5]!;
        return { q: `${common[i % common.length]} ${common[(i * 7 + 3) % common.length]}`, type, severity };
      },
    },
    { key: 'm', name: 'full text, a prefix of two letters (every word beginning so)', filters: (i) => ({ q: `${common[i % common.length]!.slice(0, 2)}*` }) },
    {
      key: 'k',
      name: 'full text (common word) + a type prefix whose events never hold it (no match)',
      filters: (i) => ({ q: common[i % common.length], type: 'auth.*' }),
    },
  ];
}

interface Measured {
  c: QueryCase;
  /**
   * Measured runs, ascending; the warm-up runs when the budget ended before any measured run
   * (warmupOnly). A run cut off by the budget counts with its time so far, a lower bound, when
   * that is longer than every finished run.
   */
  times: number[];
  warmupOnly: boolean;
  rows: number[];
  /** Runs done (warm-up included) when the budget ran out, or null if every run finished. */
  stoppedAfter: number | null;
  /** How long the run cut off by the budget had been going. */
  cutOffMs: number | null;
  firstRunMs: number;
}

/** The queries of one case, run in a worker thread: a query that takes minutes can be stopped. */
interface QueryJob {
  role: 'query';
  location: Location;
  tenant: Tenant;
  filters: AuditFilterQuery[];
}
type QueryMessage = { ready: true } | { i: number; ms: number; rows: number } | { error: string };

async function runQueries(job: QueryJob): Promise<void> {
  const port = parentPort!;
  const opened = openStore(job.location);
  port.postMessage({ ready: true } satisfies QueryMessage);
  try {
    for (let i = 0; i < job.filters.length; i++) {
      const filter = filterErrors(job.filters[i]!, 'query');
      const t0 = performance.now();
      const page = await listAuditEvents(opened.db, job.tenant, filter, { limit: PAGE });
      port.postMessage({ i, ms: performance.now() - t0, rows: page.items.length } satisfies QueryMessage);
    }
  } catch (err) {
    port.postMessage({ error: String(err) } satisfies QueryMessage);
  } finally {
    await opened.close();
  }
}

function queryThread(job: QueryJob): Worker {
  // Node 20 does not hand the main thread's --import tsx hooks to workers: the worker registers
  // tsx itself, then loads this file.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  return new Worker(boot, { eval: true, workerData: job });
}

/** Warm-up and measured runs of one case, stopped (the thread terminated) once past the budget. */
async function measure(loc: Location, tenant: Tenant, c: QueryCase): Promise<Measured> {
  const filters = Array.from({ length: WARMUP_RUNS + RUNS }, (_, i) => c.filters(i));
  const times: number[] = [];
  const rows: number[] = [];
  const warmup: number[] = [];
  const warmupRows: number[] = [];
  let firstRunMs = NaN;
  let runStart = performance.now();
  let done = 0;
  const worker = queryThread({ role: 'query', location: loc, tenant, filters });
  const outcome = await new Promise<'done' | 'budget'>((resolve, reject) => {
    // The budget starts once the thread has loaded the server's modules and opened the database.
    let timer = setTimeout(() => reject(new Error(`(${c.key}) the query thread did not start within 60 s`)), 60_000);
    worker.on('message', (m: QueryMessage) => {
      if ('ready' in m) {
        clearTimeout(timer);
        runStart = performance.now();
        timer = setTimeout(() => resolve('budget'), QUERY_BUDGET_MS);
        return;
      }
      if ('error' in m) {
        clearTimeout(timer);
        reject(new Error(`(${c.key}) ${m.error}`));
        return;
      }
      done += 1;
      runStart = performance.now();
      if (m.i === 0) firstRunMs = m.ms;
      (m.i >= WARMUP_RUNS ? times : warmup).push(m.ms);
      (m.i >= WARMUP_RUNS ? rows : warmupRows).push(m.rows);
      if (done === filters.length) {
        clearTimeout(timer);
        resolve('done');
      }
    });
    worker.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
  let cutOffMs: number | null = null;
  const warmupOnly = times.length === 0;
  const samples = warmupOnly ? warmup : times;
  if (outcome === 'budget') {
    cutOffMs = performance.now() - runStart;
    if (samples.every((t) => t < cutOffMs!)) samples.push(cutOffMs);
    else cutOffMs = null;
  }
  // A PostgreSQL query cut off by the budget would go on in its backend after the thread ends.
  if (outcome === 'budget' && loc.backend === 'postgres') await cancelQueries(loc.url);
  await worker.terminate(); // on SQLite, waits for the call under way to return
  return {
    c,
    times: samples.sort((a, b) => a - b),
    warmupOnly,
    rows: warmupOnly ? warmupRows : rows,
    stoppedAfter: outcome === 'budget' ? done : null,
    cutOffMs,
    firstRunMs,
  };
}

/** Cancels the queries running in the benchmark database, but not this connection's own. */
async function cancelQueries(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`select pg_cancel_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'active'`);
  } finally {
    await c.end();
  }
}

const pct = (sorted: number[], p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const tempDir = BACKEND === 'sqlite' && !CACHE ? mkdtempSync(path.join(tmpdir(), 'tollgate-bench-audit-')) : null;
  const scratch = BACKEND === 'postgres' && !PG_KEEP_URL ? await scratchPostgres(PG_ADMIN_URL) : null;
  const loc: Location =
    BACKEND === 'sqlite' ? { backend: 'sqlite', file: CACHE ?? path.join(tempDir!, 'tollgate.db') } : { backend: 'postgres', url: PG_KEEP_URL ?? scratch!.url };
  const where = loc.backend === 'sqlite' ? loc.file : new URL(loc.url).pathname.slice(1);
  const sidecars = sidecarStore(loc, Boolean(CACHE ?? PG_KEEP_URL));
  let side: Sidecar | null = null;
  let generated: { seconds: number; rows: number } | null = null;
  try {
    const kept = await sidecars.read();
    if (kept && kept.complete && kept.rows >= EVENTS) side = kept;
    else if (kept) console.log(`${where} holds ${fmt(kept.rows)} events${kept.complete ? '' : ' (incomplete)'}; generating anew`);
    if (!side) {
      await resetStore(loc);
      const s = await createStore(loc);
      await sidecars.write(s);
      generated = loc.backend === 'sqlite' ? generate(loc.file, s, CACHE ? `${loc.file}.json` : null) : await generatePg(loc.url, s);
      side = { ...s, rows: generated.rows, complete: generated.rows >= EVENTS };
      await sidecars.write(side);
    } else console.log(`reusing ${where}: ${fmt(side.rows)} generated events`);

    const m = model();
    const tenant: Tenant = { workspaceId: side.workspaceId, environment: side.environment };
    const opened = openStore(loc);
    const one = async <T>(q: RawBuilder<T>): Promise<T | undefined> => (await q.execute(opened.db)).rows[0];
    const total = Number(
      (await one(sql<{ n: number }>`select count(*) as n from audit_events where workspace_id = ${side.workspaceId} and environment = ${side.environment}`))!.n,
    );
    const maxSeq = Number((await one(sql<{ s: number }>`select max(seq) as s from audit_events`))!.s);
    // Values that exist: actors and correlation ids of events picked at random.
    const rand = prng(SEED + 4);
    const actors = new Set<string>();
    const correlations: string[] = [];
    while (correlations.length < 200) {
      const r = await one(
        sql<{
          a: string;
          c: string;
          t: string;
        }>`select actor_id as a, correlation_id as c, actor_type as t from audit_events where seq = ${1 + Math.floor(rand() * maxSeq)}`,
      );
      if (!r) continue;
      correlations.push(r.c);
      if (r.t === 'WORKSPACE_KEY' || r.t === 'PRODUCT_KEY') actors.add(r.a);
    }
    const dbBytes =
      loc.backend === 'sqlite' ? statSync(loc.file).size : Number((await one(sql<{ b: number }>`select pg_database_size(current_database()) as b`))!.b);
    const version =
      loc.backend === 'sqlite'
        ? `SQLite ${(await one(sql<{ v: string }>`select sqlite_version() as v`))!.v}`
        : `PostgreSQL ${(await one(sql<{ v: string }>`select current_setting('server_version') as v`))!.v}`;
    const table = cases(m, side, { actors: [...actors], correlations });

    await opened.close();
    const results: Measured[] = [];
    for (const c of table) {
      const r = await measure(loc, tenant, c);
      results.push(r);
      console.log(
        `  (${c.key}) ${c.name}: p50 ${pct(r.times, 50).toFixed(1)} ms, p99 ${pct(r.times, 99).toFixed(1)} ms, first run ${r.firstRunMs.toFixed(1)} ms` +
          (r.stoppedAfter !== null
            ? ` (budget of ${QUERY_BUDGET_MS / 1000} s reached after ${r.stoppedAfter} runs${r.warmupOnly ? ', warm-up runs only' : ''})`
            : ''),
      );
    }

    // The same through HTTP: the real app on the same database, in this process, one request at a time.
    const http: Measured[] = [];
    if (WITH_HTTP) {
      const composition = await composeOn(loc, openStore(loc));
      const app = await buildApp(composition);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        // Two fast queries, so that the difference is the HTTP path (auth, rate limit, JSON).
        for (const key of ['a', 'b']) {
          const c = table.find((x) => x.key === key)!;
          const times: number[] = [];
          const rows: number[] = [];
          let firstRunMs = NaN;
          const start = performance.now();
          let stoppedAfter: number | null = null;
          for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
            const qs = new URLSearchParams({ ...(c.filters(i) as Record<string, string>), limit: String(PAGE) });
            const t0 = performance.now();
            const res = await fetch(`${url}/v1/events?${qs.toString()}`, { headers: { authorization: `Bearer ${side.secretKey}` } });
            const body = (await res.json()) as { data?: unknown[] };
            const dt = performance.now() - t0;
            if (res.status !== 200) throw new Error(`GET /v1/events answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
            if (i === 0) firstRunMs = dt;
            if (i >= WARMUP_RUNS) {
              times.push(dt);
              rows.push(body.data?.length ?? 0);
            }
            if (performance.now() - start > QUERY_BUDGET_MS) {
              stoppedAfter = i + 1;
              break;
            }
          }
          http.push({ c, times: times.sort((a, b) => a - b), warmupOnly: false, rows, stoppedAfter, cutOffMs: null, firstRunMs });
        }
      } finally {
        await app.close();
        await composition.close();
      }
    }

    const cpu = os.cpus();
    console.log(
      `\nAudit search, ${loc.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, listAuditEvents in process (filters by parseAuditFilter), pages of ${PAGE}, newest first`,
    );
    console.log(
      `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${version}; ` +
        `load average at start ${loadAtStart}, at end ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    console.log(
      `data: ${fmt(total)} events of one workspace (test environment) over 364 days, database ${(dbBytes / 2 ** 30).toFixed(2)} GiB` +
        (generated ? `, generated in ${generated.seconds.toFixed(0)} s (${fmt(generated.rows / generated.seconds)} rows/s)` : ', reused'),
    );
    console.log(
      `${RUNS} measured runs per query after ${WARMUP_RUNS} warm-up runs, each run with other words or values; p99 of ${RUNS} runs is their slowest run.\n`,
    );
    console.log('| query | p50 ms | p99 ms | max ms | x ceiling (p50) | rows per page (mean) | p99 <= 200 ms |');
    console.log('|---|---|---|---|---|---|---|');
    const ceilingP50 = pct(results[0]!.times, 50);
    const line = (r: Measured, label: string) => {
      const mean = r.rows.length === 0 ? 'n/a' : (r.rows.reduce((a, b) => a + b, 0) / r.rows.length).toFixed(1);
      const p99 = pct(r.times, 99);
      console.log(
        `| (${r.c.key}) ${label} | ${pct(r.times, 50).toFixed(1)} | ${p99.toFixed(1)} | ${(r.times[r.times.length - 1] ?? NaN).toFixed(1)} | ${(pct(r.times, 50) / ceilingP50).toFixed(1)} | ${mean} | ${p99 <= TARGET_P99_MS ? 'yes' : 'NO'} |` +
          (r.stoppedAfter !== null
            ? ` budget of ${QUERY_BUDGET_MS / 1000} s: ${r.stoppedAfter} run${r.stoppedAfter === 1 ? '' : 's'} done, ${r.warmupOnly ? 'all warm-up (figures from them)' : `${Math.max(0, r.stoppedAfter - WARMUP_RUNS)} measured`}${r.cutOffMs !== null ? `; the run cut off counts as its ${r.cutOffMs.toFixed(0)} ms so far (a lower bound)` : ''}`
            : ''),
      );
    };
    for (const r of results) line(r, r.c.name);
    for (const r of http) line(r, `HTTP GET /v1/events: ${r.c.name}`);
    const filtered = results.slice(1);
    const missed = filtered.filter((r) => pct(r.times, 99) > TARGET_P99_MS);
    console.log(
      `\nTarget p99 <= ${TARGET_P99_MS} ms for filtered queries: ${missed.length === 0 ? 'met by every query' : `not met by ${missed.map((r) => `(${r.c.key})`).join(', ')}`}.`,
    );
    console.log(`Wall time ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  } finally {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

// A query thread (see measure), or run as the script (not when imported, e.g. for its vocabulary).
if (!isMainThread) {
  if ((workerData as QueryJob | null)?.role === 'query') await runQueries(workerData as QueryJob);
} else if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
