/**
 * One error type for the whole service. The code decides the HTTP status through a table, so a
 * new code cannot be added without deciding its status. The envelope rendered for every 4xx and
 * 5xx is the spec's rate-limit envelope: {success: false, errors: [{code, message, field?}]}.
 */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  // Usage events, named per event by index (all 400).
  INVALID_EVENT: 400,
  INVALID_QUANTITY: 400,
  NEGATIVE_QUANTITY: 400,
  INVALID_TIMESTAMP: 400,
  TIMESTAMP_IN_FUTURE: 400,
  TIMESTAMP_TOO_OLD: 400,
  INVALID_METADATA: 400,
  UNKNOWN_CUSTOMER: 400,
  UNKNOWN_METRIC: 400,
  TOO_MANY_EVENTS: 413,
  UNAUTHENTICATED: 401,
  // A widget session that was valid and has expired or was revoked; a malformed or unknown token is
  // UNAUTHENTICATED, so nothing says whether a token that never worked ever existed.
  SESSION_EXPIRED: 401,
  WEBHOOK_SIGNATURE_INVALID: 401,
  INSUFFICIENT_SCOPE: 403,
  // A cookie-authenticated POST, PATCH, PUT or DELETE without the session's X-CSRF-Token (console, developer hub).
  CSRF_FAILED: 403,
  // A widget session used from a page whose origin the session does not list.
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  KEY_NOT_ACTIVE: 409,
  SUBSCRIPTION_NOT_ACTIVE: 409,
  // A plan change submitted against a subscription that changed since its preview.
  SUBSCRIPTION_CHANGED: 409,
  // A change or cancellation is already scheduled for the period end: withdraw it first.
  CHANGE_PENDING: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  // A replay or test on an outbound webhook endpoint that is disabled: enable it first.
  ENDPOINT_DISABLED: 409,
  // Answered by Node's HTTP parser before any route: a request that took too long to arrive, or
  // whose headers are too large.
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  // A verified webhook whose content cannot become a usage event (see modules/plugs/README.md).
  MAPPING_FAILED: 422,
  // A retention offer that cannot be accepted: PAUSE_3_MONTHS, another type than the reason's, none.
  OFFER_NOT_AVAILABLE: 422,
  // An outbound webhook endpoint URL the SSRF guard refuses (loopback, private, metadata, http in production).
  URL_NOT_ALLOWED: 422,
  // A workspace and environment already hold OUTBOUND_WEBHOOK_MAX_ENDPOINTS outbound webhook endpoints.
  TOO_MANY_ENDPOINTS: 422,
  RATE_LIMITED: 429,
  // Sent inside a live stream (never as a status: EventSource clients stop for good on one).
  TOO_MANY_STREAMS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  // A dependency failed (db/errors.ts); always with Retry-After, never a 500.
  DATABASE_UNAVAILABLE: 503,
  DATABASE_BUSY: 503,
  NOT_READY: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetail {
  code: ErrorCode;
  message: string;
  /** JSON path of the offending field, e.g. `body.email` or `query.limit`. */
  field?: string;
  /** For usage events: the position of the rejected event in the batch. */
  index?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: { field?: string; details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = opts.details ?? [{ code, message, ...(opts.field ? { field: opts.field } : {}) }];
    this.headers = opts.headers ?? {};
  }
}

export interface ErrorEnvelope {
  success: false;
  errors: ErrorDetail[];
}

export function envelope(details: ErrorDetail[]): ErrorEnvelope {
  return { success: false, errors: details };
}

export const notFound = (what: string, id: string): AppError =>
  new AppError('NOT_FOUND', `No ${what} with id '${id}' exists in this workspace and environment.`, { field: 'id' });

/** One answer describes at most this many problems, then says how many more were found. */
export const MAX_REPORTED_ERRORS = 20;

/**
 * The first MAX_REPORTED_ERRORS details, and a last one counting the rest, so that an answer
 * stays small whatever was sent (a 1 MB array once produced a 144 MB 400). `found` is the number
 * of problems when more were found than are given; `where` names the part (body, query).
 */
export function capDetails(details: ErrorDetail[], where: string, found = details.length): ErrorDetail[] {
  if (found <= MAX_REPORTED_ERRORS) return details;
  const more = found - MAX_REPORTED_ERRORS;
  return [
    ...details.slice(0, MAX_REPORTED_ERRORS),
    {
      code: 'VALIDATION_FAILED',
      field: where,
      message: `${more} more problems were found in ${where}; fix these ${MAX_REPORTED_ERRORS} and send the request again to see them.`,
    },
  ];
}
