import type { Deps } from '../../deps.js';
import { sseFrame, type SseStream } from '../../http/sse.js';
import type { Tenant } from '../../lib/tenant.js';
import { onAuditCommitted } from './audit-commit-signal.js';
import { formatCursor, isAfter, type AuditCursor } from './audit-cursor.js';
import { feedHead, readFeed, readTenantFeed, type CursoredAuditEvent } from './audit-event.repository.js';
import { presentAuditEvent } from './audit-event.schema.js';
import { matchesAuditFilter, type AuditFilter } from './audit-filter.js';
import { auditSearchText } from './audit-search-text.js';

/** Bus channel: "audit events were committed somewhere; read them". Carries no data. */
export const AUDIT_CHANNEL = 'audit.committed';
/** Rows per read, for the tail and for a subscriber catching up. */
const READ_LIMIT = 500;
/** On PostgreSQL, rows of a transaction that began before a still-running one wait for it; look again this soon. */
const WAITING_RETRY_MS = 25;
/** Commits within this long share one signal on the bus. */
const SIGNAL_COALESCE_MS = 2;
/** Events a subscriber may hold while it catches up; past this it is ended and resumes. */
const MAX_PENDING = 10_000;

export const STREAM_EVENT = 'audit_event';

interface Subscriber {
  tenant: Tenant;
  filter: AuditFilter;
  /** The last event this subscriber has passed (sent or filtered out): nothing at or before it is sent again. */
  cursor: AuditCursor;
  /** Set while catching up from the database: live events wait here, in order. */
  pending: CursoredAuditEvent[] | null;
  stream: SseStream;
}

export type SubscribeRefusal = { code: 'TOO_MANY_STREAMS'; message: string };

/**
 * The live audit stream of one server process.
 *
 * One tail per process reads every tenant's newly committed events in cursor (commit) order and
 * hands each to the subscribers of its tenant whose filters match; subscribers never query the
 * database while live. The tail reads when woken by a signal on the bus (Redis pub/sub when
 * several processes run, so a commit on any node wakes every node's tail) and every second
 * regardless.
 *
 * Nothing lost, nothing repeated: a subscriber joins at the tail's current position h0; events
 * after h0 reach it from the tail (queued while it catches up), and events between its
 * Last-Event-ID and h0 it reads from its tenant's rows. Each subscriber keeps the cursor of the
 * last event it passed and skips anything not after it.
 */
export class AuditFeed {
  private head: AuditCursor | null = null;
  private starting: Promise<void> | null = null;
  private readonly byTenant = new Map<string, Set<Subscriber>>();
  private readonly perWorkspace = new Map<string, number>();
  private count = 0;
  private reading = false;
  private readAgain = false;
  private signalTimer: NodeJS.Timeout | null = null;
  /** Streams written since the last flush, their writes held (see flushSoon). */
  private readonly held = new Set<SseStream>();
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly poll: NodeJS.Timeout;
  private readonly stopListening: () => void;
  private closed = false;

  constructor(private readonly deps: Pick<Deps, 'db' | 'bus' | 'log' | 'config'>) {
    this.poll = setInterval(() => this.wake(), deps.config.auditStreamPollMs);
    this.poll.unref();
    this.stopListening = onAuditCommitted(() => this.announce());
  }

  /** Listens on the bus; called once by the composition root (compose.ts). */
  async listen(): Promise<void> {
    await this.deps.bus.subscribe(AUDIT_CHANNEL, () => this.wake());
  }

  get subscriberCount(): number {
    return this.count;
  }

  /** Tells every node's tail (this one included) to read; commits close together share one message. */
  private announce(): void {
    if (this.signalTimer || this.closed) return;
    this.signalTimer = setTimeout(() => {
      this.signalTimer = null;
      this.deps.bus
        .publish(AUDIT_CHANNEL, '')
        .catch((err: unknown) => this.deps.log.warn({ err }, 'audit stream signal not sent; nodes read at their next poll'));
    }, SIGNAL_COALESCE_MS);
  }

  /** Whether a new stream for this workspace is allowed now; the answer goes into the stream. */
  admit(workspaceId: string): SubscribeRefusal | null {
    const { auditStreamMaxConnections: total, auditStreamMaxPerTenant: perTenant } = this.deps.config;
    if (this.count >= total)
      return { code: 'TOO_MANY_STREAMS', message: `This server holds its maximum of ${total} live streams; reconnect later (another node may have room).` };
    if ((this.perWorkspace.get(workspaceId) ?? 0) >= perTenant) {
      return {
        code: 'TOO_MANY_STREAMS',
        message: `This workspace holds its maximum of ${perTenant} live streams on this server; close one, or reconnect later.`,
      };
    }
    return null;
  }

  /**
   * Streams the tenant's events after `from` (or from now when null) that match the filter,
   * until the stream ends. Resolves once the subscriber is live.
   */
  async subscribe(tenant: Tenant, filter: AuditFilter, from: AuditCursor | null, stream: SseStream): Promise<void> {
    let h0: AuditCursor;
    do {
      await this.ensureHead();
      h0 = this.head!;
    } while (this.head === null);
    const start = from ?? h0;
    const sub: Subscriber = { tenant, filter, cursor: start, pending: isAfter(h0, start) ? [] : null, stream };
    this.add(sub);
    stream.onEnd(() => this.remove(sub));
    if (sub.pending === null) return;
    try {
      // Catch up on (start, h0] from the tenant's own rows, at the client's reading pace.
      for (;;) {
        const page = await readTenantFeed(this.deps.db, tenant, sub.cursor, h0, READ_LIMIT);
        for (const e of page) {
          this.pass(sub, e, this.message(e));
          if (!stream.isOpen) return;
        }
        if (page.length < READ_LIMIT) break;
        await stream.drained();
        if (!stream.isOpen) return;
      }
      // Then what the tail queued meanwhile; the cursor drops what the catch-up already sent.
      const queued = sub.pending;
      sub.pending = null;
      for (const e of queued) this.pass(sub, e, this.message(e));
    } catch (err) {
      this.deps.log.error({ err }, 'audit stream catch-up failed; the client resumes from its last id');
      stream.end('failed');
    }
  }

