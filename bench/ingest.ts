// Ingestion: 1,000-event batches over HTTP from 8 and then 50 clients for a fixed time, against
// the ceiling of the same rows inserted straight into the same database without HTTP (same table,
// same statement shape, one transaction per 1,000 rows).
// Run: npm run bench:ingest                       the embedded default (SQLite file)
//      BENCH_DATABASE_URL=postgres://… npm run bench:ingest   a scratch database on that server
// About 50 s; 127.0.0.1 only; stops by itself.
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { BATCH, batchBodies, closedLoop, percentile, scratchPostgres, startBenchServer } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

function rawInsertCeiling(file: string, rows: number): number {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  // The server's own way: statements of 64 rows, one transaction per batch.
  const ROWS = 64;
  const values = (n: number) => Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
  const columns = '(workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source)';
  const full = db.prepare(`insert into usage_events ${columns} values ${values(ROWS)}`);
  const rest = db.prepare(`insert into usage_events ${columns} values ${values(BATCH % ROWS)}`);
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

async function pgCeiling(url: string, rows: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const meta = JSON.stringify({ method: 'GET', path: '/v1/search', statusCode: 200, latencyMs: 12 });
  const t0 = performance.now();
  for (let b = 0; b < rows / BATCH; b++) {
    const idx = Array.from({ length: BATCH }, (_, i) => b * BATCH + i);
    await client.query('begin');
    await client.query(
      `insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source)
       select 'ws_ceiling', 'test', c, 'api_calls', '1', o, 0, 0, null, m, 'api' from unnest($1::text[], $2::bigint[], $3::text[]) as t(c, o, m)`,
      [idx.map((i) => `cus_${i % 100}`), idx, idx.map(() => meta)],
    );
    await client.query('commit');
  }
  const seconds = (performance.now() - t0) / 1000;
  await client.end();
  return rows / seconds;
}

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const server = await startBenchServer({
    INGEST_MAX_IN_FLIGHT: process.env.INGEST_MAX_IN_FLIGHT ?? '4',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  });
  const { url, secretKey, customerIds, databaseFile } = server.info;
  const payloads = batchBodies(customerIds, 16);
  const request = (i: number) => ({
    url: `${url}/v1/ingest/batch`,
    init: { method: 'POST', headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' }, body: payloads[i % payloads.length] },
  });
  const rows: string[] = [];
  try {
    await closedLoop({ connections: 4, seconds: 2, request }); // warm-up
    for (const connections of [8, 50]) {
      const r = await closedLoop({ connections, seconds: SECONDS, request });
      const eps = (r.ok * BATCH) / r.seconds;
      rows.push(
        `| ${connections} | ${Math.round(eps).toLocaleString('en-US')} | ${percentile(r.latenciesOk, 50).toFixed(1)} | ${percentile(r.latenciesOk, 99).toFixed(1)} | ${r.refused} | ${r.other} |`,
      );
    }
  } finally {
    await server.stop();
  }
  const ceiling = scratch ? await pgCeiling(scratch.url, 200_000) : rawInsertCeiling(databaseFile as string, 300_000);
  await scratch?.drop();
  server.cleanup();
  console.log(`\nIngestion, ${scratch ? 'PostgreSQL 15' : 'SQLite (WAL, synchronous=FULL)'}, 1,000-event batches, ${SECONDS} s per run`);
  console.log('| clients | events/s accepted | p50 ms | p99 ms | 503 answers | other errors |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(`\nCeiling, same run: ${Math.round(ceiling).toLocaleString('en-US')} rows/s inserted straight into the same database (no HTTP, no parsing, no aggregates).`);
  console.log(`Ratio at 8 clients: ${rows[0] ? (Number(rows[0].split('|')[2]!.replace(/,/g, '')) / ceiling).toFixed(2) : 'n/a'}`);
}

await main();
