import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';

const nul = (field: string, what: string) =>
  new AppError('VALIDATION_FAILED', `${what} contains a NUL character (byte 0, %00 in a URL), which cannot be stored; remove it.`, { field });

/** A query value that is not percent-encoded UTF-8 (%FF, %ZZ) reaches a handler as literal text. */
const badEncoding = (field: string) =>
  new AppError('VALIDATION_FAILED', `${field} has an invalid percent-encoding (such as %ZZ, or bytes that are not UTF-8); percent-encode it as UTF-8.`, {
    field,
  });

/**
 * onRequest, before any handler, whatever the route and with or without a key:
 * - a NUL in the path, the query string or a header is refused, since PostgreSQL's text type
 *   refuses it (a lookup of /pricing/%00 answered 500). Node's HTTP parser already refuses NUL
 *   in a header; the check holds for any transport (and for app.inject);
 * - a query value with an invalid percent-encoding is refused (a path with one already is, by
 *   the router), rather than read as the literal text "%FF".
 * Only URLs with a % need more than one search. Bodies are checked by the JSON parser
 * (lib/json-limits.ts). Synchronous, callback-style (no promise per request): Fastify's hook
 * runner turns a throw into the error answer.
 */
export function checkUrlAndHeaders(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  assertUrlAndHeaders(request);
  done();
}

function assertUrlAndHeaders(request: FastifyRequest): void {
  for (const name in request.headers) {
    const value = request.headers[name];
    if (typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some((v) => v.includes('\0'))) {
      throw nul(`headers.${name}`, `The ${name} header`);
    }
  }
  const url = request.raw.url ?? request.url;
  if (!url.includes('%') && !url.includes('\0')) return;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path.includes('%00') || path.includes('\0')) throw nul('path', 'The path');
  if (q < 0) return;
  for (const part of url.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const name = decodeQueryText(rawName);
    if (name === null) throw badEncoding('query');
    if (name.includes('\0')) throw nul('query', 'A query parameter name');
    const field = `query.${name.slice(0, 40)}`;
    const value = eq < 0 ? '' : decodeQueryText(part.slice(eq + 1));
    if (value === null) throw badEncoding(field);
    if (value.includes('\0')) throw nul(field, field);
  }
}

function decodeQueryText(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}
