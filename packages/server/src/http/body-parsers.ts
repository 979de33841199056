import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors.js';
import { parseJsonBody } from '../lib/json-body.js';

/**
 * JSON: an empty body reads as "no body" (POST …/rotate takes none, and some clients still send
 * Content-Type: application/json), prototype-poisoning keys are refused, and a syntax error says
 * where it is; the body may nest at most MAX_JSON_DEPTH levels and hold no NUL character
 * (lib/json-limits.ts). Any other body (a form, as curl -d sends, or none declared) gets a 415
 * saying to send Content-Type: application/json, rather than a form read as nonsense fields.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    // Kept for fingerprints: an ingestion retry is "the same body" byte for byte.
    (_req as { rawBody?: string }).rawBody = text;
    let value: unknown;
    try {
      value = parseJsonBody(text);
    } catch (err) {
      return done(err as Error, undefined);
    }
    done(null, value);
  });
  app.addContentTypeParser('*', (req, _payload, done) => {
    // An empty body (curl -X POST -d '') is no body; an unknown route answers 404, not 415.
    const length = req.headers['content-length'];
    const empty = length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined);
    if (empty || (req as { is404?: boolean }).is404) return done(null, undefined);
    done(new AppError('UNSUPPORTED_MEDIA_TYPE', unsupportedMediaType(req.headers['content-type'], req.routeOptions.schema?.consumes)));
  });
}

function unsupportedMediaType(got: string | undefined, consumes: readonly string[] | undefined): string {
  const wanted = consumes && consumes.length > 0 ? consumes.join(' or ') : 'application/json';
  const head = `This endpoint takes ${consumes ? 'a body' : 'a JSON body'}: send it with Content-Type: ${wanted}`;
  if (!got) return `${head} (the request has no Content-Type).`;
  const type = got.split(';')[0]!.trim().slice(0, 100);
  if (type.toLowerCase() === 'application/x-www-form-urlencoded')
    return `${head}, not ${type} (curl -d sends that unless you add -H 'Content-Type: application/json').`;
  return `${head}, not ${type}.`;
}

/** Form bodies, for the one endpoint that takes them (RFC 6749's token endpoint), in its own scope. */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const out: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(body as string)) out[k] = v;
    done(null, out);
  });
}

/**
 * For a scope whose routes authenticate by a signature over the raw bytes (third-party webhooks):
 * no parser runs first, every body stays the Buffer that arrived.
 */
export function keepBodiesRaw(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}
