/**
 * The live tail: GET /api/v1/events/stream read with fetch (EventSource cannot send the
 * environment and tenant headers), parsed by sse.ts, reconnecting after the delay the stream
 * asked for with Last-Event-ID, so no event is missed or shown twice across a reconnect. Ends
 * when the signal aborts (the toggle turned off, the screen left) or on a final refusal. fetch
 * and the wait come in as parameters, so the loop is tested without a server or a clock.
 */
import { problemFrom, type ApiProblem } from './errors.js';
import { initialSse, parseSse } from './sse.js';

export type TailStatus =
  | { state: 'connecting' }
  | { state: 'live' }
  /** Reconnecting after ms; message: the stream's own refusal (rate limit, too many streams). */
  | { state: 'waiting'; ms: number; message: string | null }
  | { state: 'stopped'; problem: ApiProblem };

export interface TailOptions {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  onEvent: (data: string, id: string) => void;
  onStatus: (status: TailStatus) => void;
  fetch?: typeof fetch;
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Until the stream sends its own retry: field. */
  retryMs?: number;
}

export const AUDIT_EVENT = 'audit_event';
export const STREAM_ERROR = 'stream_error';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** A refusal worth trying again later (rate limit, a server or proxy error); the rest are final. */
const transient = (status: number) => status === 429 || status >= 500;

function refusalMessage(data: string): string {
  try {
    const p = problemFrom(0, JSON.parse(data));
    return p.errors.map((e) => e.message).join(' ');
  } catch {
    return 'The server turned the stream away for now.';
  }
}

export async function runTail(o: TailOptions): Promise<void> {
  const doFetch = o.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const wait = o.wait ?? sleep;
  let lastEventId = '';
  let retryMs = o.retryMs ?? 3000;
  while (!o.signal.aborted) {
    o.onStatus({ state: 'connecting' });
    let message: string | null = null;
    try {
      const headers = { ...o.headers, accept: 'text/event-stream', ...(lastEventId === '' ? {} : { 'last-event-id': lastEventId }) };
      const res = await doFetch(o.url, { headers, signal: o.signal, credentials: 'same-origin', cache: 'no-store' });
      if (!res.ok || !res.body) {
        const body: unknown = await res.json().catch(() => null);
        const problem = problemFrom(res.status, body);
        if (!transient(res.status)) return o.onStatus({ state: 'stopped', problem });
        message = problem.errors.map((e) => e.message).join(' ');
        // Over the rate limit or the stream caps, the server says how long to wait.
        const retryAfter = Number(res.headers.get('retry-after') ?? '');
        if (Number.isInteger(retryAfter) && retryAfter > 0) {
          o.onStatus({ state: 'waiting', ms: retryAfter * 1000, message });
          await wait(retryAfter * 1000, o.signal);
          continue;
        }
      } else {
        o.onStatus({ state: 'live' });
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let sse = initialSse(lastEventId);
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const r = parseSse(sse, decoder.decode(value, { stream: true }));
          sse = r.state;
          for (const m of r.messages) {
            if (m.event === AUDIT_EVENT) o.onEvent(m.data, m.lastEventId);
            else if (m.event === STREAM_ERROR) message = refusalMessage(m.data);
          }
          // Remember the place after every chunk: a connection cut mid-stream resumes from here.
          lastEventId = sse.lastEventId;
          if (sse.retryMs !== null) retryMs = sse.retryMs;
        }
      }
    } catch {
      // The connection broke (or the signal aborted it): reconnect, unless stopped.
    }
    if (o.signal.aborted) return;
    o.onStatus({ state: 'waiting', ms: retryMs, message });
    await wait(retryMs, o.signal);
  }
}
