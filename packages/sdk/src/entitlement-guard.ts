import type { EntitlementCheck, UsageLimitState } from './api-types.js';
import { EntitlementDenied, TollgateError, UsageLimitExceeded } from './errors.js';
import type { HttpClient } from './http-client.js';

export interface GuardInput {
  /** The customer: its cus_ id or your externalId (the check's accessorId). */
  customerId: string;
  productId: string;
  /** The metric this use counts against; without it every limit of the subscription applies. */
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

  check(customerId: string, productId: string): Promise<EntitlementCheck> {
    const key = `${customerId}\u0000${productId}`;
    const now = this.opts.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.opts.cacheTtlMs) return Promise.resolve(hit.answer);
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.http
        .request<EntitlementCheck>({ method: 'GET', path: '/v1/entitlements/check', query: { accessorId: customerId, productId } })
        .then((answer) => {
          if (this.opts.cacheTtlMs > 0) this.remember(key, now, answer);
          return answer;
        })
        .finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return pending;
  }

  /** Forget cached answers (all, or one customer's for one product), e.g. after changing limits. */
  clear(customerId?: string, productId?: string): void {
    if (customerId === undefined || productId === undefined) this.cache.clear();
    else this.cache.delete(`${customerId}\u0000${productId}`);
  }

  async guard(input: GuardInput): Promise<GuardResult> {
    let answer: EntitlementCheck;
    try {
      answer = await this.check(input.customerId, input.productId);
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
    const applies = (l: UsageLimitState) => input.metricName === undefined || l.metricName === input.metricName;
    // Used up on the server (allowed=false for it), or passed by this use.
    const blocking = limits.find((l) => l.enforcement === 'BLOCK' && (l.used >= l.limit || (applies(l) && l.used + quantity > l.limit)));
    if (blocking) throw new UsageLimitExceeded(blocking.metricName, blocking.limit, blocking.used, input.customerId, input.productId);
    if (!answer.allowed) {
      throw new EntitlementDenied(`Not entitled: ${answer.reason}.`, answer.reason, input.customerId, input.productId);
    }
    const alerts = limits
      .filter((l) => l.enforcement === 'ALERT' && applies(l) && l.used + quantity > l.limit)
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
