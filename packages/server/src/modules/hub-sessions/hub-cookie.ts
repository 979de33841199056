import { createHmac } from 'node:crypto';
import { safeEqual, sha256Hex } from '../../lib/crypto.js';
import { sessionCookie } from '../../http/cookies.js';

export { parseCookies } from '../../http/cookies.js';

/**
 * The hub's cookie. `__Host-` makes the browser refuse it unless it is Secure, has Path=/ and no
 * Domain: no subdomain can set or read it. HttpOnly keeps it from the page's scripts; SameSite=Strict
 * keeps it off every request another site starts (the CSRF token is the second lock).
 */
export const HUB_COOKIE = '__Host-tollgate_hub';

/** The Set-Cookie value that holds a session secret for `maxAgeSeconds` (0 clears it). */
export const hubCookie = (secret: string, maxAgeSeconds: number): string => sessionCookie(HUB_COOKIE, secret, maxAgeSeconds);

/**
 * The CSRF token of a session, derived from its cookie secret (HMAC-SHA256 keyed by the secret):
 * the same for the session's whole life, so every tab and every reload of the hub reads the same
 * one, yet never stored (the row keeps its SHA-256) and no key of the server's is involved. It
 * reveals nothing of the secret, and nobody without the cookie can compute it.
 */
export function csrfTokenOf(secret: string): string {
  return createHmac('sha256', secret).update('tollgate hub csrf v1').digest('hex');
}

/** Pure: does the presented X-CSRF-Token match the session's stored hash? Constant time. */
export function csrfMatches(presented: string | string[] | undefined, csrfHash: string): boolean {
  return typeof presented === 'string' && presented !== '' && safeEqual(sha256Hex(presented), csrfHash);
}
