// Ingestion: 1,000-event batches over HTTP from 8 and then 50 clients for a fixed time, against
// the ceiling of the same rows inserted straight into the same database without HTTP (same table,
// same statement shape, one transaction per 1,000 rows).
// Run: npm run bench:ingest                       the embedded default (SQLite file)
//      BENCH_DATABASE_URL=postgres://… npm run bench:ingest   a scratch database on that server
// About 50 s; 127.0.0.1 only; stops by itself.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  BATCH,
  batchBodies,
  closedLoop,
  cpuSecondsOf,
  percentile,
  retryingClosedLoop,
  scratchPostgres,
  startBenchServer,
  type RetryingLoadResult,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/**
 * BENCH_OCCURRED_AT=fixed (the default, as in the earlier entries): 16 bodies sent over and over,
 * each event's occurredAt fixed at the start, so every batch lands again inside the same 16
 * seconds (out of order, like late data). BENCH_OCCURRED_AT=now: every event of a batch occurred
 * at the time it is sent, as a live SDK sends them; the body's text is joined around that instant.
 */
const FRESH = process.env.BENCH_OCCURRED_AT === 'now';
const AT = '@@occurredAt@@';

/** The batch bodies, each split where its send time goes (a single piece with fixed times). */
const bodies = (customerIds: string[], count: number, fresh: boolean): string[][] =>
  batchBodies(customerIds, count, fresh ? AT : undefined).map((b) => b.split(AT));

/**
 * Rows/s inserted straight into `table`. `usage_events_bare` is a copy of usage_events without its
 * secondary index, made here, so the same run shows what that index costs the append path.
 */
function rawInsertCeiling(file: string, rows: number, table: string): number {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  if (table === 'usage_events_bare') {
    const ddl = (db.prepare(`select sql from sqlite_master where type = 'table' and name = 'usage_events'`).get() as { sql: string }).sql;
    db.exec(`drop table if exists usage_events_bare; ${ddl.replace(/usage_events/, 'usage_events_bare')}`);
  }
  // The server's own way: statements of 64 rows, one transaction per batch.
  const ROWS = 64;
  const values = (n: number) => Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
  const columns = '(workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source)';
  const full = db.prepare(`insert into ${table} ${columns} values ${values(ROWS)}`);
  const rest = db.prepare(`insert into ${table} ${columns} values ${values(BATCH % ROWS)}`);
  const meta = JSON.stringify({ method: 'GET', path: '/v1/search', statusCode: 200, latencyMs: 12 });
  const insertBatch = db.transaction((base: number) => {
    for (let i = 0; i < BATCH; i += ROWS) {
      const n = Math.min(ROWS, BATCH - i);
      const params: unknown[] = [];
      for (let j = 0; j < n; j++) params.push('ws_ceiling', 'test', `cus_${(base + i + j) % 100}`, 'api_calls', '1', base + i + j, 0, base, null, meta, 'api');
      (n === ROWS ? full : rest).run(params);
    }
  });
  const t0 = performance.now();
  for (let b = 0; b < rows / BATCH; b++) insertBatch(b * BATCH);
  const seconds = (performance.now() - t0) / 1000;
  db.close();
  return rows / seconds;
}

async function pgCeiling(url: string, rows: number, table: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (table === 'usage_events_bare') {
    await client.query('create table usage_events_bare (like usage_events including defaults including identity)');
    await client.query('alter table usage_events_bare add primary key (seq)');
  }
  const meta = JSON.stringify({ method: 'GET', path: '/v1/search', statusCode: 200, latencyMs: 12 });
  const t0 = performance.now();
  for (let b = 0; b < rows / BATCH; b++) {
    const idx = Array.from({ length: BATCH }, (_, i) => b * BATCH + i);
    await client.query('begin');
    await client.query(
      `insert into ${table} (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source)
       select 'ws_ceiling', 'test', c, 'api_calls', '1', o, 0, 0, null, m, 'api' from unnest($1::text[], $2::bigint[], $3::text[]) as t(c, o, m)`,
      [idx.map((i) => `cus_${i % 100}`), idx, idx.map(() => meta)],
    );
    await client.query('commit');
  }
  const seconds = (performance.now() - t0) / 1000;
  await client.end();
  return rows / seconds;
}

