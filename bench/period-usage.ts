// Usage over exact periods (issue 16): one customer whose subscription's period starts at an
// arbitrary instant (12:34:56.789, 20 days ago, an anniversary period of one month), checked with
// GET /v1/entitlements/check (answer cache off, so every check reads usage) and priced with
// GET /api/v1/subscriptions/{id}/upcoming-invoice, first with 1,000 events in the period, then with
// 5,000,000 (plus events of the previous period in the start edge's hour, which the edge read has
// to walk past), against an authenticated bare route on the same server in the same run.
// Run: npm run bench:period-usage                    the embedded default (SQLite file)
//      BENCH_DATABASE_URL=postgres://… npm run bench:period-usage   a scratch database on that server
// About 2 min; 127.0.0.1 only; stops by itself.
import { addMonthsClamped } from '../packages/pricing/src/periods.js';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { scratchPostgres, startBenchServer } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const MANY = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const FEW = 1000;
/** Events of the previous period inside the hour the period starts in: what the start edge reads past. */
const BEFORE_START = 10_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The i-th of `n` events spread evenly over [from, to): api_calls of 1, every fifth tokens of 512
 * (the two metrics the demo's Pro offering meters), as the write path stores them.
 */
function eventAt(i: number, n: number, from: number, to: number): { t: number; metric: string; quantity: string } {
  return { t: from + Math.floor((i / n) * (to - from)), metric: i % 5 === 0 ? 'tokens' : 'api_calls', quantity: i % 5 === 0 ? '512' : '1' };
}

interface Store {
  /** Appends events (no aggregates). */
  insertEvents(customerId: string, n: number, from: number, to: number): Promise<void>;
  /** The customer's hourly and monthly total rows again from its events, exactly (integer sums). */
  resum(customerId: string): Promise<void>;
  setPeriod(subscriptionId: string, start: number, end: number): Promise<void>;
  close(): Promise<void>;
}

function sqliteStore(file: string, workspaceId: string): Store {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  const ROWS = 64;
  const insert = db.prepare(
    `insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source) values ${Array.from({ length: ROWS }, () => "(?, 'test', ?, ?, ?, ?, ?, ?, null, null, 'api')").join(', ')}`,
  );
  const one = db.prepare(
    `insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source) values (?, 'test', ?, ?, ?, ?, ?, ?, null, null, 'api')`,
  );
  const month = (t: number) => Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1);
  return {
    async insertEvents(customerId, n, from, to) {
      const write = db.transaction((a: number, b: number) => {
        for (let i = a; i < b; i += ROWS) {
          const params: unknown[] = [];
          for (let j = i; j < Math.min(b, i + ROWS); j++) {
            const e = eventAt(j, n, from, to);
            params.push(workspaceId, customerId, e.metric, e.quantity, e.t, month(e.t), e.t);
          }
          if (params.length === ROWS * 7) insert.run(params);
          else for (let k = 0; k < params.length; k += 7) one.run(params.slice(k, k + 7));
        }
      });
      const step = ROWS * 1024;
      for (let i = 0; i < n; i += step) write(i, Math.min(n, i + step));
    },
    async resum(customerId) {
      db.transaction(() => {
        db.prepare(`delete from usage_hourly where workspace_id = ? and environment = 'test' and customer_id = ?`).run(workspaceId, customerId);
        db.prepare(
          `insert into usage_hourly (workspace_id, environment, customer_id, metric_name, hour_start, dimension, quantity_sum, event_count, updated_at)
           select workspace_id, environment, customer_id, metric_name, (occurred_at / ${HOUR}) * ${HOUR}, '', cast(sum(cast(quantity as integer)) as text), count(*), 0
           from usage_events where workspace_id = ? and environment = 'test' and customer_id = ? group by 1, 2, 3, 4, 5`,
        ).run(workspaceId, customerId);
        db.prepare(`delete from usage_aggregates where workspace_id = ? and environment = 'test' and customer_id = ?`).run(workspaceId, customerId);
        db.prepare(
          `insert into usage_aggregates (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at)
           select workspace_id, environment, customer_id, metric_name, period_start, '', cast(sum(cast(quantity as integer)) as text), count(*), 0
           from usage_events where workspace_id = ? and environment = 'test' and customer_id = ? group by 1, 2, 3, 4, 5`,
        ).run(workspaceId, customerId);
      })();
      db.exec('analyze');
    },
    async setPeriod(id, start, end) {
      db.prepare('update subscriptions set current_period_start = ?, current_period_end = ? where id = ?').run(start, end, id);
    },
    async close() {
      db.close();
    },
  };
}

