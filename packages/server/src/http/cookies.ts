/**
 * Session cookies for the browser surfaces (the console, the developer hub). Pure.
 *
 * Every session cookie is `__Host-` prefixed, HttpOnly, Secure and SameSite=Strict: the prefix
 * makes browsers refuse it unless it is Secure, host-only and Path=/, so no sibling subdomain
 * can plant or read it; HttpOnly keeps it from page scripts; Strict keeps it off every request
 * another site starts. Browsers treat http://localhost and 127.0.0.1 as secure, so the
 * development server works over plain HTTP.
 */

const COOKIE_PAIR = /^\s*([^=;\s]+)\s*=\s*"?([^";]*?)"?\s*$/;

/** The cookies of a Cookie header by name; the first of a repeated name wins, as browsers send the most specific first. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header || header.length > 8192) return out;
  for (const part of header.split(';')) {
    const m = COOKIE_PAIR.exec(part);
    if (m && !out.has(m[1] as string)) out.set(m[1] as string, m[2] as string);
  }
  return out;
}

export function sessionCookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=Strict`;
}

/** Tells the browser to drop the cookie (sign-out, an ended session). */
export function clearedCookie(name: string): string {
  return `${name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
