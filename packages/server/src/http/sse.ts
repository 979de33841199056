import type { ServerResponse } from 'node:http';

export interface SseOptions {
  /** Sent first as the `retry:` field: how long a client waits before reconnecting. */
  retryMs: number;
  /** A comment line this often keeps proxies from closing an idle connection. */
  heartbeatMs: number;
  /** Bytes the client may leave unread; past this the stream ends (the client resumes from its last id). */
  maxBufferedBytes: number;
  /** Response headers besides the SSE ones (the request id, say). */
  headers?: Record<string, string | number | string[]>;
}

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
  retryMs?: number;
}

/** One message as SSE fields, ending with the blank line. */
export function sseFrame(message: SseMessage): string {
  let frame = '';
  if (message.retryMs !== undefined) frame += `retry: ${message.retryMs}\n`;
  if (message.id !== undefined) frame += `id: ${message.id}\n`;
  if (message.event !== undefined) frame += `event: ${message.event}\n`;
  // A data value may not hold a line break; JSON.stringify output never does, but each line
  // would need its own field.
  for (const line of message.data.split('\n')) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

export type SseEndReason = 'client_closed' | 'buffer_limit' | 'server_closing' | 'refused' | 'failed';

/**
 * One Server-Sent Events response: the framing (id, event, data, retry, comments), the
 * keep-alive comment, and the bound on what a slow reader may leave buffered. The route hijacks
 * the reply and hands over the raw response.
 */
export class SseStream {
  private heartbeat: NodeJS.Timeout | null = null;
  private ended = false;
  private readonly endListeners: Array<(reason: SseEndReason) => void> = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly opts: SseOptions,
  ) {
    res.on('close', () => this.finish('client_closed'));
  }

  /** Sends the headers and the retry field, and starts the keep-alive comments. */
  open(): void {
    this.res.writeHead(200, {
      ...this.opts.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx buffers responses unless told not to; a live tail must not be.
      'x-accel-buffering': 'no',
    });
    this.res.write(`retry: ${this.opts.retryMs}\n\n`);
    this.heartbeat = setInterval(() => this.comment('keep-alive'), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /**
   * Writes one message. False when the stream has ended, or ends now because the client left
   * more than the limit unread: holding more for it would let one slow reader take the memory.
   */
  send(message: SseMessage): boolean {
    return this.sendFrame(sseFrame(message));
  }

  /**
   * Writes a message framed by sseFrame: a live event goes to every subscriber as the same
   * bytes, framed and encoded once.
   */
  sendFrame(frame: string | Buffer): boolean {
    if (this.ended) return false;
    this.res.write(frame);
    if (this.res.writableLength > this.opts.maxBufferedBytes) {
      this.end('buffer_limit');
      return false;
    }
    return true;
  }

  /**
   * Holds writes in the socket's buffer until release(), so that several messages leave in one
   * write (one system call) instead of one each. The buffer limit still counts what is held.
   */
  hold(): void {
    if (!this.ended) this.res.cork();
  }

  release(): void {
    if (!this.ended) this.res.uncork();
  }

  comment(text: string): void {
    if (!this.ended) this.res.write(`: ${text}\n\n`);
  }

  /** Resolves once the client has read what is buffered (or the stream ended). */
  drained(): Promise<void> {
    if (this.ended || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        resolve();
      };
      this.res.on('drain', done);
      this.onEnd(() => done());
    });
  }

  onEnd(fn: (reason: SseEndReason) => void): void {
    if (this.ended) fn('client_closed');
    else this.endListeners.push(fn);
  }

  /**
   * Ends the response. What was written is still delivered, except past the buffer limit: the
   * connection is cut there, since a reader that stopped reading would hold the buffer forever;
   * the client resumes from the last id it did read.
   */
  end(reason: SseEndReason): void {
    if (this.ended) return;
    this.finish(reason);
    if (reason === 'buffer_limit') this.res.destroy();
    else this.res.end();
  }

  private finish(reason: SseEndReason): void {
    if (this.ended) return;
    this.ended = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const fn of this.endListeners.splice(0)) fn(reason);
  }
}
