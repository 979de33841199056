import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';

const nul = (field: string, what: string) =>
  new AppError('VALIDATION_FAILED', `${what} contains a NUL character (%00), which cannot be stored; remove it.`, { field });

/**
 * onRequest: a NUL in the path or the query string is refused before any handler, whatever the
 * route and with or without a key, since PostgreSQL's text type refuses it (a lookup of
 * /pricing/%00 answered 500). In a URL only %00 decodes to NUL, so other URLs cost one search.
 * Bodies are checked by the JSON parser (lib/json-limits.ts).
 */
export async function refuseNulInUrl(request: FastifyRequest): Promise<void> {
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
