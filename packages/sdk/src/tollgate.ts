import { Entitlements, type GuardInput, type GuardResult, type UsageAlert } from './entitlement-guard.js';
import type { EntitlementCheck, IngestResult } from './api-types.js';
import type { TollgateError } from './errors.js';
import { HttpClient, type FetchLike } from './http-client.js';
import { OperatorApi } from './operator-api.js';
import { MAX_BATCH_EVENTS, postBatch, settleEvent, UsageQueue, type FlushResult, type QueuedEvent, type UsageEvent } from './usage-queue.js';

export interface TollgateOptions {
  /** sk_test_… or sk_live_…, passed explicitly: the SDK never reads a key from the environment (spec, Authentication 8). */
  apiKey: string;
  /** Where Tollgate answers, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** Default: the runtime's global fetch. */
  fetch?: FetchLike;
  /** Per attempt, default 10,000 ms; a timed-out request counts as a network error. */
  timeoutMs?: number;
  /** Events per batch, 1 to 1,000 (default 1,000). */
  batchSize?: number;
  /** A partial batch is sent this long after its first event (default 2,000 ms). */
  flushIntervalMs?: number;
  /** Events held until acknowledged, at most (default 100,000); track() throws QueueFullError beyond. */
  maxQueuedEvents?: number;
  /** Node: flush on process beforeExit (default true). Ignored where there is no process. */
  flushOnExit?: boolean;
  /** A batch given up on (refused, or unanswered after the retries). Default: console.error. */
  onError?: (error: TollgateError, events: readonly QueuedEvent[]) => void;
  /** How long check() reuses an answer (default 1,000 ms; 0: never). */
  entitlementCacheTtlMs?: number;
  /** guard() when Tollgate is unreachable: true (default) lets the use through, false throws. */
  failOpen?: boolean;
  /**
   * guard()'s whole budget for asking Tollgate, retries included (default 2,000 ms): a retry
   * is waited for only when its Retry-After ends within it; past it, failOpen decides.
   * check() and the other methods follow the spec's full guidance (3 retries).
   */
  guardTimeoutMs?: number;
  /** guard(): an ALERT limit went past. */
  onAlert?: (alert: UsageAlert) => void;
  /** guard(): Tollgate could not be asked (before failOpen decides). */
  onUnreachable?: (error: TollgateError) => void;
  /** Test seams: the retry wait, the clock, ids. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  randomUUID?: () => string;
}

function positive(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > max) throw new TypeError(`${name} must be an integer from 1 to ${max}, got ${value}`);
  return value;
}

/**
 * The Tollgate client: usage tracking (batched), entitlement checks and the usage-limit guard,
 * and the operator API (customers, subscriptions, keys, usage report, invoices).
 */
export class Tollgate extends OperatorApi {
  private readonly queue: UsageQueue;
  private readonly entitlements: Entitlements;
  private readonly clock: () => number;

  constructor(options: TollgateOptions) {
    const apiKey = options?.apiKey;
    if (typeof apiKey !== 'string' || apiKey.trim() === '') {
      throw new TypeError(
        'Tollgate: apiKey is required. Pass it explicitly, e.g. new Tollgate({ apiKey: myKey, baseUrl }); the SDK never reads it from the environment.',
      );
    }
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
      throw new TypeError('Tollgate: baseUrl is required, e.g. http://127.0.0.1:8080');
    }
    const crypto = globalThis.crypto;
    const randomUUID = options.randomUUID ?? (() => crypto.randomUUID());
    const now = options.now ?? (() => Date.now());
    const http = new HttpClient({
      apiKey,
      baseUrl: options.baseUrl,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: positive('timeoutMs', options.timeoutMs ?? 10_000),
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      now,
    });
    super(http, randomUUID);
    this.clock = now;
    this.queue = new UsageQueue(http, {
      batchSize: positive('batchSize', options.batchSize ?? MAX_BATCH_EVENTS, MAX_BATCH_EVENTS),
      flushIntervalMs: positive('flushIntervalMs', options.flushIntervalMs ?? 2_000),
      maxQueuedEvents: positive('maxQueuedEvents', options.maxQueuedEvents ?? 100_000),
      flushOnExit: options.flushOnExit ?? true,
      now,
      randomUUID,
      onError: options.onError ?? ((error, events) => console.error(`Tollgate: ${events.length} usage events not sent: ${error.message}`)),
    });
    this.entitlements = new Entitlements(http, {
      cacheTtlMs: options.entitlementCacheTtlMs ?? 1_000,
      maxCacheEntries: 10_000,
      failOpen: options.failOpen ?? true,
      guardTimeoutMs: positive('guardTimeoutMs', options.guardTimeoutMs ?? 2_000),
      now,
      onAlert: options.onAlert ?? (() => undefined),
      onUnreachable: options.onUnreachable ?? (() => undefined),
    });
  }

