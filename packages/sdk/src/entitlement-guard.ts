import type { EntitlementCheck, UsageLimitState } from './api-types.js';
import { CreditsExhausted, EntitlementDenied, TollgateError, UsageLimitExceeded } from './errors.js';
import type { HttpClient } from './http-client.js';

export interface GuardInput {
  /** The customer: its cus_ id or your externalId (the check's accessorId). */
  customerId: string;
  productId: string;
  /**
   * The metric this use counts against. Named, it scopes the guard: only this metric's usage
   * limits refuse (BLOCK) or alert (ALERT); another metric's used-up BLOCK limit does not refuse
   * this use. Without it, every limit of the subscription applies. Either way the subscription
   * must be active and a BLOCK spend budget (over all metrics) not spent.
   */
  metricName?: string;
  /** Units this use will add (default 1): a BLOCK limit refuses a use that would pass it. */
  quantity?: number;
}

/** An ALERT limit this use goes past: allowed, reported. */
export interface UsageAlert {
  customerId: string;
  productId: string;
  metricName: string;
  limit: number;
  used: number;
}

export interface GuardResult {
  allowed: true;
  /** The check's answer; null when Tollgate was unreachable and failOpen let the use through. */
  check: EntitlementCheck | null;
  alerts: UsageAlert[];
}

export interface EntitlementOptions {
  cacheTtlMs: number;
  maxCacheEntries: number;
  failOpen: boolean;
  /** guard()'s whole budget for asking Tollgate, retries included (see GuardInput). */
  guardTimeoutMs: number;
  now: () => number;
  onAlert: (alert: UsageAlert) => void;
  onUnreachable: (error: TollgateError) => void;
}

/**
 * check() asks GET /v1/entitlements/check and keeps each answer cacheTtlMs (concurrent asks for
 * one question share a request). guard() enforces the subscription's usage limits from that
 * answer, as the spec leaves it to the SDK: BLOCK refuses, ALERT allows and reports.
 */
export class Entitlements {
  private readonly cache = new Map<string, { at: number; answer: EntitlementCheck }>();
  private readonly asking = new Map<string, Promise<EntitlementCheck>>();

  constructor(
    private readonly http: HttpClient,
    private readonly opts: EntitlementOptions,
  ) {}

  /** The spec's full retry guidance: up to 3 retries, each after its Retry-After. */
  check(customerId: string, productId: string): Promise<EntitlementCheck> {
    return this.ask(customerId, productId, undefined);
  }

  /**
   * A cached answer, else one request. Requests are shared by concurrent askers of one question
   * with the same budget: a guard() never waits on a check() that may retry for a minute.
   */
  private ask(customerId: string, productId: string, deadline: number | undefined): Promise<EntitlementCheck> {
    const key = `${customerId}\u0000${productId}`;
    const now = this.opts.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.opts.cacheTtlMs) return Promise.resolve(hit.answer);
    const askKey = `${deadline === undefined ? 'check' : 'guard'}\u0000${key}`;
    let pending = this.asking.get(askKey);
    if (!pending) {
      pending = this.http
        .request<EntitlementCheck>({ method: 'GET', path: '/v1/entitlements/check', query: { accessorId: customerId, productId }, deadline })
        .then((answer) => {
          if (this.opts.cacheTtlMs > 0) this.remember(key, now, answer);
          return answer;
        })
        .finally(() => this.asking.delete(askKey));
      this.asking.set(askKey, pending);
    }
    return pending;
  }

  /** Forget cached answers (all, or one customer's for one product), e.g. after changing limits. */
  clear(customerId?: string, productId?: string): void {
    if (customerId === undefined || productId === undefined) this.cache.clear();
    else this.cache.delete(`${customerId}\u0000${productId}`);
  }

  /**
   * guard() sits on the caller's request path, so it asks with a budget (guardTimeoutMs, 2 s by
   * default) rather than the spec's full three retries: a retry is waited for only when its
   * Retry-After ends within the budget. Past it, Tollgate counts as unreachable and failOpen
   * decides. The spec's rules still hold: no retry before Retry-After, none on another 4xx.
   */
  async guard(input: GuardInput): Promise<GuardResult> {
    let answer: EntitlementCheck;
    try {
      answer = await this.ask(input.customerId, input.productId, this.opts.now() + this.opts.guardTimeoutMs);
    } catch (err) {
      // Unreachable: no answer, a 5xx, or rate limited past the retries. A 4xx (bad key, unknown
      // customer or product) is the caller's mistake and always throws.
      if (err instanceof TollgateError && (err.status === 0 || err.status === 429 || err.status >= 500)) {
        this.opts.onUnreachable(err);
        if (this.opts.failOpen) return { allowed: true, check: null, alerts: [] };
      }
      throw err;
    }
    const quantity = input.quantity ?? 1;
    const limits: UsageLimitState[] = answer.limits ?? [];
    const scoped = input.metricName === undefined ? limits : limits.filter((l) => l.metricName === input.metricName);
    // Used up on the server, or passed by this use.
    const blocking = scoped.find((l) => l.enforcement === 'BLOCK' && (l.used >= l.limit || l.used + quantity > l.limit));
    if (blocking) throw new UsageLimitExceeded(blocking.metricName, blocking.limit, blocking.used, input.customerId, input.productId);
    const denied = refusalBeyondLimits(answer, input.metricName);
    if (denied === 'CREDITS_EXHAUSTED') throw new CreditsExhausted(input.customerId, input.productId);
    if (denied) throw new EntitlementDenied(`Not entitled: ${denied}.`, denied, input.customerId, input.productId);
    const alerts = scoped
      .filter((l) => l.enforcement === 'ALERT' && l.used + quantity > l.limit)
      .map((l): UsageAlert => ({ customerId: input.customerId, productId: input.productId, metricName: l.metricName, limit: l.limit, used: l.used }));
    for (const alert of alerts) this.opts.onAlert(alert);
    return { allowed: true, check: answer, alerts };
  }

  private remember(key: string, at: number, answer: EntitlementCheck): void {
    // Bounded: the oldest entry goes first (a Map keeps insertion order).
    if (this.cache.size >= this.opts.maxCacheEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.delete(key);
    this.cache.set(key, { at, answer });
  }
}

/**
 * The server's refusal for anything but the scoped limits (checked before), or null. Its one
 * reason names the first cause only: QUOTA_EXHAUSTED (some BLOCK limit used up) hides whether a
 * BLOCK budget is spent too, and the answer does not say the budget's enforcement. So under a
 * named metric, QUOTA_EXHAUSTED is another metric's and allows, unless the budget reads spent
 * (budgetRemaining 0): that refuses as BUDGET_EXHAUSTED, erring towards the limit.
 */
function refusalBeyondLimits(answer: EntitlementCheck, metricName: string | undefined): string | null {
  if (answer.allowed) return null;
  if (answer.reason !== 'QUOTA_EXHAUSTED' || metricName === undefined) return answer.reason;
  return !answer.budgetUnlimited && answer.budgetRemaining <= 0 ? 'BUDGET_EXHAUSTED' : null;
}
