/**
 * The console's one way to the server: same-origin fetch with the session cookie, the CSRF token
 * on unsafe methods and the test/live choice in X-Tollgate-Environment (the contract in
 * ARCHITECTURE.md, "The operator console"). A non-2xx answer throws an ApiError carrying the parsed
 * envelope, so forms can put each error next to its field.
 */
import { parseRetryAfter, problemFrom, type ApiProblem } from './errors.js';
import { pageQuery, type Cursor, type ListPage } from './paging.js';

export type Environment = 'test' | 'live';

export class ApiError extends Error {
  constructor(readonly problem: ApiProblem) {
    super(problem.errors.map((e) => e.message).join(' '));
    this.name = 'ApiError';
  }
  get status(): number {
    return this.problem.status;
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface ApiOptions {
  /** The token the session answer carried; sent on POST, PUT, PATCH and DELETE. */
  csrfToken(): string | null;
  /** The console's test/live choice; the hub has none (its session names the environment), so sends no header. */
  environment?(): Environment;
  /** For tests; the page's fetch otherwise. */
  fetch?: typeof fetch;
  /** For Retry-After given as a date; the page's clock otherwise. */
  now?: () => number;
}

export interface Api {
  get<T>(path: string, query?: Query): Promise<T>;
  /** `headers`: a request's own, such as Idempotency-Key. */
  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
  list<T>(path: string, cursor: Cursor, limit: number, query?: Query): Promise<ListPage<T>>;
}

const SAFE = new Set(['GET', 'HEAD']);

/** The path with its query, undefined values left out. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const q = params.toString();
  return q === '' ? path : `${path}?${q}`;
}

export function createApi(options: ApiOptions): Api {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const now = options.now ?? (() => Date.now());

  async function request<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
    const headers: Record<string, string> = { ...extra, accept: 'application/json' };
    if (options.environment) headers['x-tollgate-environment'] = options.environment();
    if (body !== undefined) headers['content-type'] = 'application/json';
    const token = options.csrfToken();
    if (!SAFE.has(method) && token !== null) headers['x-csrf-token'] = token;
    let res: Response;
    try {
      res = await doFetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ApiError(problemFrom(0, null));
    }
    const text = await res.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (!res.ok) throw new ApiError(problemFrom(res.status, parsed, parseRetryAfter(res.headers.get('retry-after'), now())));
    return parsed as T;
  }

  return {
    get: (path, query) => request('GET', withQuery(path, query)),
    post: (path, body, headers) => request('POST', path, body ?? {}, headers),
    put: (path, body) => request('PUT', path, body),
    patch: (path, body) => request('PATCH', path, body),
    delete: (path) => request('DELETE', path),
    list: (path, cursor, limit, query = {}) => request('GET', withQuery(path, { ...query, ...pageQuery(cursor, limit) })),
  };
}
