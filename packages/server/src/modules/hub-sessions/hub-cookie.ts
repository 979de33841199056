import { createHmac } from 'node:crypto';
import { safeEqual, sha256Hex } from '../../lib/crypto.js';

/**
 * The hub's cookie. `__Host-` makes the browser refuse it unless it is Secure, has Path=/ and no
 * Domain: no subdomain can set or read it. HttpOnly keeps it from the page's scripts; SameSite=Strict
 * keeps it off every request another site starts (the CSRF token is the second lock).
 */
export const HUB_COOKIE = '__Host-tollgate_hub';

/**
 * Pure: the cookies of a `Cookie` header, by name, the first of a name winning (RFC 6265: the
 * browser sends the most specific first). Values are taken as sent, quotes removed; a pair
 * without `=` or with an empty name is skipped.
 */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name !== '' && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** The Set-Cookie value that holds a session secret for `maxAgeSeconds` (0 clears it). */
export function hubCookie(secret: string, maxAgeSeconds: number): string {
  return `${HUB_COOKIE}=${secret}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`;
}

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
