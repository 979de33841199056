import { QueueFullError, TollgateError } from './errors.js';
import type { IngestResult } from './api-types.js';
import type { HttpClient } from './http-client.js';

/** The spec's batch limit: at most 1,000 events per POST /v1/ingest/batch. */
export const MAX_BATCH_EVENTS = 1000;

/**
 * Any JSON value. The server takes metadata nested up to 5 levels (metadata itself the first), 50
 * keys per object (of at most 40 characters), 50 items per array, strings of at most 500
 * characters, 256 values and 32,768 characters of keys and strings in all; reports and rating
 * address a nested value by a dotted path such as request.method.
 */
export type MetadataValue = string | number | boolean | null | MetadataValue[] | { [key: string]: MetadataValue };

/** A usage event as track() takes it: occurredAt defaults to now, eventId to a random UUID. */
export interface UsageEvent {
  /** The customer: its cus_ id or your externalId. */
  customerId: string;
  metricName: string;
  quantity: number;
  /** When the usage happened (billing uses this time, not delivery time). Default: now. */
  occurredAt?: string | Date;
  metadata?: Record<string, MetadataValue>;
  /** Your id for the event; the server skips an id seen in the last 24 hours. Default: a random UUID. */
  eventId?: string;
}

/** An event as sent: every field settled at track() time, so a retry sends the same bytes. */
export interface QueuedEvent {
  customerId: string;
  metricName: string;
  quantity: number;
  occurredAt: string;
  eventId: string;
  metadata?: Record<string, MetadataValue>;
}

/** How many failed batches a FlushResult lists; past it they are only counted (failedBatches, failedEvents). */
export const MAX_REPORTED_FAILURES = 100;

/** A batch given up on: refused by the server (a 4xx), or unanswered after the retries the spec allows. */
export interface FailedBatch {
  /** The batch's events as sent (eventIds settled): log them, or track() them again (the server skips an eventId it has). */
  events: QueuedEvent[];
  /** The batch's X-Idempotency-Key, the same on every attempt. */
  idempotencyKey: string;
  /** error.errors[0].code: UNKNOWN_METRIC and the like (a 400 names each bad event), RATE_LIMITED, NETWORK_ERROR, TIMEOUT, … */
  code: string;
  /** error.errors[0].message. */
  message: string;
  /** The whole error: status (0 when no answer came), errors[] (a 400 names each bad event by index and field), requestId. */
  error: TollgateError;
}

/**
 * What flush() and close() resolve: every batch that ended (acknowledged or given up on) since
 * the previous flush() or close() resolved, whatever sent it: batchSize, flushIntervalMs,
 * beforeExit or this flush. Counts are complete; the list of failures is bounded.
 */
export interface FlushResult {
  /** Batches the server acknowledged (200). */
  batches: number;
  /** Events the server stored and counted. */
  accepted: number;
  /** Events the server skipped: their eventId was seen in the last 24 hours (or earlier in the batch). */
  duplicates: number;
  /** The first MAX_REPORTED_FAILURES (100) batches given up on, in the order they failed. */
  failed: FailedBatch[];
  /** Every batch given up on, listed or not (failed.length unless more than 100 failed). */
  failedBatches: number;
  /** The events of every batch given up on. */
  failedEvents: number;
}

export interface UsageQueueOptions {
  batchSize: number;
  flushIntervalMs: number;
  maxQueuedEvents: number;
  flushOnExit: boolean;
  now: () => number;
  randomUUID: () => string;
  onError: (error: TollgateError, events: readonly QueuedEvent[]) => void;
}

interface Batch {
  events: QueuedEvent[];
  /** Made when the batch is sealed and kept across all its retries. */
  idempotencyKey: string;
}

/** Every field settled once (occurredAt now, eventId a random UUID when absent), so every retry sends the same bytes. */
export function settleEvent(event: UsageEvent, nowIso: () => string, randomUUID: () => string): QueuedEvent {
  const at = event.occurredAt;
  const settled: QueuedEvent = {
    customerId: event.customerId,
    metricName: event.metricName,
    quantity: event.quantity,
    occurredAt: at === undefined ? nowIso() : typeof at === 'string' ? at : at.toISOString(),
    eventId: event.eventId ?? randomUUID(),
  };
  if (event.metadata !== undefined) settled.metadata = event.metadata;
  return settled;
}

/** POST /v1/ingest/batch: one batch, its X-Idempotency-Key kept across the retries. */
export function postBatch(http: HttpClient, events: readonly QueuedEvent[], idempotencyKey: string): Promise<IngestResult> {
  return http.request<IngestResult>({
    method: 'POST',
    path: '/v1/ingest/batch',
    body: { events },
    idempotency: { header: 'X-Idempotency-Key', key: idempotencyKey },
  });
}

/** Node's process, when there is one: only for the beforeExit flush, never on the request path. */
interface ProcessLike {
  on(event: 'beforeExit', listener: () => void): unknown;
  off(event: 'beforeExit', listener: () => void): unknown;
}

