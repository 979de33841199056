import type { ShedKeys } from './shed-keys.js';

/**
 * Who gets in, who waits and who is turned away, without Fastify (admission.ts wires it to a
 * route's hooks). At most `limit` requests are in process; when all slots are taken a request
 * waits in one of two short FIFO lanes, or is shed with a Retry-After:
 *
 * - the retry lane, for a request whose idempotency key this gate shed before (ShedKeys), served
 *   first: a client that backs off as told gets in on its retry instead of competing afresh with
 *   every new batch, which is what made well-behaved clients give up under load;
 * - the fresh lane, for everything else: a burst a little over the limit waits instead of being
 *   refused, and beyond that new work is what gets shed.
 *
 * Both lanes are bounded in length and every waiter in time (`maxWaitMs`), so memory and latency
 * stay bounded however many clients send. A full lane makes room for a tenant holding fewer places
 * in it than the tenant holding the most, whose newest waiter is shed: one tenant's flood (of
 * real or pretended retries) cannot keep another tenant out. The Retry-After of a shed request is
 * the first second from now in which fewer than a second's worth of work has been told to come
 * back (ReturnSchedule), so it grows with the backlog and spreads the retries over the seconds.
 *
 * The fast path (a slot free, nobody waiting) is a comparison and an increment: no clock, no
 * timer, no allocation. One timer, armed only while someone waits, sheds waiters past their time.
 */

export type Lane = 'retry' | 'fresh';
export type Place = 'enter' | 'wait' | 'wait-evicting' | 'shed';

export interface PlaceQuestion {
  /** A slot is free and nobody is waiting for one. */
  slotFree: boolean;
  /** The places in this request's lane, and how many are taken. */
  capacity: number;
  waiting: number;
  /** Places in the lane held by this request's tenant, and by the tenant holding the most. */
  tenantWaiting: number;
  mostWaiting: number;
}

/** The admission rule, pure: enter, wait, wait in place of another tenant's newest waiter, or be shed. */
export function placeFor(q: PlaceQuestion): Place {
  if (q.slotFree) return 'enter';
  if (q.waiting < q.capacity) return 'wait';
  // Only while the lane stays no less fair after the swap: the tenant losing a place still holds
  // at least as many as this one then.
  if (q.capacity > 0 && q.tenantWaiting + 1 < q.mostWaiting) return 'wait-evicting';
  return 'shed';
}

/**
 * Retry-After for shed requests: the seconds ahead hold how many requests were told to come back
 * in each; a shed request gets the first second (from 1 on) with fewer than `perSecond`, up to
 * `maxSeconds` (where the excess also goes). A ring of counters by absolute second: bounded, and
 * it reads the clock only when something is shed.
 */
export class ReturnSchedule {
  private readonly counts: Int32Array;
  private readonly seconds: Float64Array;

  constructor(readonly maxSeconds: number) {
    this.counts = new Int32Array(maxSeconds + 1);
    this.seconds = new Float64Array(maxSeconds + 1).fill(-1);
  }

