import { TollgateError, type ApiErrorDetail } from './errors.js';
import { retryDelayMs, type Attempt } from './retry-policy.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpClientOptions {
  apiKey: string;
  baseUrl: string;
  fetch: FetchLike;
  timeoutMs: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** Serialized once, so every retry sends the same bytes (an idempotency key demands it). */
  body?: unknown;
  /** Sent with the request and kept across its retries; makes a request without an answer safe to repeat. */
  idempotency?: { header: 'Idempotency-Key' | 'X-Idempotency-Key'; key: string } | undefined;
  /**
   * An instant (ms, the client's clock) past which no attempt starts and no retry is waited
   * for: an attempt is cut to the time left, and a Retry-After that would end after it ends the
   * request with the last error instead. The first attempt always runs. Default: no deadline.
   */
  deadline?: number | undefined;
}

/**
 * Sends requests with the key in Authorization: Bearer on every one, a timeout per attempt, and
 * the spec's retries (retry-policy.ts). Uses only what every fetch runtime has: fetch,
 * AbortController, setTimeout.
 */
export class HttpClient {
  private readonly base: string;

  constructor(private readonly opts: HttpClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  async request<T>(req: HttpRequest): Promise<T> {
    const url = this.base + req.path + queryString(req.query);
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/json' };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    if (req.idempotency) headers[req.idempotency.header] = req.idempotency.key;

    for (let retries = 0; ; retries++) {
      let attempt: Attempt;
      let error: TollgateError;
      const controller = new AbortController();
      let timedOut = false;
      const left = req.deadline === undefined ? Infinity : req.deadline - this.opts.now();
      const attemptMs = Math.max(1, Math.min(this.opts.timeoutMs, left));
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, attemptMs);
      try {
        const res = await this.opts.fetch(url, { method: req.method, headers, body, signal: controller.signal });
        const text = await res.text();
        const requestId = res.headers.get('x-request-id');
        if (res.ok) return (text === '' ? undefined : JSON.parse(text)) as T;
        error = errorFromAnswer(req, res.status, text, requestId);
        attempt = { kind: 'status', status: res.status, retryAfter: res.headers.get('retry-after') };
      } catch (cause) {
        const code = timedOut ? 'TIMEOUT' : 'NETWORK_ERROR';
        const message = timedOut
          ? `${req.method} ${req.path}: no answer within ${attemptMs} ms`
          : `${req.method} ${req.path}: ${(cause as Error)?.message ?? String(cause)}`;
        error = new TollgateError(message, 0, [{ code, message }], null, { cause });
        attempt = { kind: 'network' };
      } finally {
        clearTimeout(timer);
      }
      const now = this.opts.now();
      const delay = retryDelayMs(attempt, retries, req.idempotency !== undefined, now);
      if (delay === null || (req.deadline !== undefined && now + delay >= req.deadline)) throw error;
      await this.opts.sleep(delay);
    }
  }
}

function queryString(query: HttpRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The spec's envelope when the body is one; else (a gateway's own body) one entry from what there is. */
function errorFromAnswer(req: HttpRequest, status: number, text: string, requestId: string | null): TollgateError {
  let errors: ApiErrorDetail[] = [];
  try {
    const parsed = JSON.parse(text) as { errors?: unknown; message?: unknown };
    if (Array.isArray(parsed.errors)) {
      errors = parsed.errors.filter((e): e is ApiErrorDetail => typeof e === 'object' && e !== null && typeof (e as ApiErrorDetail).code === 'string');
    } else if (typeof parsed.message === 'string') {
      errors = [{ code: status === 429 ? 'RATE_LIMITED' : `HTTP_${status}`, message: parsed.message }];
    }
  } catch {
    // Not JSON: the status and the text are all there is.
  }
  if (errors.length === 0) errors = [{ code: status === 429 ? 'RATE_LIMITED' : `HTTP_${status}`, message: text.slice(0, 500) || `HTTP ${status}` }];
  const first = errors[0]!;
  return new TollgateError(`${req.method} ${req.path}: ${status} ${first.code}: ${first.message}`, status, errors, requestId);
}
