import { sql } from 'kysely';
import type { Deps } from '../../deps.js';
import type { Db } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import { transactionNow } from '../../db/write-turns.js';
import type { Tenant } from '../../lib/tenant.js';
import { SpanKind } from '../../lib/tracing.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { deliveryAfter, judgeAttempt, triggerOf, type AttemptResult, type AttemptTrigger } from './attempt-outcome.js';
import { healthAfter, outcomeOf, type AttemptOutcome as HealthOutcome, type DisabledReason } from './endpoint-health.js';
import { onOutboxCommitted } from './outbox-signal.js';
import { systemResolver, type HostResolver } from './resolve-destination.js';
import { createAgents, sendAttempt, type AttemptOutcome } from './send-attempt.js';
import { webhookHeaders } from './sign-message.js';
import { signingKeyOf } from './signing-secret.js';
import { secretAssociatedData, type SealedSecret, type WebhookEndpoint } from './webhook-endpoint.js';
import { findWebhookEndpointsOf } from './webhook-endpoint.repository.js';
import { claimLane, releaseLane, renewLane, renewLanes } from './webhook-lane.repository.js';
import { failPendingDeliveries } from './webhook-message.repository.js';
import {
  claimDueDeliveries,
  completeClaimedDeliveries,
  deliveryKey,
  disableEndpointForHealth,
  findDueEndpoints,
  insertAttempts,
  readEndpointHealth,
  reopenClaimedDelivery,
  setEndpointFailingSince,
  type DueEndpoint,
  type NewAttempt,
} from './webhook-sender.repository.js';

/** Bus channel: "outbox messages were committed on node <message>; look for due deliveries". */
export const OUTBOX_CHANNEL = 'outbound_webhooks.committed';
/** Commits within this long share one message on the bus. */
const SIGNAL_COALESCE_MS = 2;
/** How long close() lets attempts in flight finish before it abandons them. */
const CLOSE_GRACE_MS = 2_000;
/** Opened signing keys kept (two per endpoint at most during a rotation's grace); past it the cache starts over. */
const OPENED_KEYS_MAX = 1_024;
/** drain() gives up (a bug: work that never ends) after this many rounds. */
const MAX_DRAIN_ROUNDS = 10_000;

export interface WebhookSenderOptions {
  /** Names this node in webhook_lanes.owner and webhook_attempts.node_id (compose.ts's origin). */
  nodeId: string;
  /** The DNS the SSRF guard checks at delivery time (tests inject one); the system's by default. */
  resolver?: HostResolver;
}

/** An endpoint this node sends for (webhook-lane.repository.ts). */
interface Lane extends DueEndpoint {
  generation: number;
  /** Clock time at which the lease is renewed (a third of it gone), or the lane released if idle. */
  renewAt: number;
  inFlight: number;
  /** The endpoint's maxConcurrency as last read (Infinity until then). */
  maxConcurrency: number;
  /** Something may be due: false once a claim found less than it had room for, until a signal, a poll or a result. */
  mayHaveWork: boolean;
  /**
   * The endpoint's failingSince as the last claim read it; undefined once results may have
   * changed it. Only a sender holding the lane sets it, so null here and only successes to write
   * means the health rules have nothing to do: writeResults skips reading the endpoint.
   */
  failingSince?: number | null;
}

interface Attempt {
  lane: Lane;
  tenant: Tenant;
  endpointId: string;
  messageId: string;
  eventType: string;
  /** The delivery's attempt count as claimed: the fence of the result write, and the attempt's number. */
  claimedAttempts: number;
  scheduleStep: number;
  trigger: AttemptTrigger;
  /** When the delivery became due: how long it queued (tollgate_outbound_webhook_queue_age_seconds). */
  dueAt: number;
  url: string;
  body: string;
  keys: Buffer[];
}

interface Finished {
  attempt: Attempt;
  attemptedAt: number;
  finishedAt: number;
  outcome: AttemptOutcome;
}