/**
 * One server: a warm-up, a closed-loop run per client count (with the server's CPU during it), then
 * the raw-insert ceiling into the same database, with and (unless `withoutIndex: false`) without
 * the secondary index. bench/compare.ts calls it for 8 clients with occurredAt now.
 */
export async function measureIngest(opts: { clients: number[]; fresh: boolean; withoutIndex?: boolean }) {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const server = await startBenchServer({
    INGEST_MAX_IN_FLIGHT: process.env.INGEST_MAX_IN_FLIGHT ?? '4',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  });
  const { url, secretKey, customerIds, databaseFile } = server.info;
  const payloads = bodies(customerIds, 16, opts.fresh);
  const request = (i: number) => ({
    url: `${url}/v1/ingest/batch`,
    init: {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: payloads[i % payloads.length]!.join(new Date().toISOString()),
    },
  });
  const runs: Array<{ connections: number; result: RetryingLoadResult; eventsPerSecond: number; cpuSeconds: number | null }> = [];
  try {
    await closedLoop({ connections: 4, seconds: 2, request }); // warm-up
    for (const connections of opts.clients) {
      const cpu0 = cpuSecondsOf(server.child.pid!);
      const r = await retryingClosedLoop({ connections, seconds: SECONDS, request });
      const cpu1 = cpuSecondsOf(server.child.pid!);
      runs.push({ connections, result: r, eventsPerSecond: (r.ok * BATCH) / r.seconds, cpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 });
    }
  } catch (err) {
    await server.stop();
    await scratch?.drop();
    server.cleanup();
    throw err;
  }
  await server.stop();
  try {
    const raw = (table: string) => (scratch ? pgCeiling(scratch.url, 200_000, table) : rawInsertCeiling(databaseFile as string, 300_000, table));
    const ceiling = await raw('usage_events');
    const bare = opts.withoutIndex === false ? null : await raw('usage_events_bare');
    return { backend: scratch ? 'PostgreSQL 15' : 'SQLite (WAL, synchronous=FULL)', runs, ceiling, bare };
  } finally {
    await scratch?.drop();
    server.cleanup();
  }
}

async function main() {
  const { backend, runs, ceiling, bare: bareOrNull } = await measureIngest({ clients: [8, 50], fresh: FRESH });
  const bare = bareOrNull!;
  const rows = runs.map(
    ({ connections, result: r, eventsPerSecond: eps, cpuSeconds }) =>
      `| ${connections} | ${Math.round(eps).toLocaleString('en-US')} | ${percentile(r.latenciesOk, 50).toFixed(1)} | ${percentile(r.latenciesOk, 99).toFixed(1)} | ${r.refused} | ${r.other} | ${r.accepted} | ${r.retries} | ${r.givenUp} | ${cpuSeconds === null ? 'n/a' : ((1000 * cpuSeconds) / Math.max(1, r.accepted)).toFixed(1)} |`,
  );
  console.log(`\nIngestion, ${backend}, 1,000-event batches, ${SECONDS} s per run, occurredAt ${FRESH ? 'now' : 'fixed'}`);
  // The clients follow the spec's retry rule (lib.ts retryingClosedLoop): a batch is given up after
  // its third retry is answered 503 too. Server CPU is per batch accepted (retries' waits included).
  console.log('| clients | events/s accepted | p50 ms | p99 ms | 503 answers | other errors | batches accepted | retries | given up | server CPU ms/batch |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(
    `\nCeiling, same run: ${Math.round(ceiling).toLocaleString('en-US')} rows/s inserted straight into usage_events of the same database (no HTTP, no parsing, no aggregates).`,
  );
  console.log(
    `Without its secondary index (a copy of the table, same run): ${Math.round(bare).toLocaleString('en-US')} rows/s; the index costs ${(100 * (1 - ceiling / bare)).toFixed(0)}% of the raw insert rate.`,
  );
  console.log(`Ratio at 8 clients: ${rows[0] ? (Number(rows[0].split('|')[2]!.replace(/,/g, '')) / ceiling).toFixed(2) : 'n/a'}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
