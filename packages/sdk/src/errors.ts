/** One problem the API reported: the spec's error envelope entry. */
export interface ApiErrorDetail {
  code: string;
  message: string;
  /** The offending field, e.g. body.email or events[3].quantity. */
  field?: string;
  /** Usage ingestion: the position of the rejected event in its batch. */
  index?: number;
}

/**
 * Every failed request: the HTTP status (0 when no answer came: a network error or a timeout),
 * the envelope's errors[] and the X-Request-Id to quote to support. A body that is not the
 * envelope (a gateway's 429 with a bare message) still gives one entry.
 */
export class TollgateError extends Error {
  override readonly name = 'TollgateError';
  constructor(
    message: string,
    readonly status: number,
    readonly errors: ApiErrorDetail[],
    readonly requestId: string | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** True when no HTTP answer came (connection refused or dropped, timeout). */
  get unreachable(): boolean {
    return this.status === 0;
  }
}

/** track() when maxQueuedEvents are already waiting: the caller decides to drop, wait for flush() or raise the bound. */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
  constructor(readonly maxQueuedEvents: number) {
    super(`The usage queue holds its maximum of ${maxQueuedEvents} events (maxQueuedEvents); await flush() or raise the bound.`);
  }
}

/** The guard refused: the entitlement check answered allowed=false for a reason other than a usage limit. */
export class EntitlementDenied extends Error {
  override readonly name: string = 'EntitlementDenied';
  constructor(
    message: string,
    readonly reason: string,
    readonly customerId: string,
    readonly productId: string,
  ) {
    super(message);
  }
}

/** The guard refused: a BLOCK usage limit of the subscription is used up (or this use would pass it). */
export class UsageLimitExceeded extends EntitlementDenied {
  override readonly name = 'UsageLimitExceeded';
  constructor(
    readonly metricName: string,
    readonly limit: number,
    readonly used: number,
    customerId: string,
    productId: string,
  ) {
    super(`Usage limit of ${metricName} reached: ${used} used of ${limit} this period (BLOCK).`, 'QUOTA_EXHAUSTED', customerId, productId);
  }
}

/** The guard refused: a PREPAID subscription whose overage is BLOCK has no credit left (reason CREDITS_EXHAUSTED); a grant or a top-up allows again. */
export class CreditsExhausted extends EntitlementDenied {
  override readonly name = 'CreditsExhausted';
  constructor(customerId: string, productId: string) {
    super(`No prepaid credits left for customer ${customerId}: a grant or a top-up allows usage again.`, 'CREDITS_EXHAUSTED', customerId, productId);
  }
}
