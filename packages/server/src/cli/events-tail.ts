import { TollgateError } from '@tollgate/sdk';
import type { ApiTarget } from './api-client.js';

/** One Server-Sent Event as the stream sends it. */
interface SseEvent {
  id: string | null;
  event: string;
  data: string;
  retry: number | null;
}

/** Splits a text/event-stream body into events (the HTML standard's rules, minus what this stream never sends). */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let current: SseEvent = { id: null, event: 'message', data: '', retry: null };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (current.data !== '' || current.retry !== null) yield current;
        current = { id: null, event: 'message', data: '', retry: null };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') current.id = value;
      else if (field === 'event') current.event = value;
      else if (field === 'data') current.data = current.data === '' ? value : `${current.data}\n${value}`;
      else if (field === 'retry' && /^\d+$/.test(value)) current.retry = Number(value);
    }
  }
}

interface AuditLine {
  createdAt: string;
  eventType: string;
  actorType: string;
  actorId: string;
  targetType: string | null;
  targetId: string | null;
}

const line = (e: AuditLine) =>
  `${e.createdAt}  ${e.eventType.padEnd(34)} ${e.actorType.toLowerCase()}:${e.actorId}${e.targetId ? `  -> ${e.targetType ?? ''}:${e.targetId}` : ''}\n`;

/** A refusal (4xx) is final; the stream cannot be opened with this key or these settings. */
async function refusal(res: Response): Promise<TollgateError> {
  const text = await res.text();
  let errors = [{ code: `HTTP_${res.status}`, message: text.slice(0, 300) }];
  try {
    const parsed = JSON.parse(text) as { errors?: Array<{ code: string; message: string; field?: string }> };
    if (Array.isArray(parsed.errors) && parsed.errors.length > 0) errors = parsed.errors;
  } catch {
    // Not the envelope: the status and text are all there is.
  }
  return new TollgateError(`GET /api/v1/events/stream: ${res.status}`, res.status, errors, res.headers.get('x-request-id'));
}

/**
 * Prints the workspace's audit events as they commit until SIGINT or SIGTERM (then exits 0).
 * Like an EventSource: a closed or failed connection is opened again after the stream's retry
 * delay, with Last-Event-ID, so no event is missed or printed twice.
 */
export async function tailAuditEvents(target: ApiTarget, json: boolean): Promise<void> {
  const stop = new AbortController();
  const quit = () => stop.abort();
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
  const auth = { authorization: `Bearer ${target.key}` };
  try {
    // The stream wants the workspace's id (X-Tenant-Id): the key's own.
    const ws = await fetch(`${target.url}/api/v1/workspace`, { headers: { ...auth, accept: 'application/json' }, signal: stop.signal }).catch(
      (cause: unknown) => {
        if (stop.signal.aborted) return null;
        throw new TollgateError(`cannot connect`, 0, [{ code: 'NETWORK_ERROR', message: (cause as Error).message }], null);
      },
    );
    if (ws === null) return;
    if (!ws.ok) throw await refusal(ws);
    const workspace = ((await ws.json()) as { id: string }).id;
    let lastId: string | null = null;
    let retryMs = 3_000;
    let announced = false;
    while (!stop.signal.aborted) {
      // Until the server says otherwise: the stream's retry: field, or a refusal's Retry-After.
      let waitMs = retryMs;
      try {
        const res = await fetch(`${target.url}/api/v1/events/stream`, {
          headers: { ...auth, 'x-tenant-id': workspace, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: stop.signal,
        });
        // Over the rate limit or the stream caps (429), or a node unable to serve now (503): not for good.
        const retryAfter = Number(res.headers.get('retry-after') ?? '');
        if ((res.status === 429 || res.status === 503) && Number.isInteger(retryAfter) && retryAfter >= 0) {
          waitMs = retryAfter * 1000;
          const reason = await refusal(res);
          throw new Error(`${reason.errors[0]?.message ?? `the stream answered ${res.status}`}`);
        }
        if (res.status >= 400 && res.status < 500) throw await refusal(res);
        if (!res.ok || !res.body) throw new Error(`the stream answered ${res.status}`);
        if (!announced) process.stderr.write(`Listening for audit events of ${workspace} on ${target.url} (Ctrl-C to stop)…\n`);
        announced = true;
        for await (const e of readEvents(res.body)) {
          if (e.retry !== null) waitMs = retryMs = e.retry;
          if (e.event === 'stream_error') {
            process.stderr.write(`the stream was closed by the server: ${e.data}\n`);
            continue;
          }
          if (e.data === '') continue;
          if (e.id) lastId = e.id;
          if (json) process.stdout.write(`${e.data}\n`);
          else process.stdout.write(line(JSON.parse(e.data) as AuditLine));
        }
      } catch (err) {
        if (stop.signal.aborted) break;
        if (err instanceof TollgateError) throw err;
        process.stderr.write(`stream interrupted (${(err as Error).message}); reconnecting in ${waitMs / 1000} s…\n`);
      }
      if (stop.signal.aborted) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitMs);
        stop.signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  } finally {
    process.off('SIGINT', quit);
    process.off('SIGTERM', quit);
  }
}
