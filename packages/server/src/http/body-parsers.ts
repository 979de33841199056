import secureJson from 'secure-json-parse';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors.js';

/**
 * JSON: an empty body reads as "no body" (POST …/rotate takes none, and some clients still send
 * Content-Type: application/json), prototype-poisoning keys are refused, and a syntax error says
 * where it is. Form bodies serve the OAuth token endpoint (RFC 6749 requires them).
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    // Kept for fingerprints: an ingestion retry is "the same body" byte for byte.
    (_req as { rawBody?: string }).rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (err) {
      done(new AppError('INVALID_JSON', `The body is not valid JSON: ${(err as Error).message}.`), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const out: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(body as string)) out[k] = v;
    done(null, out);
  });
}
