import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HttpSeries } from './http-series.js';

/**
 * This node's Prometheus series (docs/production.md, "Metrics and tracing"): one Registry per app, built by the
 * composition root, so tests that build several apps in one process never share a series. Code
 * that records gets typed instruments from here and never imports prom-client.
 *
 * Labels are low-cardinality by construction: a route pattern, a status class, a source, a
 * provider, an outcome; never a workspace, customer, key or a raw URL. Recording is an increment
 * on a child resolved once per label set, except the HTTP series, which every request records:
 * plain numbers turned into families at scrape time (lib/http-series.ts). State (queue depths,
 * pool, Redis) is read at scrape time.
 */

/** One series of a counter, its labels resolved once. */
export interface Count {
  inc(by?: number): void;
}

/** One series of a histogram, its labels resolved once. */
export interface Observe {
  observe(value: number): void;
}

/** A Fastify admission gate's view (http/admission.ts): what it holds now, and each request it sheds. */
export interface AdmissionMeter {
  track(inFlight: () => number, limit: () => number): void;
  shed: Count;
}

export type AdmissionKind = 'ingestion' | 'webhook' | 'upload';
export type IngestSource = 'api' | 'upload' | 'webhook';
export type WriteKind = 'usage' | 'batch' | 'webhook';
export type CacheStats = { name: string; hits: number; misses: number };
export type PoolStats = { total: number; idle: number; waiting: number; max: number };

/** Seconds on a monotonic clock, for durations only (never a timestamp that is stored or billed). */
export const monotonicSeconds = (): number => performance.now() / 1_000;

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_SIZES = [1, 5, 10, 25, 50, 100, 250, 500, 1_000, 5_000];
const QUEUE_AGE_SECONDS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3_600, 21_600, 86_400];

export interface MetricsOptions {
  /** The build's version (packages/server/package.json). */
  version: string;
  /** Names this node in tollgate_build_info, so nodes behind one balancer can be told apart. */
  node: string;
  dialect: string;
  /** prom-client's process and Node.js series (CPU, memory, event loop lag, GC). */
  processMetrics: boolean;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly http = new HttpSeries(SECONDS);
  private readonly counters = new Map<string, Count>();
  private readonly admissionReads: Array<{ kind: AdmissionKind; inFlight: () => number; limit: () => number }> = [];
  private readonly shedTotal: Counter<'kind'>;
  private readonly ingestEvents: Counter<'source'>;
  private readonly ingestDuplicates: Counter<'source'>;
  private readonly batchSizes: Histogram<'source'>;
  private readonly writerLatency: Histogram<'kind'>;
  private readonly writerWrites: Counter<'kind' | 'result'>;
  private readonly webhookVerifications: Counter<'provider' | 'outcome'>;
  private readonly outboundAttempts: Counter<'outcome' | 'reason'>;
  private readonly billing: Counter<'clock' | 'what'>;
  /** What gauges read at scrape time, set by watch*() (so the collect callbacks need no `this`). */
  private readonly reads = { writerQueue: (): number => 0, caches: (): CacheStats[] => [], outboundInFlight: (): number => 0 };
  readonly outboundQueueAge: Observe;
  readonly outboundDuration: Observe;