  /** Books a return and says after how many seconds. */
  book(nowMs: number, perSecond: number): number {
    const now = Math.floor(nowMs / 1000);
    for (let s = 1; s <= this.maxSeconds; s++) {
      const i = (now + s) % this.counts.length;
      if (this.seconds[i] !== now + s) {
        this.seconds[i] = now + s;
        this.counts[i] = 0;
      }
      if (this.counts[i]! < perSecond || s === this.maxSeconds) {
        this.counts[i]! += 1;
        return s;
      }
    }
    return this.maxSeconds;
  }
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface AdmissionGateOptions {
  limit: () => number;
  /** Places in each lane for a given limit; none means shed at once, as before the lanes. */
  lanes?: (limit: number) => { retry: number; fresh: number };
  maxWaitMs?: number;
  /** Milliseconds; deadlines, the service rate and the return schedule read it. */
  now: () => number;
  timers?: Timers;
  /** Where shed keys are remembered; null when requests carry no key to recognise a retry by. */
  shedKeys?: ShedKeys | null;
  maxRetryAfterSeconds?: number;
}

/** What became of a request that could not enter at once. */
export type Outcome = { entered: true } | { entered: false; retryAfter: number; aborted?: boolean };

export interface Waiter {
  readonly tenant: string;
  readonly hash: string | null;
  readonly lane: Lane;
  readonly deadline: number;
  readonly outcome: Promise<Outcome>;
  settle(o: Outcome): void;
}

const ENTERED: Outcome = { entered: true };

export class AdmissionGate {
  inFlight = 0;
  /** Requests that have left, ever: the service rate is measured from it. */
  private served = 0;
  private readonly retryLane: Waiter[] = [];
  private readonly freshLane: Waiter[] = [];
  private timer: unknown = null;
  private readonly schedule: ReturnSchedule;
  private rate = { since: 0, served: 0, perSecond: 0 };
  readonly shedKeys: ShedKeys | null;

  constructor(private readonly opts: AdmissionGateOptions) {
    this.schedule = new ReturnSchedule(opts.maxRetryAfterSeconds ?? 30);
    this.shedKeys = opts.shedKeys ?? null;
  }

  get waiting(): number {
    return this.retryLane.length + this.freshLane.length;
  }

  /** The fast path: takes a slot if one is free and nobody waits for one. */
  tryEnter(): boolean {
    if (this.inFlight < this.opts.limit() && this.retryLane.length + this.freshLane.length === 0) {
      this.inFlight += 1;
      return true;
    }
    return false;
  }

  /** Whether a slot is free now (the headers' check: anything else needs the slow path). */
  hasSlot(): boolean {
    return this.inFlight < this.opts.limit();
  }

  private laneOf(tenant: string, hash: string | null): Lane {
    return hash !== null && this.shedKeys?.has(tenant, hash) ? 'retry' : 'fresh';
  }

  private question(lane: Lane, tenant: string): PlaceQuestion {
    const limit = this.opts.limit();
    const queue = lane === 'retry' ? this.retryLane : this.freshLane;
    const capacity = this.opts.lanes?.(limit)[lane] ?? 0;
    let tenantWaiting = 0;
    let mostWaiting = 0;
    if (queue.length >= capacity && capacity > 0) {
      const counts = new Map<string, number>();
      for (const w of queue) counts.set(w.tenant, (counts.get(w.tenant) ?? 0) + 1);
      tenantWaiting = counts.get(tenant) ?? 0;
      for (const n of counts.values()) mostWaiting = Math.max(mostWaiting, n);
    }
    return { slotFree: this.inFlight < limit && this.waiting === 0, capacity, waiting: queue.length, tenantWaiting, mostWaiting };
  }

  /** At the headers, with slots full: would this request be shed at once? Changes nothing. */
  wouldShed(tenant: string, hash: string | null): boolean {
    const lane = this.laneOf(tenant, hash);
    return placeFor(this.question(lane, tenant)) === 'shed';
  }