async function postgresStore(url: string, workspaceId: string): Promise<Store> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async insertEvents(customerId, n, from, to) {
      for (let i = 0; i < n; i += 1_000_000) {
        await client.query(
          `insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, metadata, source)
           select $1, 'test', $2, case when j % 5 = 0 then 'tokens' else 'api_calls' end, case when j % 5 = 0 then '512' else '1' end, t,
             (extract(epoch from date_trunc('month', to_timestamp(t / 1000.0) at time zone 'UTC')) * 1000)::bigint, t, null, 'api'
           from (select j, ($3::bigint + floor(j::numeric / $4 * ($5::bigint - $3::bigint)))::bigint as t from generate_series($6::bigint, $7::bigint) as j) g`,
          [workspaceId, customerId, from, n, to, i, Math.min(n, i + 1_000_000) - 1],
        );
      }
    },
    async resum(customerId) {
      await client.query('begin');
      await client.query(`delete from usage_hourly where workspace_id = $1 and environment = 'test' and customer_id = $2`, [workspaceId, customerId]);
      await client.query(
        `insert into usage_hourly (workspace_id, environment, customer_id, metric_name, hour_start, dimension, quantity_sum, event_count, updated_at)
         select workspace_id, environment, customer_id, metric_name, (occurred_at / ${HOUR}) * ${HOUR}, '', sum(quantity::numeric)::text, count(*), 0
         from usage_events where workspace_id = $1 and environment = 'test' and customer_id = $2 group by 1, 2, 3, 4, 5`,
        [workspaceId, customerId],
      );
      await client.query(`delete from usage_aggregates where workspace_id = $1 and environment = 'test' and customer_id = $2`, [workspaceId, customerId]);
      await client.query(
        `insert into usage_aggregates (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at)
         select workspace_id, environment, customer_id, metric_name, period_start, '', sum(quantity::numeric)::text, count(*), 0
         from usage_events where workspace_id = $1 and environment = 'test' and customer_id = $2 group by 1, 2, 3, 4, 5`,
        [workspaceId, customerId],
      );
      await client.query('commit');
      await client.query('vacuum analyze usage_events');
      await client.query('vacuum analyze usage_hourly');
    },
    async setPeriod(id, start, end) {
      await client.query('update subscriptions set current_period_start = $1, current_period_end = $2 where id = $3', [start, end, id]);
    },
    close: () => client.end(),
  };
}

const run = (url: string, headers: Record<string, string>) => autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const server = await startBenchServer({ ENTITLEMENT_CACHE_TTL_MS: '0', ...(scratch ? { DATABASE_URL: scratch.url } : {}) });
  const out: string[] = [];
  let store: Store | null = null;
  try {
    const { url, secretKey, customerId, productId, workspaceId, databaseFile } = server.info;
    const auth = { authorization: `Bearer ${secretKey}` };
    const subs = (await (await fetch(`${url}/api/v1/subscriptions?customerId=${customerId}`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    const subscriptionId = subs.data[0]!.id;
    store = scratch ? await postgresStore(scratch.url, workspaceId) : sqliteStore(databaseFile!, workspaceId);
    // An anniversary period: it started 20 days ago at hh:34:56.789 and lasts a month.
    const now = Date.now();
    const start = Math.floor((now - 20 * DAY) / HOUR) * HOUR + 34 * 60_000 + 56_789;
    const end = addMonthsClamped(start, 1);
    await store.setPeriod(subscriptionId, start, end);
    const upTo = now - 60_000;
    const startHour = Math.floor(start / HOUR) * HOUR;

    const check = `${url}/v1/entitlements/check?accessorId=${customerId}&productId=${productId}`;
    const invoice = `${url}/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`;
    const phase = async (label: string) => {
      // Warm-up: the first read of an edge after new events in its hour walks its raw events.
      const first = performance.now();
      const body = (await (await fetch(check, { headers: auth })).json()) as { periodStart: string };
      const firstMs = performance.now() - first;
      await run(`${url}/__bench/authed`, auth);
      const results = [
        ['bare route behind authentication (**ceiling**)', await run(`${url}/__bench/authed`, auth)],
        ['GET /v1/entitlements/check (uncached answers)', await run(check, auth)],
        ['GET /api/v1/subscriptions/{id}/upcoming-invoice', await run(invoice, auth)],
      ] as const;
      const inv = (await (await fetch(invoice, { headers: auth })).json()) as { lines: Array<{ metricName: string | null; quantity: string | null }> };
      const quantities = inv.lines
        .filter((l) => l.metricName)
        .map((l) => `${l.metricName} ${l.quantity}`)
        .join(', ');
      return { label, results, firstMs, periodStart: body.periodStart, quantities };
    };

    const t0 = performance.now();
    await store.insertEvents(customerId, BEFORE_START, startHour, start);
    await store.insertEvents(customerId, FEW, start, upTo);
    await store.resum(customerId);
    const fewReady = (performance.now() - t0) / 1000;
    const few = await phase(`${fmt(FEW)} events in the period`);
    const t1 = performance.now();
    await store.insertEvents(customerId, MANY - FEW, start, upTo);
    await store.resum(customerId);
    const manyReady = (performance.now() - t1) / 1000;
    const many = await phase(`${fmt(MANY)} events in the period`);

    out.push(
      `\nUsage over an exact period, ${scratch ? 'PostgreSQL' : 'SQLite'}: one customer, period ${new Date(start).toISOString()} to ${new Date(end).toISOString()}, ` +
        `${fmt(BEFORE_START)} events of the previous period in its first hour; ${CONNECTIONS} connections, ${SECONDS} s each (data: ${fewReady.toFixed(0)} s, then ${manyReady.toFixed(0)} s)`,
    );
    out.push('| events in the period | route | requests/s | ratio to ceiling | p50 ms | p99 ms | non-2xx |');
    out.push('|---|---|---|---|---|---|---|');
    for (const p of [few, many]) {
      const ceiling = p.results[0][1].requests.average;
      for (const [name, r] of p.results)
        out.push(
          `| ${p.label} | ${name} | ${fmt(r.requests.average)} | ${(r.requests.average / ceiling).toFixed(2)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} |`,
        );
    }
    for (const p of [few, many])
      out.push(
        `${p.label}: first check after writing ${p.firstMs.toFixed(1)} ms (edge read); invoice quantities: ${p.quantities}; periodStart ${p.periodStart}`,
      );
    const ratio = (i: number) => many.results[i]![1].requests.average / few.results[i]![1].requests.average;
    out.push(`5M / 1,000 requests/s: check ${ratio(1).toFixed(2)}, invoice ${ratio(2).toFixed(2)}, ceiling ${ratio(0).toFixed(2)}`);
  } finally {
    await store?.close();
    await server.stop();
    server.cleanup();
    await scratch?.drop();
  }
  console.log(out.join('\n'));
}

await main();