/**
 * The outbound webhook sender of one node (README.md, "Sender"). It owns the lanes of the
 * endpoints it sends for (one node per endpoint at a time), claims their due deliveries up to the
 * endpoint's maxConcurrency and the node's OUTBOUND_WEBHOOK_MAX_IN_FLIGHT, POSTs them, and writes
 * each result, its attempt row and the endpoint's health together. It wakes on a commit in this
 * process (onOutboxCommitted), on a bus message from another node's commit, and every
 * OUTBOUND_WEBHOOK_POLL_MS; every database write happens in one pass at a time, and requests
 * never wait for one another, so a slow endpoint holds only its own slots.
 *
 * Tests drive it with drain() (send everything due now, wait for the answers and their writes)
 * and idle(); time comes from deps.clock, so a frozen clock advanced by a test makes retries due.
 */
export class WebhookSender {
  private readonly lanes = new Map<string, Lane>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private finished: Finished[] = [];
  private discover = true;
  private sweep = true;
  private wakePending = false;
  private loop: Promise<void> | null = null;
  /** Passes that did something (drain() runs until one does nothing). */
  private work = 0;
  private failure: Error | null = null;
  private closing = false;
  /** No pass starts any more (close() writes the last results itself). */
  private stopped = false;
  private closed: Promise<void> | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private signalTimer: NodeJS.Timeout | null = null;
  private stopListening: () => void = () => undefined;
  private readonly agents = createAgents();
  private readonly resolver: HostResolver;
  /** Which lane goes first in the next pass, so none starves when the node's cap binds. */
  private turn = 0;
  /** Signing keys by the sealed secret they were opened from (signingKeys). */
  private readonly openedKeys = new Map<string, Buffer>();

  constructor(
    private readonly deps: Deps,
    private readonly opts: WebhookSenderOptions,
  ) {
    this.resolver = opts.resolver ?? systemResolver;
  }

  get nodeId(): string {
    return this.opts.nodeId;
  }

  /** Attempts this node has in flight now. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Listens for commits (here and on the bus), starts the poll, and looks for what was left pending before this node started. */
  async start(): Promise<void> {
    const { config } = this.deps;
    await this.deps.bus.subscribe(OUTBOX_CHANNEL, (origin) => {
      if (origin !== this.opts.nodeId) this.wake();
    });
    this.stopListening = onOutboxCommitted(() => this.committed());
    this.pollTimer = setInterval(() => this.wake(), config.outboundWebhookPollMs);
    this.pollTimer.unref();
    // Leases are renewed well before they run out, whatever the poll.
    this.renewTimer = setInterval(() => this.lanes.size > 0 && this.kick(), Math.max(100, Math.floor(config.outboundWebhookLeaseMs / 3)));
    this.renewTimer.unref();
    this.wake();
  }

  /** Looks for due deliveries now (every endpoint, every lane), or right after the pass under way. */
  wake(): void {
    if (this.closing) return;
    this.discover = true;
    this.sweep = true;
    this.kick();
  }

  /**
   * Resolves once nothing is under way: no pass running or asked for, no attempt in flight, every
   * result written. Does not look for new work (drain() does). Throws what a pass failed with.
   */
  async idle(): Promise<void> {
    for (;;) {
      if (this.loop) {
        await this.loop;
        continue;
      }
      if (this.failure) {
        const err = this.failure;
        this.failure = null;
        throw err;
      }
      if (this.inFlight.size > 0) {
        await Promise.allSettled([...this.inFlight]);
        continue;
      }
      if ((this.wakePending || this.finished.length > 0) && !this.stopped) {
        this.kick();
        continue;
      }
      return;
    }
  }

  /**
   * Sends everything due now, waits for every answer and writes it, and goes on while that made
   * more due (the next message of an ordering key): for tests, which never sleep. A retry due
   * later (by deps.clock) is not waited for: advance the clock and drain again.
   */
  async drain(): Promise<void> {
    this.failure = null;
    for (let round = 0; round < MAX_DRAIN_ROUNDS; round++) {
      const before = this.work;
      this.wake();
      await this.idle();
      if (this.work === before) return;
    }
    throw new Error(`webhook sender: drain did not settle in ${MAX_DRAIN_ROUNDS} rounds`);
  }

