// Shared by renewals.ts and collection.ts: many subscriptions on one test clock, made fast. One
// customer and subscription are made through the API (and its first invoice finalized by an
// advance); the rest are their rows cloned with bulk SQL, so a 100,000-subscription fixture takes
// seconds instead of the hours the API would. Usage is written as ingestion writes it (events, UTC
// hourly and monthly totals), so the billing job reads what it would read in production. One
// module, so that both benches build the same fixture and their renewal figures stay comparable.
import http from 'node:http';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createIdGenerator } from '../packages/server/src/lib/ids.js';
import type { PeriodUsage } from '../packages/server/src/modules/usage/period-usage.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** The workspace's grace period (the default): drafts are finalized this long after their period ends. */
export const GRACE = HOUR;
/** Where the clock starts: a period that starts and ends inside an hour, so both edges are read from raw events. */
export const T0 = Date.UTC(2026, 0, 5, 2, 34, 56, 789);
export const METRICS = ['api_calls', 'tokens', 'seats'] as const;
const EVENTS_PER_HOUR = 5;

export type Row = Record<string, unknown>;

/** The little these benches need of a database: queries with `?` placeholders, and bulk inserts of rows as objects. */
export interface Store {
  all<T = Row>(q: string, params?: unknown[]): Promise<T[]>;
  run(q: string, params?: unknown[]): Promise<void>;
  insert(table: string, rows: Row[]): Promise<void>;
  analyze(): Promise<void>;
  close(): Promise<void>;
}

export function sqliteStore(file: string): Store {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  return {
    async all<T>(q: string, params: unknown[] = []) {
      return db.prepare(q).all(...params) as T[];
    },
    async run(q, params = []) {
      db.prepare(q).run(...params);
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0]!);
      const stmt = db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const r of rows) stmt.run(columns.map((c) => r[c] ?? null));
      })();
    },
    async analyze() {
      db.exec('analyze');
    },
    async close() {
      db.close();
    },
  };
}

export async function postgresStore(url: string): Promise<Store> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let i = 0;
  const numbered = (q: string) => ((i = 0), q.replace(/\?/g, () => `$${++i}`));
  return {
    async all<T>(q: string, params: unknown[] = []) {
      return (await client.query(numbered(q), params)).rows as T[];
    },
    async run(q, params = []) {
      await client.query(numbered(q), params);
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0]!).join(', ');
      for (let k = 0; k < rows.length; k += 5000) {
        await client.query(`insert into ${table} (${columns}) select ${columns} from json_populate_recordset(null::${table}, $1)`, [
          JSON.stringify(rows.slice(k, k + 5000)),
        ]);
      }
    },
    async analyze() {
      await client.query('vacuum analyze');
    },
    close: () => client.end(),
  };
}

/** A JSON request with no client-side timeout (an advance answers when its billing work is done). */
export function request(url: string, method: string, auth: string, body?: unknown): Promise<{ status: number; json: Row }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      { method, headers: { authorization: auth, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const out = { status: res.statusCode ?? 0, json: (text ? JSON.parse(text) : {}) as Row };
          if (out.status >= 300) reject(new Error(`${method} ${url}: ${out.status} ${text}`));
          else resolve(out);
        });
      },
    );
    req.setTimeout(0);
    req.on('error', reject);
    req.end(data);
  });
}

/** The rows a template subscription left (made through the API, its first invoice finalized), to be cloned. */
export interface Template {
  customer: Row;
  subscription: Row;
  invoice: Row;
  /** The invoice sequence's next number, where the clones' invoices continue. */
  nextInvoiceNumber: number;
}

export async function readTemplate(s: Store, tenant: string[], customerId: string, subscriptionId: string): Promise<Template> {
  const [customer] = await s.all(`select * from customers where id = ?`, [customerId]);
  const [subscription] = await s.all(`select * from subscriptions where id = ?`, [subscriptionId]);
  const [invoice] = await s.all(`select * from invoices where subscription_id = ?`, [subscriptionId]);
  const [seq] = await s.all<{ next_value: number }>(
    `select next_value from document_sequences where workspace_id = ? and environment = ? and kind = 'invoice'`,
    tenant,
  );
  if (!customer || !subscription || !invoice || !seq || invoice.status !== 'finalized') throw new Error('the template rows are not as expected');
  return { customer, subscription, invoice, nextInvoiceNumber: Number(seq.next_value) };
}

/**
 * Clones the template into `subscriptions` subscriptions (the template's own among them), up to
 * `perCustomer` to a customer, customers filled in turn: the template's customer first, then new
 * ones with external ids `${externalIdPrefix}${c}`. Each clone gets a copy of the template's
 * finalized first invoice, numbered on from the sequence (which is moved past them), so the
 * renewals continue a gapless numbering as they would. Returns the customers' ids, the template's
 * first.
 */
