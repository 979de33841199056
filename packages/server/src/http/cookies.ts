/**
 * Session cookies for the browser surfaces (the console, the developer hub). Pure.
 *
 * Every session cookie is `__Host-` prefixed, HttpOnly, Secure and SameSite=Strict: the prefix
 * makes browsers refuse it unless it is Secure, host-only and Path=/, so no sibling subdomain
 * can plant or read it; HttpOnly keeps it from page scripts; Strict keeps it off every request
 * another site starts. Browsers treat http://localhost and 127.0.0.1 as secure, so the
 * development server works over plain HTTP.
 */

/**
 * The cookies of a Cookie header by name. The first of a name wins (RFC 6265: the browser sends
 * the most specific first); values are taken as sent, surrounding quotes removed; a pair without
 * `=` or with an empty name is skipped; a header beyond 8 KiB is not read at all.
 */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header || header.length > 8192) return out;
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

export function sessionCookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=Strict`;
}

/** Tells the browser to drop the cookie (sign-out, an ended session). */
export function clearedCookie(name: string): string {
  return `${name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
