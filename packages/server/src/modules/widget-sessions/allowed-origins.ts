import { AppError } from '../../lib/errors.js';

/**
 * Pure: the allowed origins of a new session, checked and without repeats. Each must be exactly
 * an origin as browsers send it in the Origin header (lower-case scheme and host, no default
 * port, no path or trailing slash), since authentication compares them as strings.
 */
export function checkAllowedOrigins(origins: readonly string[]): string[] {
  const out: string[] = [];
  origins.forEach((o, i) => {
    const field = `body.allowedOrigins.${i}`;
    const url = URL.canParse(o) ? new URL(o) : null;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw new AppError('VALIDATION_FAILED', `${field} ('${o}') must be a web origin such as https://shop.example.com.`, { field });
    }
    if (url.origin !== o) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${field} ('${o}') must be an origin as browsers send it (scheme, host and port only, no path or trailing slash): '${url.origin}'.`,
        { field },
      );
    }
    if (!out.includes(o)) out.push(o);
  });
  return out;
}

/**
 * Pure: may a request from `origin` use a session listing `allowed`? An empty list allows any
 * origin; a list refuses a request with no Origin header (fail closed: browsers always send
 * one on these cross-origin calls).
 */
export function originRefusal(allowed: readonly string[], origin: string | undefined): AppError | null {
  if (allowed.length === 0) return null;
  if (origin !== undefined && allowed.includes(origin)) return null;
  const seen = origin === undefined ? 'a request with no Origin header' : `origin '${origin.slice(0, 200)}'`;
  return new AppError(
    'ORIGIN_NOT_ALLOWED',
    `This widget session may not be used from ${seen}; it allows ${allowed.join(', ')}. Mint the session with the page's origin in allowedOrigins.`,
    { field: 'headers.origin' },
  );
}
