// The usage report and entitlement checks at scale (issue 14, items 8 and 9), over HTTP against
// bench-server.ts, with the ceiling of the same run (an authenticated bare route):
//  1. a small tenant's `GET /api/v1/usage?groupBy=…` (and without groupBy, and of one customer)
//     while other tenants hold millions of events;
//  2. entitlement checks alone, then while groupBy reports run back to back: how long a report
//     holds up other requests;
//  3. an entitlement check and the upcoming invoice of a customer who sent 9,000 distinct
//     `endpoint` values, against a subscribed customer with one aggregate row.
// Run: npm run bench:usage-report   (10M events: 2-4 min to generate on the 2-core machine, then
//      about 1 min to measure; each request is abandoned after BENCH_REQUEST_BUDGET_S)
//      BENCH_REPORT_EVENTS (default 10,000,000 other tenants' events), BENCH_REPORT_DB=/path/dir
//      keeps the data directory (tollgate.db) and reuses it; without it a temporary directory is
//      used and removed. BENCH_RUNS (sequential requests per figure, default 50),
//      BENCH_REQUEST_BUDGET_S (default 120), BENCH_SECONDS (per concurrent phase, default 8).
//      BENCH_DATABASE_URL=postgres://… runs it on a scratch PostgreSQL database instead.
// 127.0.0.1 only; stops by itself. The server runs with ENTITLEMENT_CACHE_TTL_MS=0, so every
// check is decided, not answered from the cache.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { closedLoop, percentile, scratchPostgres, startBenchServer, type LoadResult } from './lib.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';