  /** Queues one usage event; sent in a batch by size or interval. Throws QueueFullError when maxQueuedEvents wait. */
  track(event: UsageEvent): void {
    this.queue.track(event);
  }

  /**
   * Sends one batch now, outside the track() queue, and answers the server's counts: for a
   * caller that makes its own batches (the gateway-log forwarder). At most 1,000 events; each
   * settled as track() does (occurredAt now, eventId a random UUID when absent). The batch's
   * X-Idempotency-Key (idempotencyKey, else a random UUID) is kept across the retries. A refused
   * batch (400, nothing stored) throws TollgateError whose errors[] name the events by index.
   */
  ingestBatch(events: readonly UsageEvent[], options: { idempotencyKey?: string } = {}): Promise<IngestResult> {
    const count = Array.isArray(events) ? events.length : 0;
    if (count < 1 || count > MAX_BATCH_EVENTS) {
      return Promise.reject(new RangeError(`ingestBatch: 1 to ${MAX_BATCH_EVENTS} events per batch (the spec's limit), got ${count}`));
    }
    const nowIso = () => new Date(this.clock()).toISOString();
    const settled = events.map((e: UsageEvent) => settleEvent(e, nowIso, this.randomUUID));
    return postBatch(this.http, settled, options.idempotencyKey ?? this.randomUUID());
  }

  /** Events not yet acknowledged by the server. */
  get queuedEvents(): number {
    return this.queue.size;
  }

  /**
   * Sends what is queued and resolves when every batch has ended, with a FlushResult of every
   * batch that ended since the previous flush() or close() resolved, including those sent by
   * batchSize, flushIntervalMs or beforeExit: acknowledged ones counted (batches, accepted,
   * duplicates), failed ones counted and the first 100 listed with their events and error.
   */
  flush(): Promise<FlushResult> {
    return this.queue.flush();
  }

  /** Sends what is queued and stops: track() afterwards throws. Resolves the same FlushResult as flush(). */
  close(): Promise<FlushResult> {
    return this.queue.close();
  }

  /** GET /v1/entitlements/check, cached entitlementCacheTtlMs. Read-only: decrements nothing. */
  check(customerId: string, productId: string): Promise<EntitlementCheck> {
    return this.entitlements.check(customerId, productId);
  }

  /**
   * Refuses a use the subscription forbids; reports ALERT limits it goes past. With metricName,
   * only that metric's usage limits count: one of its BLOCK limits used up, or passed by
   * quantity (default 1), throws UsageLimitExceeded; another metric's limits neither refuse nor
   * alert. Without metricName, every limit does. Either way, no active subscription or a spent
   * BLOCK budget throws EntitlementDenied (reason NO_ACTIVE_SUBSCRIPTION, BUDGET_EXHAUSTED).
   */
  guard(input: GuardInput): Promise<GuardResult> {
    return this.entitlements.guard(input);
  }

  /** The same as guard(). */
  enforce(input: GuardInput): Promise<GuardResult> {
    return this.entitlements.guard(input);
  }

  /** Forget cached entitlement answers. */
  clearEntitlementCache(customerId?: string, productId?: string): void {
    this.entitlements.clear(customerId, productId);
  }
}