  /** The slow path: enters, waits (`Waiter.outcome`), or is shed (Retry-After seconds). */
  arrive(tenant: string, hash: string | null): 'entered' | Waiter | number {
    this.pump();
    const lane = this.laneOf(tenant, hash);
    const place = placeFor(this.question(lane, tenant));
    if (place === 'enter') {
      if (hash !== null) this.shedKeys?.take(tenant, hash);
      this.inFlight += 1;
      return 'entered';
    }
    if (place === 'shed') return this.shed(tenant, hash);
    const queue = lane === 'retry' ? this.retryLane : this.freshLane;
    if (place === 'wait-evicting') this.evictNewestOfMost(queue);
    if (hash !== null) this.shedKeys?.take(tenant, hash);
    let settle!: (o: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const waiter: Waiter = { tenant, hash, lane, deadline: this.opts.now() + (this.opts.maxWaitMs ?? 2_000), outcome, settle };
    queue.push(waiter);
    this.arm();
    return waiter;
  }

  /** Turns a request away: remembers its key (its retry comes first) and books its return. */
  shed(tenant: string, hash: string | null): number {
    if (hash !== null) this.shedKeys?.remember(tenant, hash);
    const now = this.opts.now();
    return this.schedule.book(now, this.perSecond(now));
  }

  /** A request in process is done: its slot goes to the next waiter, retries first. */
  leave(): void {
    this.inFlight -= 1;
    this.served += 1;
    if (this.retryLane.length + this.freshLane.length > 0) this.pump();
  }

  /** A waiter's client went away: its place is freed, and it is not remembered as shed. */
  abandon(w: Waiter): void {
    const queue = w.lane === 'retry' ? this.retryLane : this.freshLane;
    const i = queue.indexOf(w);
    if (i < 0) return;
    queue.splice(i, 1);
    w.settle({ entered: false, retryAfter: 1, aborted: true });
    if (this.waiting === 0) this.disarm();
  }

  private pump(): void {
    while (this.inFlight < this.opts.limit()) {
      const next = this.retryLane.shift() ?? this.freshLane.shift();
      if (!next) break;
      this.inFlight += 1;
      next.settle(ENTERED);
    }
    if (this.waiting === 0) this.disarm();
  }

  private evictNewestOfMost(queue: Waiter[]): void {
    const counts = new Map<string, number>();
    for (const w of queue) counts.set(w.tenant, (counts.get(w.tenant) ?? 0) + 1);
    let most = '';
    let n = -1;
    for (const [tenant, c] of counts) if (c > n) [most, n] = [tenant, c];
    const i = queue.findLastIndex((w) => w.tenant === most);
    const [victim] = queue.splice(i, 1);
    victim!.settle({ entered: false, retryAfter: this.shed(victim!.tenant, victim!.hash) });
  }

  /**
   * Requests per second while busy: served over the last window of at least a second. Returns are
   * booked at this rate, so retries come back no faster than they can be served (a slow server,
   * or a loaded machine, gets a longer Retry-After instead of retries that time out waiting).
   */
  private perSecond(now: number): number {
    const r = this.rate;
    const elapsed = now - r.since;
    if (elapsed >= 1_000) {
      // A window much longer than a second spans idle time, which says nothing of the busy rate.
      if (elapsed <= 5_000) r.perSecond = ((this.served - r.served) * 1_000) / elapsed;
      r.since = now;
      r.served = this.served;
    }
    if (r.perSecond > 0) return r.perSecond;
    // Before any rate is known: the slots and the retry places, as many as can be placed at once.
    const limit = this.opts.limit();
    return limit + (this.opts.lanes?.(limit).retry ?? 0);
  }

  private arm(): void {
    if (this.timer !== null) return;
    const timers = this.opts.timers ?? realTimers;
    const head = Math.min(this.retryLane[0]?.deadline ?? Infinity, this.freshLane[0]?.deadline ?? Infinity);
    this.timer = timers.set(
      () => {
        this.timer = null;
        this.expire();
      },
      Math.max(0, head - this.opts.now()),
    );
  }

  private disarm(): void {
    if (this.timer === null) return;
    (this.opts.timers ?? realTimers).clear(this.timer);
    this.timer = null;
  }

  /** Sheds every waiter past its deadline (each lane is in deadline order), then re-arms. */
  expire(): void {
    const now = this.opts.now();
    for (const queue of [this.retryLane, this.freshLane]) {
      while (queue.length > 0 && queue[0]!.deadline <= now) {
        const w = queue.shift()!;
        w.settle({ entered: false, retryAfter: this.shed(w.tenant, w.hash) });
      }
    }
    if (this.waiting > 0) this.arm();
  }
}
