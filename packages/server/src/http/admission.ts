import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import type { AdmissionMeter } from '../lib/metrics.js';
import { AdmissionGate, type Timers, type Waiter } from './admission-gate.js';
import { ShedKeys } from './shed-keys.js';

export interface AdmissionOptions {
  /**
   * The request's idempotency key, by which the retry of a shed request is recognised and let in
   * ahead of new work. Without it every request is new work and is shed at once when the slots
   * are full, as before.
   */
  retryKey?: (req: FastifyRequest) => string | undefined;
  /** Milliseconds (deps.clock: tests freeze it, so no waiter ever times out on the wall clock). */
  now?: () => number;
  timers?: Timers;
}

/** A shed key is remembered this long: longer than the largest Retry-After and a retry's trip. */
const SHED_KEY_TTL_MS = 60_000;

/**
 * Admission control: at most `limit` requests of a kind in process at once. Queueing without
 * bound turns a burst into seconds of latency for everyone, so the excess waits only in short,
 * bounded lanes (admission-gate.ts: retries of shed requests first, then new work; four places
 * per slot for retries and one for new work) for at most 2 s, and beyond them is answered at once
 * with 503 and a Retry-After that grows with the backlog. Spread the returned hooks into the
 * routes' options.
 *
 * A request counts from preHandler on, once its body has been read: counted from its headers, a
 * few clients sending their bodies slowly held every slot while the server sat idle. (The same goes
 * for a place in a lane: a slow body holds none.) It is also turned away at its headers when it
 * would find neither a slot nor a place then, so that shedding a burst costs no body parsing (a
 * 1,000-event batch is 200 KB of JSON). (A streamed upload's body is read by its handler, so it
 * counts from the start, watched by http/slow-clients.ts.)
 *
 * `meter` (deps.metrics.admission(kind)) reads the count at scrape time and counts each request shed.
 */
export function admission(limit: () => number, what: string, meter?: AdmissionMeter, opts: AdmissionOptions = {}) {
  const now = opts.now ?? (() => performance.now());
  const retryKey = opts.retryKey;
  const gate = new AdmissionGate({
    limit,
    now,
    ...(opts.timers ? { timers: opts.timers } : {}),
    ...(retryKey
      ? { lanes: (n: number) => ({ retry: 4 * n, fresh: n }), shedKeys: new ShedKeys({ perTenant: 512, total: 8_192, ttlMs: SHED_KEY_TTL_MS, now }) }
      : {}),
  });
  meter?.track(() => gate.inFlight, limit);
  const admitted = new WeakSet<FastifyRequest>();
  const waiters = new WeakMap<FastifyRequest, Waiter>();
  // Hashed once per request, and only on the slow path.
  const hashes = new WeakMap<FastifyRequest, string | null>();
  const hashOf = (req: FastifyRequest): string | null => {
    let h = hashes.get(req);
    if (h === undefined) {
      const key = retryKey?.(req);
      h = key === undefined ? null : createHash('sha256').update(key).digest('base64url').slice(0, 22);
      hashes.set(req, h);
    }
    return h;
  };
  const tenantOf = (req: FastifyRequest) => (req.ctx ? `${req.ctx.workspaceId}:${req.ctx.environment}` : '');
  const refuse = (reply: FastifyReply, retryAfter: number): never => {
    meter?.shed.inc();
    reply.header('retry-after', String(retryAfter));
    const s = retryAfter === 1 ? 'second' : 'seconds';
    throw new AppError('SERVICE_UNAVAILABLE', `This server is processing ${gate.inFlight} ${what}; retry after ${retryAfter} ${s}.`);
  };
  const release = async (req: FastifyRequest) => {
    if (admitted.delete(req)) gate.leave();
    else {
      const w = waiters.get(req);
      if (w) gate.abandon(w);
    }
  };
  return {
    onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
      if (gate.hasSlot()) return;
      const tenant = tenantOf(req);
      const hash = hashOf(req);
      if (gate.wouldShed(tenant, hash)) refuse(reply, gate.shed(tenant, hash));
    },
    preHandler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (gate.tryEnter()) {
        admitted.add(req);
        return;
      }
      const tenant = tenantOf(req);
      const hash = hashOf(req);
      const arrival = gate.arrive(tenant, hash);
      if (arrival === 'entered') {
        admitted.add(req);
        return;
      }
      if (typeof arrival === 'number') return refuse(reply, arrival);
      // Its body is read, so onRequestAbort no longer fires for it: the response's close does.
      const gone = () => gate.abandon(arrival);
      waiters.set(req, arrival);
      reply.raw.once('close', gone);
      const outcome = await arrival.outcome;
      reply.raw.off('close', gone);
      waiters.delete(req);
      if (outcome.entered) {
        admitted.add(req);
        return;
      }
      if (outcome.aborted) throw new AppError('SERVICE_UNAVAILABLE', 'The client went away while waiting.');
      refuse(reply, outcome.retryAfter);
    },
    onResponse: release,
    onRequestAbort: release,
  };
}
