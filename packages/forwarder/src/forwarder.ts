import { randomUUID } from 'node:crypto';
import type { BatchSender } from './batch-sender.js';
import type { DecodedLogs } from './decode-subscription-event.js';
import { DEFAULT_MAPPING, mapAccessLog, mapLogEvent, type Mapped, type MappingOptions } from './map-access-log.js';
import { emptySummary, ForwarderError, type ForwardSummary, type LogEvent, type SkipReason, type UsageEvent } from './types.js';

/** The spec's batch limit. */
export const MAX_BATCH_EVENTS = 1000;

export interface ForwarderOptions {
  sender: BatchSender;
  mapping?: Partial<MappingOptions>;
  /** Batches in flight at once. Default 4. */
  concurrency?: number;
  /** Events per batch, at most 1,000 (the default). */
  batchSize?: number;
  /** The spec: a fresh random UUID per batch. Injected in tests. */
  newIdempotencyKey?: () => string;
  /** Called after each acknowledged batch (the CLI's progress bar). */
  onBatch?: (summary: Readonly<ForwardSummary>) => void;
}

/**
 * Log events in, acknowledged usage out: maps each line, fills batches of at most 1,000 and sends
 * them with up to `concurrency` in flight. `add` returns a promise only when the window is full,
 * so a caller awaits it and memory stays bounded. `finish` sends the last batch and returns the
 * summary; the first failed batch fails the run (every event has an eventId where the log gives
 * one, so running the same input again counts nothing twice).
 */
export class Forwarder {
  readonly summary: ForwardSummary = emptySummary();
  private readonly mapping: MappingOptions;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly newKey: () => string;
  private batch: UsageEvent[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;

  constructor(private readonly options: ForwarderOptions) {
    this.mapping = { ...DEFAULT_MAPPING, ...options.mapping };
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.batchSize = Math.min(MAX_BATCH_EVENTS, Math.max(1, options.batchSize ?? MAX_BATCH_EVENTS));
    this.newKey = options.newIdempotencyKey ?? randomUUID;
  }

  /** One log event of a subscription (or a replayed file). */
  add(logEvent: LogEvent): Promise<void> | undefined {
    return this.take(mapLogEvent(logEvent, this.mapping));
  }

  /** An access-log line already parsed (an NDJSON line), with its time and eventId. */
  addLine(line: Record<string, unknown>, timestamp: number, eventId: string | undefined): Promise<void> | undefined {
    return this.take(mapAccessLog(line, timestamp, eventId, this.mapping));
  }

  /** A line that cannot be mapped at all (the CLI: not JSON, no time). */
  skip(reason: SkipReason): void {
    this.summary.logEvents++;
    this.summary.skipped[reason] = (this.summary.skipped[reason] ?? 0) + 1;
  }

  /** Every log event of a decoded subscription event; a CONTROL_MESSAGE is counted and ignored. */
  async addDecoded(decoded: DecodedLogs): Promise<void> {
    if (decoded.messageType === 'CONTROL_MESSAGE') {
      this.summary.controlMessages++;
      return;
    }
    for (const e of decoded.logEvents) {
      const wait = this.add(e);
      if (wait) await wait;
    }
  }

  private take(mapped: Mapped): Promise<void> | undefined {
    if (this.failure !== null) throw this.failure;
    if ('skip' in mapped) {
      this.skip(mapped.skip);
      return undefined;
    }
    this.summary.logEvents++;
    this.batch.push(mapped.event);
    if (this.batch.length < this.batchSize) return undefined;
    return this.dispatch();
  }

  /** Sends the current batch; resolves once there is room for another. */
  private async dispatch(): Promise<void> {
    const events = this.batch;
    this.batch = [];
    const p: Promise<void> = this.send(events)
      .catch((err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    if (this.failure !== null) throw this.failure;
  }

  /**
   * One batch with a fresh idempotency key. A 400 names the refused events by index: they are
   * counted by code and the rest goes again as a new batch (new key; their eventIds keep a
   * retry from counting twice), since resending the same events could never succeed.
   */
  private async send(events: UsageEvent[]): Promise<void> {
    const outcome = await this.options.sender.sendBatch(events, this.newKey());
    if (outcome.ok) {
      this.summary.batches++;
      this.summary.sent += events.length;
      this.summary.accepted += outcome.accepted;
      this.summary.duplicates += outcome.duplicates;
      this.options.onBatch?.(this.summary);
      return;
    }
    const refused = new Map<number, string>();
    for (const r of outcome.rejected) if (r.index >= 0 && r.index < events.length && !refused.has(r.index)) refused.set(r.index, r.code);
    if (refused.size === 0) throw new ForwarderError('SEND_FAILED', 'the server refused the batch (400) without naming an event of it');
    for (const code of refused.values()) this.summary.rejected[code] = (this.summary.rejected[code] ?? 0) + 1;
    const rest = events.filter((_, i) => !refused.has(i));
    if (rest.length > 0) await this.send(rest);
  }

  /** Sends what is left and waits for every batch; throws the first failure. */
  async finish(): Promise<ForwardSummary> {
    if (this.batch.length > 0 && this.failure === null) await this.dispatch().catch(() => undefined);
    await Promise.all(this.inFlight);
    if (this.failure !== null) throw this.failure;
    return this.summary;
  }
}

/** One subscription event's decoded logs, forwarded and summarised. */
export async function forwardDecodedLogs(decoded: DecodedLogs, options: ForwarderOptions): Promise<ForwardSummary> {
  const f = new Forwarder(options);
  await f.addDecoded(decoded);
  return f.finish();
}
