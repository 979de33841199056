import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';

const nul = (field: string, what: string) =>
  new AppError('VALIDATION_FAILED', `${what} contains a NUL character (byte 0, %00 in a URL), which cannot be stored; remove it.`, { field });

/**
 * onRequest: a NUL in the path, the query string or a header is refused before any handler,
 * whatever the route and with or without a key, since PostgreSQL's text type refuses it (a
 * lookup of /pricing/%00 answered 500). In a URL only %00 decodes to NUL, so other URLs cost one
 * search. Node's HTTP parser already refuses NUL in a header; the check here holds for any
 * transport (and for app.inject). Bodies are checked by the JSON parser (lib/json-limits.ts).
 */
export async function refuseNul(request: FastifyRequest): Promise<void> {
  for (const name in request.headers) {
    const value = request.headers[name];
    if (typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some((v) => v.includes('\0'))) {
      throw nul(`headers.${name}`, `The ${name} header`);
    }
  }
  const url = request.raw.url ?? request.url;
  if (!url.includes('%00') && !url.includes('\0')) return;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path.includes('%00') || path.includes('\0')) throw nul('path', 'The path');
  for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
    if (name.includes('\0')) throw nul('query', 'A query parameter name');
    if (value.includes('\0')) throw nul(`query.${name.slice(0, 40)}`, `query.${name.slice(0, 40)}`);
  }
}