  constructor(opts: MetricsOptions) {
    const registers = [this.registry];
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'tollgate_build_info',
      help: 'Always 1: the build and the node serving it.',
      labelNames: ['version', 'node_version', 'node', 'database'],
      registers,
    }).set({ version: opts.version, node_version: process.version, node: opts.node, database: opts.dialect }, 1);
    // The two HTTP families are read from plain numbers at scrape time (lib/http-series.ts).
    const http = this.http;
    const family = (name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]) =>
      this.registry.registerMetric({ name, help, type, aggregator: 'sum', get: () => ({ name, help, type, aggregator: 'sum', values: values() }) } as never);
    family('tollgate_http_requests_total', 'HTTP requests answered, by route pattern and status class.', 'counter', () => http.counterValues());
    family('tollgate_http_request_duration_seconds', 'From the request arriving to the response sent, by route pattern and status class.', 'histogram', () =>
      http.histogramValues('tollgate_http_request_duration_seconds'),
    );
    const { reads, admissionReads } = this;
    const admissionGauge = (name: string, help: string, read: (a: Metrics['admissionReads'][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['kind'],
        registers,
        collect() {
          this.reset();
          for (const a of admissionReads) this.inc({ kind: a.kind }, read(a));
        },
      });
    admissionGauge('tollgate_admission_in_flight', 'Requests admitted and in process now (ingestion, webhook, upload).', (a) => a.inFlight());
    admissionGauge('tollgate_admission_limit', 'How many requests of the kind are admitted at once (INGEST_MAX_IN_FLIGHT, …).', (a) => a.limit());
    this.shedTotal = new Counter({
      name: 'tollgate_admission_shed_total',
      help: 'Requests answered 503 at once because the kind was at its limit.',
      labelNames: ['kind'],
      registers,
    });
    this.ingestEvents = new Counter({
      name: 'tollgate_ingest_events_total',
      help: 'Usage events accepted (stored and counted).',
      labelNames: ['source'],
      registers,
    });
    this.ingestDuplicates = new Counter({
      name: 'tollgate_ingest_duplicate_events_total',
      help: 'Usage events skipped as duplicates (eventId seen).',
      labelNames: ['source'],
      registers,
    });
    this.batchSizes = new Histogram({
      name: 'tollgate_ingest_batch_size',
      help: 'Events per written batch (accepted plus duplicates).',
      labelNames: ['source'],
      buckets: BATCH_SIZES,
      registers,
    });
    this.readGauge('tollgate_ingest_writer_queue_depth', 'Writes handed to the usage writer and not yet committed (on SQLite: the one write connection).', () =>
      reads.writerQueue(),
    );
    this.writerLatency = new Histogram({
      name: 'tollgate_ingest_writer_commit_seconds',
      help: 'From handing a write to the usage writer to its commit (queueing and group commit included).',
      labelNames: ['kind'],
      buckets: SECONDS,
      registers,
    });
    this.writerWrites = new Counter({
      name: 'tollgate_ingest_writer_writes_total',
      help: 'Writes the usage writer settled, committed or failed.',
      labelNames: ['kind', 'result'],
      registers,
    });
    const cacheCounter = (result: 'hit' | 'miss') =>
      new Counter({
        name: `tollgate_cache_${result === 'hit' ? 'hits' : 'misses'}_total`,
        help: `Lookups in this node's caches that ${result === 'hit' ? 'found' : 'missed'} an entry (entitlements: the entitlement answer cache).`,
        labelNames: ['cache'],
        registers,
        collect() {
          this.reset();
          for (const s of reads.caches()) this.inc({ cache: s.name }, result === 'hit' ? s.hits : s.misses);
        },
      });
    cacheCounter('hit');
    cacheCounter('miss');
    this.webhookVerifications = new Counter({
      name: 'tollgate_webhook_verifications_total',
      help: 'Inbound webhook requests by provider and signature outcome (passed, failed, skipped, unknown_source).',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.outboundAttempts = new Counter({
      name: 'tollgate_outbound_webhook_attempts_total',
      help: 'Outbound webhook delivery attempts by outcome (succeeded, failed, abandoned) and failure reason.',
      labelNames: ['outcome', 'reason'],
      registers,
    });
    this.outboundQueueAge = new Histogram({
      name: 'tollgate_outbound_webhook_queue_age_seconds',
      help: 'How long a due delivery waited for its attempt (from its due time to the request).',
      buckets: QUEUE_AGE_SECONDS,
      registers,
    });
    this.outboundDuration = new Histogram({
      name: 'tollgate_outbound_webhook_attempt_seconds',
      help: 'One delivery attempt: connect to response.',
      buckets: SECONDS,
      registers,
    });
    this.readGauge('tollgate_outbound_webhook_in_flight', 'Delivery attempts this node has in flight.', () => reads.outboundInFlight());
    this.billing = new Counter({
      name: 'tollgate_billing_progress_total',
      help: 'Billing job progress: runs, renewals (periods closed), invoices finalized, failures; clock is real or test.',
      labelNames: ['clock', 'what'],
      registers,
    });
  }

  /** A request answered: `route` is the pattern (never the URL), null when no route matched. */
  httpRequest(method: string, route: string | null, status: number, seconds: number): void {
    this.http.record(method, route, status, seconds);
  }

  admission(kind: AdmissionKind): AdmissionMeter {
    return {
      track: (inFlight, limit) => this.admissionReads.push({ kind, inFlight, limit }),
      shed: this.shedTotal.labels({ kind }),
    };
  }

  ingest(source: IngestSource): { events: Count; duplicates: Count; batchSize: Observe } {
    return {
      events: this.ingestEvents.labels({ source }),
      duplicates: this.ingestDuplicates.labels({ source }),
      batchSize: this.batchSizes.labels({ source }),
    };
  }

  writer(kind: WriteKind): { commit: Observe; committed: Count; failed: Count } {
    return {
      commit: this.writerLatency.labels({ kind }),
      committed: this.writerWrites.labels({ kind, result: 'committed' }),
      failed: this.writerWrites.labels({ kind, result: 'failed' }),
    };
  }

  webhookVerification(provider: string, outcome: 'passed' | 'failed' | 'skipped' | 'unknown_source'): Count {
    return this.child('verification', this.webhookVerifications, { provider, outcome });
  }

  outboundAttempt(outcome: 'succeeded' | 'failed' | 'abandoned', reason: string): Count {
    return this.child('outbound', this.outboundAttempts, { outcome, reason });
  }

  billingProgress(clock: 'real' | 'test', what: 'runs' | 'renewals' | 'invoices_finalized' | 'failures'): Count {
    return this.child('billing', this.billing, { clock, what });
  }

  /** State read at scrape time. Each may be set once per app (compose.ts); the last one wins. */
  watchWriterQueue(read: () => number): void {
    this.reads.writerQueue = read;
  }
  watchCaches(read: () => CacheStats[]): void {
    this.reads.caches = read;
  }
  watchOutboundInFlight(read: () => number): void {
    this.reads.outboundInFlight = read;
  }
  watchDatabasePool(read: () => PoolStats): void {
    this.readGauge('tollgate_db_pool_connections', 'PostgreSQL: connections open in this node’s pool.', () => read().total);
    this.readGauge('tollgate_db_pool_idle_connections', 'PostgreSQL: open connections not in use.', () => read().idle);
    this.readGauge('tollgate_db_pool_waiting_requests', 'PostgreSQL: queries waiting for a free connection.', () => read().waiting);
    this.readGauge('tollgate_db_pool_max_connections', 'PostgreSQL: the pool’s size.', () => read().max);
  }
  watchRedis(up: () => boolean, nodes: () => number): void {
    this.readGauge('tollgate_redis_up', 'Redis (REDIS_URL) connected and subscribed: 1, else 0 (the node runs degraded).', () => (up() ? 1 : 0));
    this.readGauge(
      'tollgate_rate_limit_nodes',
      'The nodes a rate limit is shared by while Redis is away: each degraded node allows 1/this of a limit (the live nodes last counted, at least REDIS_MIN_NODES).',
      nodes,
    );
  }

  /** A gauge without labels whose value is read at scrape time. */
  private readGauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** A child for a label set that is only known at the call (provider, reason): resolved once and kept. */
  private child<L extends string>(family: string, counter: Counter<L>, labels: Record<L, string>): Count {
    const key = `${family}|${Object.values(labels).join('|')}`;
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = counter.labels(labels as never)));
    return c;
  }
}