const EVENTS = Number(process.env.BENCH_REPORT_EVENTS ?? 10_000_000);
const KEEP_DIR = process.env.BENCH_REPORT_DB ? path.resolve(process.env.BENCH_REPORT_DB) : null;
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const BUDGET_MS = Number(process.env.BENCH_REQUEST_BUDGET_S ?? 120) * 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const OTHER_TENANTS = 50;
const OTHER_CUSTOMERS = 10_000;
const ENDPOINTS = 9000;
const DAY = 86_400_000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Other tenants' events over the last 60 days, written straight into the table, and their aggregate rows. */
function generateSqlite(file: string, events: number): void {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const have = (db.prepare('select count(*) as n from usage_events').get() as { n: number }).n;
  if (have > 0) {
    console.error(`reusing ${fmt(have)} events in ${file}`);
    db.close();
    return;
  }
  const hasIndex = db.prepare(`select 1 from sqlite_master where name = 'usage_events_tenant_time'`).get() !== undefined;
  // Loading first and indexing after is several times faster than keeping the index up to date.
  if (hasIndex) db.exec('drop index usage_events_tenant_time');
  const ROWS = 64;
  const stmt = db.prepare(
    `insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source) values ${Array.from({ length: ROWS }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  );
  const now = Date.now();
  const monthOf = (t: number) => Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1);
  const methods = ['{"method":"GET"}', '{"method":"POST"}', '{"method":"PUT"}'];
  const total = events - (events % ROWS);
  const sums = new Map<string, [string, string, number, number]>();
  const write = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i += ROWS) {
      const params: unknown[] = [];
      for (let j = i; j < i + ROWS; j++) {
        const t = now - 60 * DAY + Math.floor((j / total) * 60 * DAY);
        const [ws, customer, month] = [`ws_other_${j % OTHER_TENANTS}`, `cus_other_${(j * 7) % OTHER_CUSTOMERS}`, monthOf(t)];
        params.push(ws, 'test', customer, 'api_calls', '1', t, month, t, null, methods[j % 3], 'api');
        const key = `${ws} ${customer} ${month}`;
        const sum = sums.get(key);
        if (sum) sum[3] += 1;
        else sums.set(key, [ws, customer, month, 1]);
      }
      stmt.run(params);
    }
  });
  const t0 = performance.now();
  const step = ROWS * 1024;
  for (let i = 0; i < total; i += step) {
    write(i, Math.min(total, i + step));
    if ((i / step) % 20 === 0) console.error(`  ${fmt(i)} events written, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  console.error(`${fmt(total)} events in ${((performance.now() - t0) / 1000).toFixed(0)} s; indexing and summing`);
  if (hasIndex) db.exec('create index usage_events_tenant_time on usage_events (workspace_id, environment, occurred_at, customer_id)');
  // These events have no rating dimension: one aggregate row each, the total.
  const aggregate = db.prepare(
    `insert into usage_aggregates (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at) values (?, 'test', ?, 'api_calls', ?, '', ?, ?, 0)`,
  );
  db.transaction(() => {
    for (const [ws, customer, month, n] of sums.values()) aggregate.run(ws, customer, month, String(n), n);
  })();
  console.error(`ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  db.close();
}

async function generatePostgres(url: string, events: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`select to_regclass('usage_events_tenant_time') is not null as indexed`);
    const { indexed } = rows[0] as { indexed: boolean };
    if (indexed) await client.query('drop index usage_events_tenant_time');
    const now = Date.now();
    const t0 = performance.now();
    for (let i = 0; i < events; i += 1_000_000) {
      await client.query(
        `insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, metadata, source)
         select 'ws_other_' || (j % ${OTHER_TENANTS}), 'test', 'cus_other_' || ((j * 7) % ${OTHER_CUSTOMERS}), 'api_calls', '1', t,
           (extract(epoch from date_trunc('month', to_timestamp(t / 1000.0) at time zone 'UTC')) * 1000)::bigint, t,
           (array['{"method":"GET"}', '{"method":"POST"}', '{"method":"PUT"}'])[j % 3 + 1], 'api'
         from (select j, ($1::bigint - ${60 * DAY} + (j::float8 / $2 * ${60 * DAY})::bigint) as t from generate_series($3::bigint, $4::bigint) as j) g`,
        [now, events, i, Math.min(events, i + 1_000_000) - 1],
      );
      console.error(`  ${fmt(Math.min(events, i + 1_000_000))} events written, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    if (indexed) await client.query('create index usage_events_tenant_time on usage_events (workspace_id, environment, occurred_at, customer_id, seq)');
    const sums = `select workspace_id, environment, customer_id, metric_name, period_start, count(*)::text, count(*), 0 from usage_events group by 1, 2, 3, 4, 5`;
    await client.query(
      `insert into usage_aggregates (workspace_id, environment, customer_id, metric_name, period_start, quantity_sum, event_count, updated_at, dimension) select *, '' from (${sums}) s`,
    );
    await client.query('vacuum analyze usage_events');
    console.error(`ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await client.end();
  }
}

async function timed(url: string, headers: Record<string, string>): Promise<{ ms: number; status: number; body: unknown }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(BUDGET_MS) });
    const body: unknown = await res.json();
    return { ms: performance.now() - t0, status: res.status, body };
  } catch {
    return { ms: performance.now() - t0, status: 0, body: null };
  }
}

/** Sequential requests: p50 / p99 / max in ms; stops early once a request passes the budget. */
async function sequential(label: string, url: string, headers: Record<string, string>, runs = RUNS) {
  await timed(url, headers); // warm-up
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const r = await timed(url, headers);
    if (r.status !== 200) throw new Error(`${label}: ${r.status} ${JSON.stringify(r.body)?.slice(0, 300)}`);
    ms.push(r.ms);
    const data = (r.body as { data?: unknown } | null)?.data;
    rows = Array.isArray(data) ? data.length : rows;
    if (r.ms > BUDGET_MS / 4) break; // a slow path: a few runs say enough
  }
  ms.sort((a, b) => a - b);
  return { label, runs: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms[ms.length - 1]!, rows };
}

const line = (r: { label: string; runs: number; p50: number; p99: number; max: number }, ceiling: number) =>
  `| ${r.label} | ${r.runs} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} | ${(r.p50 / ceiling).toFixed(1)} |`;

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const dataDir = KEEP_DIR ?? mkdtempSync(path.join(tmpdir(), 'tollgate-bench-report-'));
  if (KEEP_DIR && !existsSync(KEEP_DIR)) mkdirSync(KEEP_DIR, { recursive: true });
  const t0 = performance.now();
  let migrated = '';
  {
    const opened = openDatabase({ databaseUrl: scratch?.url ?? null, sqlitePath: path.join(dataDir, 'tollgate.db'), poolSize: 2 });
    const m0 = performance.now();
    const applied = await migrateToLatest(opened.db, { progress: (e) => console.error(`  ${e.migration}: ${fmt(e.done)} of ${fmt(e.total)} ${e.what}`) });
    if (applied.length > 0) migrated = `migrations ${applied.join(', ')} applied in ${((performance.now() - m0) / 1000).toFixed(1)} s; `;
    await opened.close();
  }
  if (scratch) await generatePostgres(scratch.url, EVENTS);
  else generateSqlite(path.join(dataDir, 'tollgate.db'), EVENTS);
  const generated = (performance.now() - t0) / 1000;

  const server = await startBenchServer({ DATA_DIR: dataDir, ENTITLEMENT_CACHE_TTL_MS: '0', ...(scratch ? { DATABASE_URL: scratch.url } : {}) });
  const out: string[] = [];
  try {
    const { url, secretKey, customerIds, customerId: acme, productId } = server.info;
    const auth = { authorization: `Bearer ${secretKey}` };
    const post = async (p: string, body: unknown): Promise<{ id: string }> => {
      const res = await fetch(`${url}${p}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as { id: string };
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json;
    };
    // The small tenant (the demo workspace): 20,000 events over its 100 customers this month,
    // split over four methods; and 9,000 events of the demo customer, each with its own endpoint.
    const now = Date.now();
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    const span = Math.max(60_000, now - monthStart - 60_000);
    const methods = ['GET', 'POST', 'PUT', 'DELETE'];
    for (let b = 0; b < 20; b++) {
      await post('/v1/ingest/batch', {
        events: Array.from({ length: 1000 }, (_, i) => ({
          customerId: customerIds[(b * 1000 + i) % customerIds.length],
          metricName: (b + i) % 5 === 0 ? 'tokens' : 'api_calls',
          quantity: (b + i) % 5 === 0 ? 512 : 1,
          occurredAt: new Date(monthStart + 30_000 + (((b * 1000 + i) * 7919) % span)).toISOString(),
          metadata: { method: methods[(b + i) % 4] },
        })),
      });
    }
    for (let b = 0; b < ENDPOINTS / 1000; b++) {
      await post('/v1/ingest/batch', {
        events: Array.from({ length: 1000 }, (_, i) => ({
          customerId: acme,
          metricName: 'api_calls',
          quantity: 1,
          occurredAt: new Date(now - 1000).toISOString(),
          metadata: { endpoint: `/v1/r/${b * 1000 + i}` },
        })),
      });
    }
    // A second customer on the same offering, with one aggregate row: the small case of item 9.
    const offerings = (await (await fetch(`${url}/api/v1/offerings?limit=100`, { headers: auth })).json()) as { data: Array<{ id: string; name: string }> };
    const pro = offerings.data.find((o) => o.name === 'Pro')!;
    const small = customerIds[0]!;
    const smallSub = await post('/api/v1/subscriptions', { customerId: small, offeringId: pro.id });
    await post('/v1/ingest', { customerId: small, metricName: 'api_calls', quantity: 3, occurredAt: new Date(now - 1000).toISOString() });
    const acmeSub = ((await (await fetch(`${url}/api/v1/subscriptions?customerId=${acme}`, { headers: auth })).json()) as { data: Array<{ id: string }> })
      .data[0]!.id;

    const ceiling = await sequential('bare route behind authentication (**ceiling**)', `${url}/__bench/authed`, auth, 200);
    const results = [
      ceiling,
      await sequential('report, groupBy=method, first page of 100', `${url}/api/v1/usage?groupBy=method&limit=100`, auth),
      await sequential('report, groupBy=method, one customer', `${url}/api/v1/usage?groupBy=method&customerId=${customerIds[7]}`, auth),
      await sequential('report without groupBy, first page of 100', `${url}/api/v1/usage?limit=100`, auth),
      await sequential(
        `check, customer with ${fmt(ENDPOINTS)} distinct endpoints`,
        `${url}/v1/entitlements/check?accessorId=${acme}&productId=${productId}`,
        auth,
      ),
      await sequential('check, customer with one aggregate row', `${url}/v1/entitlements/check?accessorId=${small}&productId=${productId}`, auth),
      await sequential(`upcoming invoice, customer with ${fmt(ENDPOINTS)} distinct endpoints`, `${url}/api/v1/subscriptions/${acmeSub}/upcoming-invoice`, auth),
      await sequential('upcoming invoice, customer with one aggregate row', `${url}/api/v1/subscriptions/${smallSub.id}/upcoming-invoice`, auth),
    ];

    // Checks alone, then with groupBy reports running back to back on one more connection.
    const check = (i: number) => ({
      url: `${url}/v1/entitlements/check?accessorId=${customerIds[i % customerIds.length]}&productId=${productId}`,
      init: { headers: auth },
    });
    const report = () => ({ url: `${url}/api/v1/usage?groupBy=method&limit=100`, init: { headers: auth } });
    const alone = await closedLoop({ connections: 4, seconds: SECONDS, request: check });
    const [during, reports] = await Promise.all([
      closedLoop({ connections: 4, seconds: SECONDS, request: check }),
      closedLoop({ connections: 1, seconds: SECONDS, request: report }),
    ]);
    const conc = (label: string, r: LoadResult) =>
      `| ${label} | ${fmt(r.ok / r.seconds)} | ${percentile(r.latenciesOk, 50).toFixed(1)} | ${percentile(r.latenciesOk, 99).toFixed(1)} | ${(r.latenciesOk.at(-1) ?? NaN).toFixed(1)} | ${r.other} |`;

    out.push(
      `\nUsage report and entitlement checks, ${scratch ? 'PostgreSQL' : 'SQLite'}, ${fmt(EVENTS)} events of ${OTHER_TENANTS} other tenants (${migrated}${generated.toFixed(0)} s to prepare)`,
    );
    out.push('| request | runs | p50 ms | p99 ms | max ms | p50 / ceiling p50 |');
    out.push('|---|---|---|---|---|---|');
    for (const r of results) out.push(line(r, ceiling.p50));
    out.push(`(rows on a page: groupBy ${results[1]!.rows}, one customer ${results[2]!.rows}, without groupBy ${results[3]!.rows})`);
    out.push(`\nEntitlement checks at 4 connections, ${SECONDS} s, alone and while groupBy reports run back to back on a fifth`);
    out.push('| phase | checks/s | p50 ms | p99 ms | max ms | errors |');
    out.push('|---|---|---|---|---|---|');
    out.push(conc('checks alone', alone));
    out.push(conc('checks during reports', during));
    out.push(conc('the reports themselves', reports));
  } finally {
    await server.stop();
    if (!KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  }
  console.log(out.join('\n'));
}

await main();