const emptyResult = (): FlushResult => ({ batches: 0, accepted: 0, duplicates: 0, failed: [], failedBatches: 0, failedEvents: 0 });

/**
 * track() only appends to an array (no I/O, no promise): batches are sealed at batchSize or
 * when the interval fires, and sent one after another. Every event counts against
 * maxQueuedEvents until its batch is acknowledged or given up on. Every batch's outcome goes
 * into one running result, whoever sent it; flush() hands it over and starts the next, so a
 * batch sent by size before flush() is counted by that flush() and never twice.
 */
export class UsageQueue {
  private current: QueuedEvent[] = [];
  private readonly sealed: Batch[] = [];
  private queued = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private draining: Promise<unknown> = Promise.resolve();
  /** Outcomes since the last flush() resolved. */
  private result: FlushResult = emptyResult();
  private closed = false;
  /** occurredAt of the last event that took the default: events within one millisecond share the text. */
  private lastMs = Number.NaN;
  private lastIso = '';
  private readonly process: ProcessLike | null;
  private readonly onBeforeExit = () => {
    if (this.queued > 0) this.sendInBackground();
  };

  constructor(
    private readonly http: HttpClient,
    private readonly opts: UsageQueueOptions,
  ) {
    const proc = (globalThis as { process?: Partial<ProcessLike> }).process;
    this.process = opts.flushOnExit && typeof proc?.on === 'function' && typeof proc.off === 'function' ? (proc as ProcessLike) : null;
    this.process?.on('beforeExit', this.onBeforeExit);
  }

  /** Events not yet acknowledged by the server (queued, sealed or being sent). */
  get size(): number {
    return this.queued;
  }

  track(event: UsageEvent): void {
    if (this.closed) throw new Error('track() after close(): this Tollgate client no longer sends usage.');
    if (this.queued >= this.opts.maxQueuedEvents) throw new QueueFullError(this.opts.maxQueuedEvents);
    this.current.push(settleEvent(event, this.nowIso, this.opts.randomUUID));
    this.queued++;
    if (this.current.length >= this.opts.batchSize) {
      this.sendInBackground();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.sendInBackground();
      }, this.opts.flushIntervalMs);
      // Node: a waiting batch must not keep the process alive (beforeExit sends it instead).
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  /**
   * Sends everything queued so far; resolves when each batch is acknowledged or given up on,
   * with the outcome of every batch that ended since the previous flush() resolved.
   */
  flush(): Promise<FlushResult> {
    this.seal();
    // Taken inside the chain, after the sends: a later flush() starts from an empty result.
    const run = this.draining.then(async () => {
      await this.sendSealed();
      const result = this.result;
      this.result = emptyResult();
      return result;
    });
    this.draining = run.catch(() => undefined);
    return run;
  }

  /** Flushes, then refuses further events and stops the timer and the exit hook. */
  async close(): Promise<FlushResult> {
    this.closed = true;
    this.process?.off('beforeExit', this.onBeforeExit);
    return this.flush();
  }

  private readonly nowIso = (): string => {
    const ms = this.opts.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  };

  /** By size, interval or beforeExit: the outcomes stay in the running result for the next flush(). */
  private sendInBackground(): void {
    this.seal();
    this.draining = this.draining.then(() => this.sendSealed()).catch(() => undefined);
  }

  private seal(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.current.length === 0) return;
    this.sealed.push({ events: this.current, idempotencyKey: this.opts.randomUUID() });
    this.current = [];
  }

  private async sendSealed(): Promise<void> {
    for (let batch = this.sealed[0]; batch !== undefined; batch = this.sealed[0]) {
      try {
        const answer = await postBatch(this.http, batch.events, batch.idempotencyKey);
        this.result.batches++;
        this.result.accepted += answer.accepted;
        this.result.duplicates += answer.duplicates;
      } catch (err) {
        const error =
          err instanceof TollgateError ? err : new TollgateError(String(err), 0, [{ code: 'CLIENT_ERROR', message: String(err) }], null, { cause: err });
        this.recordFailure(batch, error);
        try {
          this.opts.onError(error, batch.events);
        } catch {
          // A throwing callback must not stop the other batches.
        }
      } finally {
        this.sealed.shift();
        this.queued -= batch.events.length;
      }
    }
  }

  /** Counted always, listed up to MAX_REPORTED_FAILURES: a long outage must not hold every batch in memory. */
  private recordFailure(batch: Batch, error: TollgateError): void {
    this.result.failedBatches++;
    this.result.failedEvents += batch.events.length;
    if (this.result.failed.length >= MAX_REPORTED_FAILURES) return;
    const first = error.errors[0];
    this.result.failed.push({
      events: batch.events,
      idempotencyKey: batch.idempotencyKey,
      code: first?.code ?? 'CLIENT_ERROR',
      message: first?.message ?? error.message,
      error,
    });
  }
}
