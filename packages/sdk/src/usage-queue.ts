import { QueueFullError, TollgateError } from './errors.js';
import type { IngestResult } from './api-types.js';
import type { HttpClient } from './http-client.js';

/** The spec's batch limit: at most 1,000 events per POST /v1/ingest/batch. */
export const MAX_BATCH_EVENTS = 1000;

export type MetadataValue = string | number | boolean | null;

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

export interface FlushResult {
  /** Batches acknowledged by the server. */
  batches: number;
  accepted: number;
  duplicates: number;
  /** Batches given up on (after the retries the spec allows, or refused with a 4xx): their events and why. */
  failed: Array<{ error: TollgateError; events: QueuedEvent[] }>;
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

/**
 * track() only appends to an array (no I/O, no promise): batches are sealed at batchSize or
 * when the interval fires, and sent one after another. Every event counts against
 * maxQueuedEvents until its batch is acknowledged or given up on.
 */
export class UsageQueue {
  private current: QueuedEvent[] = [];
  private readonly sealed: Batch[] = [];
  private queued = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private draining: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** occurredAt of the last event that took the default: events within one millisecond share the text. */
  private lastMs = Number.NaN;
  private lastIso = '';
  private readonly process: ProcessLike | null;
  private readonly onBeforeExit = () => {
    if (this.queued > 0) void this.flush();
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
      this.seal();
      void this.flush();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.opts.flushIntervalMs);
      // Node: a waiting batch must not keep the process alive (beforeExit sends it instead).
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  /** Sends everything queued so far; resolves when each batch is acknowledged or given up on. */
  flush(): Promise<FlushResult> {
    this.seal();
    const run = this.draining.then(() => this.sendSealed());
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

  private seal(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.current.length === 0) return;
    this.sealed.push({ events: this.current, idempotencyKey: this.opts.randomUUID() });
    this.current = [];
  }

  private async sendSealed(): Promise<FlushResult> {
    const result: FlushResult = { batches: 0, accepted: 0, duplicates: 0, failed: [] };
    for (let batch = this.sealed[0]; batch !== undefined; batch = this.sealed[0]) {
      try {
        const answer = await postBatch(this.http, batch.events, batch.idempotencyKey);
        result.batches++;
        result.accepted += answer.accepted;
        result.duplicates += answer.duplicates;
      } catch (err) {
        const error =
          err instanceof TollgateError ? err : new TollgateError(String(err), 0, [{ code: 'CLIENT_ERROR', message: String(err) }], null, { cause: err });
        result.failed.push({ error, events: batch.events });
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
    return result;
  }
}