  /**
   * Stops claiming; lets attempts in flight finish for a short grace, then abandons the rest
   * (their deliveries are due again at once, for any node), writes every result, and releases
   * the lanes so another node takes over at once. Never throws: a failed write is retaken when the
   * leases and in-flight marks expire.
   */
  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  private async shutDown(): Promise<void> {
    this.closing = true;
    for (const t of [this.pollTimer, this.renewTimer]) if (t) clearInterval(t);
    if (this.signalTimer) clearTimeout(this.signalTimer);
    this.stopListening();
    await this.passesDone();
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = Math.min(CLOSE_GRACE_MS, this.deps.config.outboundWebhookTimeoutMs);
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, grace)))]);
      clearTimeout(timer);
      for (const c of this.controllers) c.abort();
      await Promise.allSettled([...this.inFlight]);
    }
    await this.passesDone();
    this.stopped = true;
    try {
      const rest = this.finished.splice(0);
      if (rest.length > 0) await this.transact((trx) => this.writeResults(trx, rest));
      const lanes = [...this.lanes.values()].sort(byEndpoint);
      if (lanes.length > 0) {
        const now = this.deps.clock.now();
        await this.transact(async (trx) => {
          for (const lane of lanes) await releaseLane(trx, lane, lane, this.opts.nodeId, now);
        });
      }
      this.lanes.clear();
    } catch (err) {
      this.deps.log.warn({ err }, 'webhook sender: results or lanes not written at close; other nodes retake them when their marks expire');
    }
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /**
   * The sender's transactions. SQLite: each waits its turn behind usage writes and begins only
   * when the write lock is free (db/write-turns.ts), as every background job does, so the main
   * thread never sleeps in SQLite's busy handler. PostgreSQL: a plain transaction.
   *
   * Their commits do not wait for the disk (SQLite: synchronous NORMAL; PostgreSQL:
   * synchronous_commit off): a power cut or a database crash may lose the last claims and results,
   * never a message (written by the change's own, durable, transaction). A lost claim or result
   * leaves its delivery due again, so it is sent again: at least once, as promised.
   */
  private transact<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    const { deps } = this;
    if (deps.dialect !== 'sqlite' || deps.sqlite === null)
      return transaction(deps.db, async (trx) => {
        await sql`set local synchronous_commit = off`.execute(trx);
        return fn(trx);
      });
    const sqlite = deps.sqlite;
    return deps.writeTurns.run(() => transactionNow(deps.db, sqlite, fn, { durable: false }));
  }

  /** Waits for the pass under way and any it asked for (run() never rejects). */
  private async passesDone(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** A commit in this process: look now, and tell the other nodes (commits close together share one message). */
  private committed(): void {
    this.wake();
    if (this.signalTimer || this.closing) return;
    this.signalTimer = setTimeout(() => {
      this.signalTimer = null;
      this.deps.bus
        .publish(OUTBOX_CHANNEL, this.opts.nodeId)
        .catch((err: unknown) => this.deps.log.warn({ err }, 'webhook sender signal not sent; other nodes send at their next poll'));
    }, SIGNAL_COALESCE_MS);
  }

  /** Runs a pass now, or right after the one under way. */
  private kick(): void {
    this.wakePending = true;
    if (this.loop || this.stopped) return;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    // Wait for the event loop's check phase: wake() never runs a pass inside its caller, and
    // every response that arrived in this poll phase is in the pass. A pass is synchronous SQL
    // on SQLite (no I/O runs meanwhile); starting it in the first response's microtasks gave one
    // result per pass, two commits and a dozen statements per delivery.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.wakePending && !this.stopped) {
        this.wakePending = false;
        if (await this.pass()) this.work++;
      }
    } catch (err) {
      // Retried at the next wake-up (a result, a signal, the poll); nothing is lost meanwhile.
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.deps.log.error({ err }, 'webhook sender pass failed; retrying at the next signal or poll');
    } finally {
      this.loop = null;
    }
  }

  /**
   * One pass: write the finished results and claim and start new attempts, in one transaction
   * (one commit, which on SQLite is an fsync: two per pass were a tenth of the sender's time);
   * then renew or release the lanes due for it and claim new lanes. True if it did anything.
   */
  private async pass(): Promise<boolean> {
    const batch = this.finished;
    this.finished = [];
    let worked = batch.length > 0;
    try {
      if (this.closing) {
        if (batch.length > 0) await this.transact((trx) => this.writeResults(trx, batch));
        return worked;
      }
      const now = this.deps.clock.now();
      // A result may make the next message of its ordering key due.
      for (const f of batch) {
        const lane = this.lanes.get(f.attempt.endpointId);
        if (lane) lane.mayHaveWork = true;
      }
      if (this.sweep) {
        this.sweep = false;
        for (const lane of this.lanes.values()) lane.mayHaveWork = true;
      }
      if (await this.fillLanes(batch, now)) worked = true;
    } catch (err) {
      this.finished = batch.concat(this.finished);
      throw err;
    }
    const now = this.deps.clock.now();
    await this.keepLanes(now);
    if (this.discover) {
      this.discover = false;
      // The lanes claimed now are filled by the next pass.
      if (await this.claimLanes(now)) {
        worked = true;
        this.wakePending = true;
      }
    }
    return worked;
  }

  /** Renews the leases a third gone; releases instead the lanes with nothing in flight and nothing due. */
  private async keepLanes(now: number): Promise<void> {
    const due = [...this.lanes.values()].filter((l) => now >= l.renewAt).sort(byEndpoint);
    if (due.length === 0) return;
    const { outboundWebhookLeaseMs: leaseMs } = this.deps.config;
    const gone = await this.transact(async (trx) => {
      const out: Lane[] = [];
      for (const lane of due) {
        if (lane.inFlight === 0 && !lane.mayHaveWork) {
          await releaseLane(trx, lane, lane, this.opts.nodeId, now);
          out.push(lane);
        } else if (!(await renewLane(trx, lane, lane, this.opts.nodeId, now, leaseMs))) {
          out.push(lane);
        }
      }
      return out;
    });
    for (const lane of due) lane.renewAt = now + Math.floor(leaseMs / 3);
    for (const lane of gone) this.lanes.delete(lane.endpointId);
  }

  /** Claims the lanes of endpoints with due deliveries that no other node holds, up to OUTBOUND_WEBHOOK_MAX_LANES. */
  private async claimLanes(now: number): Promise<boolean> {
    const { outboundWebhookMaxLanes: maxLanes, outboundWebhookLeaseMs: leaseMs } = this.deps.config;
    const room = maxLanes - this.lanes.size;
    if (room <= 0) return false;
    const due = (await findDueEndpoints(this.deps.db, this.opts.nodeId, now, room + this.lanes.size))
      .filter((e) => !this.lanes.has(e.endpointId))
      .slice(0, room)
      // One lock order on every node.
      .sort(byEndpoint);
    if (due.length === 0) return false;
    const claimed = await this.transact(async (trx) => {
      const out: Lane[] = [];
      for (const e of due) {
        const generation = await claimLane(trx, e, e.endpointId, this.opts.nodeId, now, leaseMs);
        if (generation !== null)
          out.push({ ...e, generation, renewAt: now + Math.floor(leaseMs / 3), inFlight: 0, maxConcurrency: Infinity, mayHaveWork: true });
      }
      return out;
    });
    for (const lane of claimed) this.lanes.set(lane.endpointId, lane);
    return claimed.length > 0;
  }

  /**
   * For every lane that may have work and has room (its endpoint's maxConcurrency, the node's
   * OUTBOUND_WEBHOOK_MAX_IN_FLIGHT): renews the lease (a lost lane claims nothing), reads the
   * endpoint (a disabled or deleted one releases its lane), claims due deliveries and starts them.
   * One transaction for every lane, after the pass's results (written first, so a result that
   * makes the next message of its ordering key due lets it be claimed): one commit per pass.
   */
  private async fillLanes(results: Finished[], now: number): Promise<boolean> {
    const budget = this.deps.config.outboundWebhookMaxInFlight - this.inFlight.size;
    // A lane at its endpoint's cap (as last read) waits for a slot; keepLanes renews it meanwhile.
    const ready = [...this.lanes.values()].filter((l) => l.mayHaveWork && l.inFlight < l.maxConcurrency).sort(byEndpoint);
    const claiming = budget > 0 && ready.length > 0;
    if (!claiming && results.length === 0) return false;
    const first = claiming ? this.turn++ % ready.length : 0;
    const order = [...ready.slice(first), ...ready.slice(0, first)];
    const leaseMs = this.deps.config.outboundWebhookLeaseMs;
    const claim = await this.transact(async (trx) => {
      if (results.length > 0) await this.writeResults(trx, results);
      return claiming ? this.claimWork(trx, order, budget, now) : { attempts: [], renewed: [], gone: [], exhausted: [] };
    });
    for (const lane of claim.renewed) lane.renewAt = now + Math.floor(leaseMs / 3);
    for (const lane of claim.exhausted) lane.mayHaveWork = false;
    for (const lane of claim.gone) this.lanes.delete(lane.endpointId);
    for (const a of claim.attempts) this.launch(a);
    return claim.attempts.length > 0 || claim.gone.length > 0;
  }

  /** fillLanes' transaction: what it claimed, and what it learnt of the lanes (applied after the commit). */
  private async claimWork(
    trx: Db,
    order: readonly Lane[],
    budget: number,
    now: number,
  ): Promise<{ attempts: Attempt[]; renewed: Lane[]; gone: Lane[]; exhausted: Lane[] }> {
    const { outboundWebhookLeaseMs: leaseMs, outboundWebhookTimeoutMs: timeoutMs } = this.deps.config;
    const out = { attempts: [] as Attempt[], renewed: [] as Lane[], gone: [] as Lane[], exhausted: [] as Lane[] };
    // A claimed attempt is due again for another node only once it has surely ended here.
    const inFlightUntil = now + timeoutMs + leaseMs;
    // Every lane's lease, endpoint and claims in one statement each, for all the pass's lanes.
    const held = await renewLanes(trx, this.deps.dialect, order, this.opts.nodeId, now, leaseMs);
    for (const lane of order) (held.has(lane.endpointId) ? out.renewed : out.gone).push(lane);
    const endpoints = await findWebhookEndpointsOf(trx, this.deps.dialect, out.renewed);
    const wanted: Array<{ lane: Lane; endpoint: WebhookEndpoint; keys: Buffer[]; limit: number }> = [];
    for (const lane of out.renewed) {
      const endpoint = endpoints.get(lane.endpointId);
      const keys = endpoint?.status === 'enabled' ? this.signingKeys(endpoint, now) : null;
      if (!endpoint || !keys) {
        // Disabled, deleted, or its secret unreadable: another pass (or node) looks again later.
        await releaseLane(trx, lane, lane, this.opts.nodeId, now);
        out.gone.push(lane);
        continue;
      }
      lane.maxConcurrency = endpoint.maxConcurrency;
      lane.failingSince = endpoint.failingSince;
      // The node's budget goes to the lanes in turn order (fillLanes rotates who goes first).
      const limit = Math.min(endpoint.maxConcurrency - lane.inFlight, budget);
      if (limit <= 0) continue;
      budget -= limit;
      wanted.push({ lane, endpoint, keys, limit });
    }
    const claimed = await claimDueDeliveries(
      trx,
      this.deps.dialect,
      wanted.map((w) => ({ workspaceId: w.lane.workspaceId, environment: w.lane.environment, endpointId: w.lane.endpointId, limit: w.limit })),
      now,
      inFlightUntil,
    );
    for (const { lane, endpoint, keys, limit } of wanted) {
      const got = claimed.get(lane.endpointId) ?? [];
      if (got.length < limit) out.exhausted.push(lane);
      for (const c of got) {
        out.attempts.push({
          lane,
          tenant: { workspaceId: lane.workspaceId, environment: lane.environment },
          endpointId: lane.endpointId,
          messageId: c.messageId,
          eventType: c.eventType,
          claimedAttempts: c.attempts,
          scheduleStep: c.scheduleStep,
          trigger: triggerOf(c, c.source),
          dueAt: c.dueAt,
          url: endpoint.url,
          body: c.body,
          keys,
        });
      }
    }
    return out;
  }

  /** The keys to sign with: the current secret's, then the previous one's while its grace lasts. Null (logged) if a secret cannot be opened. */
  private signingKeys(endpoint: WebhookEndpoint, now: number): Buffer[] | null {
    const open = (s: SealedSecret): Buffer => {
      // The same sealed secret opens to the same key: opened once, not once per pass and lane.
      const id = `${endpoint.id} ${s.keyId} ${s.ciphertext}`;
      const cached = this.openedKeys.get(id);
      if (cached) return cached;
      const key = signingKeyOf(this.deps.secrets.open(s, secretAssociatedData(endpoint.id)));
      if (!key) throw new Error('the stored secret is not a whsec_ secret');
      if (this.openedKeys.size >= OPENED_KEYS_MAX) this.openedKeys.clear();
      this.openedKeys.set(id, key);
      return key;
    };
    try {
      const keys = [open(endpoint.secret)];
      if (endpoint.previousSecret && endpoint.previousSecret.expiresAt > now) keys.push(open(endpoint.previousSecret));
      return keys;
    } catch (err) {
      // The key ring misses the key that sealed it (TOLLGATE_ENCRYPTION_KEYS): nothing can be signed; the deliveries wait.
      this.deps.log.error({ err, endpointId: endpoint.id }, 'webhook sender: the endpoint signing secret cannot be opened; its deliveries wait');
      return null;
    }
  }

  private launch(a: Attempt): void {
    a.lane.inFlight++;
    const controller = new AbortController();
    this.controllers.add(controller);
    const attemptedAt = this.deps.clock.now();
    const { config, metrics, tracer } = this.deps;
    metrics.outboundQueueAge.observe(Math.max(0, attemptedAt - a.dueAt) / 1_000);
    const span = tracer?.startSpan('webhook.deliver', {
      kind: SpanKind.CLIENT,
      attributes: { 'tollgate.webhook.event_type': a.eventType, 'tollgate.webhook.attempt': a.claimedAttempts },
    });
    const p = sendAttempt({
      url: a.url,
      headers: webhookHeaders(a.messageId, Math.floor(attemptedAt / 1000), a.body, a.keys),
      body: a.body,
      timeoutMs: config.outboundWebhookTimeoutMs,
      guard: !config.outboundWebhookAllowPrivateAddresses,
      allowHttp: config.outboundWebhookAllowHttp,
      resolver: this.resolver,
      agents: this.agents,
      signal: controller.signal,
    })
      .catch((err: unknown): AttemptOutcome => {
        this.deps.log.error({ err }, 'webhook sender: an attempt failed unexpectedly; its delivery is due again');
        return { abandoned: true, latencyMs: 0 };
      })
      .then((outcome) => {
        this.finished.push({ attempt: a, attemptedAt, finishedAt: this.deps.clock.now(), outcome });
        const judged = outcome.abandoned ? null : judgeAttempt(outcome.result);
        const result = judged === null ? 'abandoned' : judged.succeeded ? 'succeeded' : 'failed';
        metrics.outboundAttempt(result, judged?.errorCode ?? 'none').inc();
        if (judged) metrics.outboundDuration.observe(outcome.latencyMs / 1_000);
        span?.setAttribute('tollgate.webhook.outcome', result).end();
      })
      .finally(() => {
        a.lane.inFlight--;
        this.controllers.delete(controller);
        this.inFlight.delete(p);
        this.kick();
      });
    this.inFlight.add(p);
  }

  /**
   * In the pass's transaction: each result on its delivery (fenced by the claimed attempt count), every
   * attempt in the log (a refused result too: the request was made), and each endpoint's health,
   * which may disable it (audited; its pending deliveries fail).
   */
  private async writeResults(trx: Db, batch: Finished[]): Promise<void> {
    const { deps } = this;
    const disableAfterMs = deps.config.outboundWebhookDisableAfterHours * 3_600_000;
    const now = deps.clock.now();
    const rows: NewAttempt[] = [];
    const health = new Map<
      string,
      { tenant: Tenant; endpointId: string; lane: Lane; outcomes: Array<{ outcome: HealthOutcome; at: number; status: number | null }> }
    >();
    const answered: Array<{ f: Finished; result: AttemptResult; judged: ReturnType<typeof judgeAttempt>; after: ReturnType<typeof deliveryAfter> }> = [];
    for (const f of batch) {
      const a = f.attempt;
      if (f.outcome.abandoned) {
        await reopenClaimedDelivery(trx, a.tenant, { messageId: a.messageId, endpointId: a.endpointId, claimedAttempts: a.claimedAttempts }, now, now);
        continue;
      }
      const { result } = f.outcome;
      const judged = judgeAttempt(result);
      answered.push({ f, result, judged, after: deliveryAfter(a, judged, result.kind === 'response' ? result.retryAfter : undefined, f.finishedAt) });
    }
    const applied = await completeClaimedDeliveries(
      trx,
      deps.dialect,
      answered.map(({ f: { attempt: a, attemptedAt }, judged, after }) => ({
        tenant: a.tenant,
        messageId: a.messageId,
        endpointId: a.endpointId,
        claimedAttempts: a.claimedAttempts,
        ...after,
        lastAttemptAt: attemptedAt,
        lastResponseStatus: judged.responseStatus,
        lastError: judged.errorCode,
      })),
      now,
    );
    for (const { f, result, judged, after } of answered) {
      const a = f.attempt;
      const written = applied.has(deliveryKey(a));
      rows.push({
        id: deps.ids.next('webhookAttempt'),
        workspaceId: a.tenant.workspaceId,
        environment: a.tenant.environment,
        messageId: a.messageId,
        endpointId: a.endpointId,
        eventType: a.eventType,
        attemptNumber: a.claimedAttempts,
        trigger: a.trigger,
        url: a.url,
        nodeId: this.opts.nodeId,
        status: judged.succeeded ? 'succeeded' : 'failed',
        responseStatus: judged.responseStatus,
        responseBody: result.kind === 'response' ? result.body : null,
        responseTruncated: result.kind === 'response' && result.truncated ? 1 : 0,
        errorCode: judged.errorCode,
        errorMessage: judged.errorMessage,
        latencyMs: f.outcome.latencyMs,
        attemptedAt: f.attemptedAt,
        nextAttemptAt: written ? after.nextAttemptAt : null,
      });
      if (!written) continue;
      let h = health.get(a.endpointId);
      if (!h) health.set(a.endpointId, (h = { tenant: a.tenant, endpointId: a.endpointId, lane: a.lane, outcomes: [] }));
      h.outcomes.push({ outcome: outcomeOf(judged.responseStatus), at: f.finishedAt, status: judged.responseStatus });
    }
    const disabled = new Set<string>();
    for (const h of [...health.values()].sort(byEndpoint)) {
      if (h.lane.failingSince === null && h.outcomes.every((o) => o.outcome === 'success')) continue;
      h.lane.failingSince = undefined;
      if (await this.applyHealth(trx, h.tenant, h.endpointId, h.outcomes, disableAfterMs, now)) disabled.add(h.endpointId);
    }
    // A disabled endpoint's deliveries are failed, not retried: the log says no next attempt.
    for (const r of rows) if (disabled.has(r.endpointId)) r.nextAttemptAt = null;
    await insertAttempts(trx, deps.dialect, rows);
  }

  /** Applies the endpoint-health rules to an endpoint's outcomes in order; true if it was disabled. */
  private async applyHealth(
    trx: Db,
    tenant: Tenant,
    endpointId: string,
    outcomes: ReadonlyArray<{ outcome: HealthOutcome; at: number; status: number | null }>,
    disableAfterMs: number,
    now: number,
  ): Promise<boolean> {
    const state = await readEndpointHealth(trx, tenant, endpointId);
    if (!state || !state.enabled) return false;
    let failingSince = state.failingSince;
    let disable: { reason: Exclude<DisabledReason, 'manual'>; status: number | null } | null = null;
    for (const o of outcomes) {
      const t = healthAfter(failingSince, o.outcome, o.at, disableAfterMs);
      if (t.kind === 'recovered') failingSince = null;
      else if (t.kind === 'failing') failingSince = t.since;
      else if (t.kind === 'disable') {
        disable = { reason: t.reason, status: o.status };
        break;
      }
    }
    if (!disable) {
      if (failingSince !== state.failingSince) await setEndpointFailingSince(trx, tenant, endpointId, failingSince);
      return false;
    }
    if (!(await disableEndpointForHealth(trx, tenant, endpointId, disable.reason, failingSince, now))) return false;
    const failed = await failPendingDeliveries(trx, tenant, endpointId, now);
    await recordAudit(
      trx,
      this.deps,
      { ...tenant, actor: { type: 'SYSTEM', id: 'webhook-sender' }, correlationId: this.deps.ids.next('request'), source: 'system' },
      {
        eventType: 'webhook_endpoint.disabled',
        severity: 'WARN',
        targetType: 'webhook_endpoint',
        targetId: endpointId,
        payload: {
          reason: disable.reason,
          responseStatus: disable.status,
          failingSince: failingSince === null ? null : new Date(failingSince).toISOString(),
          pendingDeliveriesFailed: failed,
        },
      },
    );
    return true;
  }
}

function byEndpoint(a: { endpointId: string }, b: { endpointId: string }): number {
  return a.endpointId < b.endpointId ? -1 : a.endpointId > b.endpointId ? 1 : 0;
}
