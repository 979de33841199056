import { nextAttemptAt, parseRetryAfter } from './retry-schedule.js';
import { ENDPOINT_DELETED_ERROR, ENDPOINT_DISABLED_ERROR, type DeliveryStatus } from './webhook-message.js';

/**
 * What one attempt's outcome means for its delivery and for the log. Pure: the sender
 * (webhook-sender.ts) makes the request (send-attempt.ts) and writes what these functions decide.
 */

/** Why an attempt failed, as the delivery log (webhook_attempts.error_code) names it. */
export type AttemptErrorCode =
  'timeout' | 'connection_refused' | 'connection_reset' | 'dns' | 'tls' | 'network' | 'url_not_allowed' | 'redirect' | 'http_status';

/** What came back from one POST: an answer (any status) or no answer at all. */
export type AttemptResult =
  | {
      kind: 'response';
      status: number;
      /** The first 1 KiB of the body (UTF-8, lossy). */
      body: string;
      truncated: boolean;
      retryAfter?: string;
      location?: string;
    }
  | { kind: 'error'; code: Exclude<AttemptErrorCode, 'redirect' | 'http_status'>; message: string };

export interface JudgedAttempt {
  succeeded: boolean;
  responseStatus: number | null;
  errorCode: AttemptErrorCode | null;
  errorMessage: string | null;
}

/** Error messages in the log are for people, and short. */
export const MAX_ERROR_MESSAGE = 300;

const clip = (s: string) => (s.length > MAX_ERROR_MESSAGE ? `${s.slice(0, MAX_ERROR_MESSAGE - 1)}…` : s);

/** 2xx succeeds; a 3xx is a refused redirect (never followed); anything else, or no answer, fails. */
export function judgeAttempt(r: AttemptResult): JudgedAttempt {
  if (r.kind === 'error') return { succeeded: false, responseStatus: null, errorCode: r.code, errorMessage: clip(r.message) };
  if (r.status >= 200 && r.status < 300) return { succeeded: true, responseStatus: r.status, errorCode: null, errorMessage: null };
  if (r.status >= 300 && r.status < 400) {
    const to = r.location ? ` to ${r.location}` : '';
    return { succeeded: false, responseStatus: r.status, errorCode: 'redirect', errorMessage: clip(`HTTP ${r.status}: redirect${to} not followed`) };
  }
  return { succeeded: false, responseStatus: r.status, errorCode: 'http_status', errorMessage: `HTTP ${r.status}` };
}

/** The delivery after an attempt: its state, the schedule step reached, and when it is due next (pending only). */
export interface DeliveryAfter {
  status: DeliveryStatus;
  scheduleStep: number;
  nextAttemptAt: number | null;
}

/**
 * A success ends the delivery; a failure is retried on the schedule (retry-schedule.ts) from the
 * step it has reached in this pass of it, and fails the delivery after the last step. A 410 is a
 * failure here too: it disables the endpoint (endpoint-health.ts), which fails what is pending.
 */
export function deliveryAfter(
  d: { messageId: string; endpointId: string; scheduleStep: number },
  judged: JudgedAttempt,
  retryAfter: string | undefined,
  at: number,
): DeliveryAfter {
  const step = d.scheduleStep + 1;
  if (judged.succeeded) return { status: 'succeeded', scheduleStep: step, nextAttemptAt: null };
  const next = nextAttemptAt({
    messageId: d.messageId,
    endpointId: d.endpointId,
    step,
    failedAt: at,
    responseStatus: judged.responseStatus,
    retryAfterSeconds: parseRetryAfter(retryAfter, at),
  });
  return next === null ? { status: 'failed', scheduleStep: step, nextAttemptAt: null } : { status: 'pending', scheduleStep: step, nextAttemptAt: next };
}

/** What made an attempt (webhook_attempts.trigger). */
export type AttemptTrigger = 'scheduled' | 'replay' | 'test';

/**
 * The trigger of the attempt about to be made, read from the delivery as claimed. A test
 * message's attempts are `test`. A replay puts a delivery back to pending at step 0: one that
 * had attempts logged before (lastAttemptAt), or that had failed without any because its endpoint
 * was disabled or deleted (that error stays until an attempt replaces it), is a `replay`; the
 * rest are `scheduled` (a first attempt, a retry, or the retake of an attempt a crash cut short).
 */
export function triggerOf(
  d: { scheduleStep: number; lastAttemptAt: number | null; lastError: string | null },
  messageSource: 'event' | 'test',
): AttemptTrigger {
  if (messageSource === 'test') return 'test';
  if (d.scheduleStep !== 0) return 'scheduled';
  if (d.lastAttemptAt !== null || d.lastError === ENDPOINT_DISABLED_ERROR || d.lastError === ENDPOINT_DELETED_ERROR) return 'replay';
  return 'scheduled';
}

/** Socket and resolver error codes, by what the log calls them; anything else is `network`. */
const NETWORK_CODES: Record<string, Exclude<AttemptErrorCode, 'redirect' | 'http_status' | 'timeout' | 'url_not_allowed'>> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ECONNABORTED: 'connection_reset',
  ERR_STREAM_PREMATURE_CLOSE: 'connection_reset',
  HPE_INVALID_CONSTANT: 'network',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  ENODATA: 'dns',
  ESERVFAIL: 'dns',
  EHOSTUNREACH: 'network',
  ENETUNREACH: 'network',
};

/** A request error (from node:http, the socket, the TLS layer or the resolver) as the log's code and message. */
export function classifyRequestError(err: unknown): { code: Exclude<AttemptErrorCode, 'redirect' | 'http_status' | 'timeout'>; message: string } {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = clip(typeof e?.message === 'string' && e.message !== '' ? e.message : String(err));
  if (code === 'URL_NOT_ALLOWED') return { code: 'url_not_allowed', message };
  const known = NETWORK_CODES[code];
  if (known) return { code: known, message };
  if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/.test(code)) return { code: 'tls', message };
  return { code: 'network', message };
}
