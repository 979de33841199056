/**
 * Server-Sent Events, parsed by hand: EventSource cannot send X-Tollgate-Environment or
 * X-Tenant-Id, so the live tail reads the stream with fetch and feeds the text here. Pure and
 * incremental (the WHATWG "event stream interpretation"): chunks may split a line, or a CRLF,
 * anywhere; the state carries the unfinished line and message between calls.
 */
export interface SseMessage {
  /** `message` when the stream names none. */
  event: string;
  data: string;
  /** The last id the stream set, at this message (what Last-Event-ID resumes from). */
  lastEventId: string;
}

export interface SseState {
  /** Text after the last line break. */
  partial: string;
  /** The previous chunk ended with CR: an LF that starts the next chunk belongs to it. */
  afterCr: boolean;
  event: string;
  data: string[] | null;
  lastEventId: string;
  /** The reconnection delay the stream asked for, in ms, or null. */
  retryMs: number | null;
}

export const initialSse = (lastEventId = ''): SseState => ({ partial: '', afterCr: false, event: '', data: null, lastEventId, retryMs: null });

/** One field line into the state; a message when the line is blank and data was given. */
function line(s: SseState, text: string, out: SseMessage[]): void {
  if (text === '') {
    // A blank line dispatches; a message without data is dropped, its event name too.
    if (s.data !== null) out.push({ event: s.event || 'message', data: s.data.join('\n'), lastEventId: s.lastEventId });
    s.data = null;
    s.event = '';
    return;
  }
  if (text.startsWith(':')) return; // a comment (the server's keep-alive)
  const colon = text.indexOf(':');
  const field = colon === -1 ? text : text.slice(0, colon);
  let value = colon === -1 ? '' : text.slice(colon + 1);
  if (value.startsWith(' ')) value = value.slice(1);
  if (field === 'data') (s.data ??= []).push(value);
  else if (field === 'event') s.event = value;
  else if (field === 'id' && !value.includes('\0')) s.lastEventId = value;
  else if (field === 'retry' && /^\d+$/.test(value)) s.retryMs = Number(value);
}

/** Feeds a chunk of decoded text; returns the new state and the messages it completed. */
export function parseSse(state: SseState, chunk: string): { state: SseState; messages: SseMessage[] } {
  const s: SseState = { ...state, data: state.data && [...state.data] };
  const out: SseMessage[] = [];
  let text = chunk;
  if (s.afterCr && text.startsWith('\n')) text = text.slice(1);
  s.afterCr = false;
  let buf = s.partial + text;
  for (;;) {
    const m = /\r\n|\r|\n/.exec(buf);
    if (!m) break;
    // A CR at the very end may be the first half of a CRLF split across chunks.
    if (m[0] === '\r' && m.index === buf.length - 1) s.afterCr = true;
    line(s, buf.slice(0, m.index), out);
    buf = buf.slice(m.index + m[0].length);
  }
  s.partial = buf;
  return { state: s, messages: out };
}