  /** Stops the tail and ends every stream (the server is shutting down; clients reconnect to another node or later). */
  close(): void {
    this.closed = true;
    clearInterval(this.poll);
    if (this.signalTimer) clearTimeout(this.signalTimer);
    this.flush();
    this.stopListening();
    this.endStreams();
  }

  /** Ends every stream on this node; their clients reconnect and resume. */
  endStreams(): void {
    for (const subs of this.byTenant.values()) for (const s of [...subs]) s.stream.end('server_closing');
  }

  private add(sub: Subscriber): void {
    const key = tenantKey(sub.tenant.workspaceId, sub.tenant.environment);
    let set = this.byTenant.get(key);
    if (!set) this.byTenant.set(key, (set = new Set()));
    set.add(sub);
    this.perWorkspace.set(sub.tenant.workspaceId, (this.perWorkspace.get(sub.tenant.workspaceId) ?? 0) + 1);
    this.count += 1;
  }

  private remove(sub: Subscriber): void {
    const key = tenantKey(sub.tenant.workspaceId, sub.tenant.environment);
    const set = this.byTenant.get(key);
    if (!set?.delete(sub)) return;
    if (set.size === 0) this.byTenant.delete(key);
    const n = (this.perWorkspace.get(sub.tenant.workspaceId) ?? 1) - 1;
    if (n === 0) this.perWorkspace.delete(sub.tenant.workspaceId);
    else this.perWorkspace.set(sub.tenant.workspaceId, n);
    this.count -= 1;
    // Idle: forget the position, so the next subscriber starts from a fresh one, not from events
    // that went by while nobody listened.
    if (this.count === 0 && !this.reading) this.head = null;
  }

  private ensureHead(): Promise<void> {
    if (this.head !== null) return Promise.resolve();
    this.starting ??= feedHead(this.deps.db)
      .then((h) => {
        this.head ??= h;
      })
      .finally(() => {
        this.starting = null;
      });
    return this.starting;
  }

  /** Reads now, or right after the read under way. */
  wake(): void {
    if (this.count === 0 || this.head === null || this.closed) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    void this.read();
  }

  private async read(): Promise<void> {
    this.reading = true;
    try {
      for (;;) {
        this.readAgain = false;
        if (this.count === 0 || this.head === null) {
          this.head = null;
          return;
        }
        const { events, waiting } = await readFeed(this.deps.db, this.head, READ_LIMIT);
        for (const e of events) {
          this.head = e.cursor;
          this.dispatch(e);
        }
        if (events.length === READ_LIMIT || this.readAgain) continue;
        if (waiting) setTimeout(() => this.wake(), WAITING_RETRY_MS).unref();
        return;
      }
    } catch (err) {
      this.deps.log.error({ err }, 'audit stream read failed; retrying at the next signal or poll');
    } finally {
      this.reading = false;
      if (this.count === 0) this.head = null;
    }
  }

  private dispatch(e: CursoredAuditEvent): void {
    if (e.event.tenantId === null || e.event.environment === null) return;
    const subs = this.byTenant.get(tenantKey(e.event.tenantId, e.event.environment));
    if (!subs) return;
    const message = this.message(e);
    for (const sub of subs) {
      if (sub.pending) {
        if (sub.pending.length >= MAX_PENDING) sub.stream.end('buffer_limit');
        else sub.pending.push(e);
      } else this.pass(sub, e, message);
    }
  }

  /** One event's SSE frame and search words, each made once however many subscribers get it. */
  private message(e: CursoredAuditEvent): EventMessage {
    let frame: Buffer | null = null;
    let words: string | null = null;
    return {
      event: e,
      frame: () => (frame ??= Buffer.from(sseFrame({ id: formatCursor(e.cursor), event: STREAM_EVENT, data: JSON.stringify(presentAuditEvent(e.event)) }))),
      words: () => (words ??= auditSearchText({ eventType: e.event.eventType, targetType: e.event.targetType, payload: e.event.payload })),
    };
  }

  private pass(sub: Subscriber, e: CursoredAuditEvent, m: EventMessage): void {
    if (!isAfter(e.cursor, sub.cursor)) return;
    sub.cursor = e.cursor;
    if (!matchesAuditFilter(sub.filter, e.event, m.words)) return;
    this.flushSoon(sub.stream);
    sub.stream.sendFrame(m.frame());
  }

  /**
   * Holds the stream's writes until the next flush, at most auditStreamFlushMs from the first.
   * One socket write per stream per event made the writes most of the server thread's time with
   * a thousand streams open (bench/audit-stream.ts), and ingestion on that thread slowed to a
   * fifth; held writes leave together, one system call for all the events of the interval.
   */
  private flushSoon(stream: SseStream): void {
    const ms = this.deps.config.auditStreamFlushMs;
    if (ms === 0 || this.held.has(stream)) return;
    stream.hold();
    this.held.add(stream);
    this.flushTimer ??= setTimeout(() => this.flush(), ms);
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    for (const stream of this.held) stream.release();
    this.held.clear();
  }
}

interface EventMessage {
  event: CursoredAuditEvent;
  /** The SSE message, framed and encoded once for every subscriber. */
  frame: () => Buffer;
  words: () => string;
}

function tenantKey(workspaceId: string, environment: string): string {
  return `${workspaceId}:${environment}`;
}
