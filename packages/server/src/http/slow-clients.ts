import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from '../lib/errors.js';

/**
 * Slow clients must not hold a server's resources. Node's headersTimeout bounds the headers
 * (set where the server is made); these bound the body:
 * - an ordinary request must have sent its whole body within HTTP_BODY_TIMEOUT_MS of its
 *   headers;
 * - an upload, which streams for as long as the file takes, must keep sending: less than
 *   UPLOAD_MIN_BYTES in any UPLOAD_IDLE_TIMEOUT_MS ends it.
 * Either way the client gets 408 and the connection is closed. The answer is written on the
 * socket directly, as Node does for its own request timeout: Fastify is still reading the body
 * and has not reached the handler.
 */
export const UPLOAD_MIN_BYTES = 1_024;

const timers = new WeakMap<IncomingMessage, NodeJS.Timeout>();

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined;
}

/**
 * Ends a request whose client is too slow: 408 in the error envelope, then the connection closes.
 * Once an answer has begun (an upload's progress lines), the connection is only closed.
 */
export function endSlowRequest(raw: IncomingMessage, res: ServerResponse, message: string): void {
  const socket = raw.socket;
  if (socket.destroyed) return;
  if (res.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(envelope([{ code: 'REQUEST_TIMEOUT', message }]));
  socket.end(
    `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/** onRequest: starts the body deadline of a request that has a body. */
export function startBodyDeadline(timeoutMs: number) {
  return function bodyDeadline(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const raw = request.raw;
    if (request.routeOptions.config?.streamsBody || !hasBody(raw)) return done();
    const timer = setTimeout(() => {
      if (!raw.complete)
        endSlowRequest(raw, reply.raw, `The request body did not arrive within ${timeoutMs / 1000} s (HTTP_BODY_TIMEOUT_MS); send it at once.`);
    }, timeoutMs);
    timer.unref();
    timers.set(raw, timer);
    done();
  };
}

/** preValidation (the body is read) and onResponse (answered, maybe without reading it): the deadline no longer applies. */
export function clearBodyDeadline(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const timer = timers.get(request.raw);
  if (timer) {
    clearTimeout(timer);
    timers.delete(request.raw);
  }
  done();
}

/**
 * For a streamed upload: every windowMs, checks that at least UPLOAD_MIN_BYTES arrived since the
 * last check, until the body has ended. Reads the socket's byte count, so it adds no listener to
 * the body stream itself (which would change how it flows). Returns a stop function.
 */
export function watchUploadProgress(raw: IncomingMessage, res: ServerResponse, windowMs: number): () => void {
  const socket = raw.socket;
  let last = socket.bytesRead;
  const timer = setInterval(() => {
    if (raw.complete) return stop();
    const now = socket.bytesRead;
    if (now - last < UPLOAD_MIN_BYTES) {
      stop();
      endSlowRequest(
        raw,
        res,
        `The upload sent less than ${UPLOAD_MIN_BYTES} bytes in ${windowMs / 1000} s (UPLOAD_IDLE_TIMEOUT_MS); it was ended. Lines of the chunks already committed stay stored; send the rest again (eventIds make that safe).`,
      );
    }
    last = now;
  }, windowMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  raw.once('end', stop);
  raw.once('close', stop);
  return stop;
}