export async function cloneTemplate(
  s: Store,
  tenant: string[],
  template: Template,
  opts: { subscriptions: number; perCustomer: number; externalIdPrefix: string },
): Promise<string[]> {
  const { customer: customerRow, subscription: subRow, invoice: invoiceRow } = template;
  const customers = Math.max(1, Math.ceil(opts.subscriptions / opts.perCustomer));
  // Ids made at the template's creation time, as the service would have made them around then.
  let idMs = Number(customerRow.created_at);
  const ids = createIdGenerator({ now: () => idMs });
  const customerRows: Row[] = [];
  const customerIds = [String(customerRow.id)];
  for (let c = 1; c < customers; c++) {
    const id = ids.next('customer');
    customerIds.push(id);
    customerRows.push({ ...customerRow, id, external_id: `${opts.externalIdPrefix}${c}` });
  }
  idMs = Number(subRow.created_at);
  const subs: Row[] = [];
  const invoices: Row[] = [];
  let number = template.nextInvoiceNumber;
  const prefix = String(invoiceRow.number).replace(/-\d+$/, '');
  let left = opts.subscriptions;
  for (let c = 0; c < customers; c++) {
    const here = Math.min(opts.perCustomer, left);
    left -= here;
    // The template is the first customer's first subscription: it exists already.
    for (let k = c === 0 ? 1 : 0; k < here; k++) {
      const id = ids.next('subscription');
      subs.push({ ...subRow, id, customer_id: customerIds[c] });
      invoices.push({
        ...invoiceRow,
        id: ids.next('invoice'),
        customer_id: customerIds[c],
        subscription_id: id,
        number: `${prefix}-${String(number++).padStart(6, '0')}`,
      });
    }
  }
  await s.insert('customers', customerRows);
  await s.insert('subscriptions', subs);
  await s.insert('invoices', invoices);
  await s.run(`update document_sequences set next_value = ? where workspace_id = ? and environment = ? and kind = 'invoice'`, [number, ...tenant]);
  return customerIds;
}

/** The instants of a customer's events in a period: the start's hour, two days inside, the end's hour. */
function eventTimes(start: number, end: number): number[] {
  const hours = [start + 10 * 60_000, start + 3 * DAY + 17 * 60_000, start + 12 * DAY + 5 * 60_000, end - 20 * 60_000];
  return hours.flatMap((h) => Array.from({ length: EVENTS_PER_HOUR }, (_, k) => h + k * 60_000));
}

/** Integer quantities per event, by customer and metric (exact, so sums are plain integers). */
function quantityOf(c: number, metric: (typeof METRICS)[number]): number {
  if (metric === 'api_calls') return 4_000 + (c % 7) * 1_000;
  if (metric === 'tokens') return 20_000 + (c % 13) * 3_000;
  return 1 + (c % 4);
}

const monthStart = (t: number) => Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1);

/**
 * Usage for every customer in each of `periods` ([start, end) pairs), as ingestion writes it:
 * events, their UTC hours and months (totals only: no metadata, no dimensions). Returns the row
 * counts and, by period then customer, the usage a rating of that period reads (renewals.ts rates
 * it in process for its ceiling).
 */
export async function writeUsage(
  s: Store,
  workspaceId: string,
  customerIds: string[],
  periods: ReadonlyArray<readonly [number, number]>,
): Promise<{ events: number; hourly: number; monthly: number; usage: PeriodUsage[][] }> {
  const events: Row[] = [];
  const hourly = new Map<string, Row>();
  const monthly = new Map<string, Row>();
  const usageOf: PeriodUsage[][] = periods.map(() => []);
  for (let c = 0; c < customerIds.length; c++) {
    for (const [p, [start, end]] of periods.entries()) {
      const times = eventTimes(start, end);
      const usage: PeriodUsage = new Map();
      for (const metric of METRICS) {
        const q = quantityOf(c, metric);
        for (const t of times) {
          events.push({
            workspace_id: workspaceId,
            environment: 'test',
            customer_id: customerIds[c],
            metric_name: metric,
            quantity: String(q),
            occurred_at: t,
            period_start: monthStart(t),
            received_at: t,
            event_id: null,
            metadata: null,
            source: 'api',
          });
          for (const [map, key, extra] of [
            [hourly, 'hour_start', Math.floor(t / HOUR) * HOUR],
            [monthly, 'period_start', monthStart(t)],
          ] as const) {
            const k = `${customerIds[c]}|${metric}|${extra}`;
            const r = map.get(k) ?? {
              workspace_id: workspaceId,
              environment: 'test',
              customer_id: customerIds[c],
              metric_name: metric,
              [key]: extra,
              dimension: '',
              quantity_sum: '0',
              event_count: 0,
              updated_at: t,
            };
            r.quantity_sum = String(Number(r.quantity_sum) + q);
            r.event_count = Number(r.event_count) + 1;
            map.set(k, r);
          }
        }
        usage.set(metric, { quantity: String(q * times.length), events: times.length, dimensions: new Map() });
      }
      usageOf[p]!.push(usage);
    }
  }
  await s.insert('usage_events', events);
  await s.insert('usage_hourly', [...hourly.values()]);
  await s.insert('usage_aggregates', [...monthly.values()]);
  return { events: events.length, hourly: hourly.size, monthly: monthly.size, usage: usageOf };
}
