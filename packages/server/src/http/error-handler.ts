import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, envelope, errorStatus, type ErrorCode, type ErrorDetail } from '../lib/errors.js';
import { describeValidationErrors } from './validation.js';
import { databaseFailureError } from '../db/errors.js';

// Fastify's own errors (body parsing, limits) mapped to our codes, so none of them becomes a 500.
const fastifyCodes: Record<string, { code: ErrorCode; message: (e: FastifyError, request: FastifyRequest) => string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: (_e, request) => {
      const limit = request.routeOptions.bodyLimit;
      // The ingestion routes have a limit of their own; every other route the server's.
      const setting = request.routeOptions.url?.startsWith('/v1/ingest') ? 'INGEST_BODY_LIMIT_BYTES' : 'BODY_LIMIT_BYTES';
      return `The request body is larger than this endpoint accepts: at most ${limit.toLocaleString('en-US')} bytes (${setting}). Split it into smaller requests.`;
    },
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: (e) => `${e.message}. Send a Content-Type this endpoint takes (application/json for most; see /docs).`,
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_REQUEST', message: () => 'Content-Length does not match the body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_JSON', message: () => 'The body is empty; send a JSON object.' },
};

let lastDatabaseWarning = 0;

export function sendError(reply: FastifyReply, status: number, details: ErrorDetail[], headers: Record<string, string> = {}) {
  reply.headers(headers);
  return reply.code(status).type('application/json; charset=utf-8').send(envelope(details));
}

export function errorHandler(error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) return sendError(reply, error.status, error.details, error.headers);
  const fe = error as FastifyError;
  if (fe.validation) {
    return sendError(reply, 400, describeValidationErrors(fe.validationContext ?? 'body', fe.validation));
  }
  const mapped = fe.code ? fastifyCodes[fe.code] : undefined;
  if (mapped) {
    const e = new AppError(mapped.code, mapped.message(fe, request));
    return sendError(reply, e.status, e.details);
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'ROUTE_NOT_FOUND' : status === 405 ? 'METHOD_NOT_ALLOWED' : 'INVALID_REQUEST';
    return sendError(reply, status, [{ code, message: fe.message }]);
  }
  // A database that is down, unreachable or locked is a 503 the client may retry, not a bug.
  const unavailable = databaseFailureError(error);
  if (unavailable) {
    // During an outage every request fails alike: one line a second says so without flooding the log.
    if (Date.now() - lastDatabaseWarning >= 1_000) {
      lastDatabaseWarning = Date.now();
      request.log.warn({ err: error, code: unavailable.code }, 'database unavailable: answering 503');
    }
    return sendError(reply, unavailable.status, unavailable.details, unavailable.headers);
  }
  // 5xx: log the cause, tell the client only how to refer to it.
  request.log.error({ err: error }, 'unhandled error');
  return sendError(reply, 500, [{ code: 'INTERNAL_ERROR', message: `An internal error occurred. Quote request id ${request.id} when reporting it.` }]);
}

/** Fastify's answers before routing, which would otherwise bypass the envelope and the handler. */
const beforeRouting: Record<string, ErrorDetail> = {
  FST_ERR_BAD_URL: {
    code: 'VALIDATION_FAILED',
    field: 'path',
    message: 'The path has an invalid percent-encoding (such as %ZZ, or bytes that are not UTF-8); percent-encode each path segment as UTF-8.',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'VALIDATION_FAILED',
    field: 'path',
    message: 'A path parameter is longer than 100 characters; no id is that long.',
  },
};

/**
 * Fastify's frameworkErrors: the same envelope and X-Request-Id as every other answer. Fastify
 * ignores what it returns, so it returns nothing rather than the (thenable) reply.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  const detail = beforeRouting[error.code];
  if (detail) sendError(reply, errorStatus[detail.code], [detail]);
  else errorHandler(error, request, reply);
}

const clientErrors: Record<string, ErrorDetail> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time; send it again.' },
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than this server accepts (16 KB).' },
};

/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers too large,
 * too slow) never reach Fastify: the answer is written to the socket here, in the envelope.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const detail = clientErrors[err.code ?? ''] ?? {
    code: 'INVALID_REQUEST',
    message: 'The request is not valid HTTP/1.1 (a malformed request line or header).',
  };
  const status = errorStatus[detail.code];
  const body = JSON.stringify(envelope([detail]));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
