import { isIPv4 } from 'node:net';

/**
 * An endpoint URL's form, before any address is looked at. Pure.
 *
 * `https:`, or `http:` when OUTBOUND_WEBHOOK_ALLOW_HTTP (the default outside production); no
 * user name or password (they would be sent in the clear to whoever the host is, and hide the
 * host from a reader: `https://bank.example@evil.test`); no fragment; at most 2,048 characters.
 * The WHATWG parser canonicalises the host: `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` all
 * become `127.0.0.1`, `[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`, so the SSRF rules see one
 * form of every literal.
 */
export const MAX_URL_LENGTH = 2_048;

export type EndpointHost = { kind: 'ip'; address: string } | { kind: 'name'; name: string };

/** `scheme`: an http URL where only https is allowed (a policy, 422); `form`: a malformed URL (400). */
export type CheckedUrl = { ok: true; url: string; host: EndpointHost } | { ok: false; reason: 'form' | 'scheme'; message: string };

const form = (message: string): CheckedUrl => ({ ok: false, reason: 'form', message });

export function checkEndpointUrl(raw: string, opts: { allowHttp: boolean }): CheckedUrl {
  if (raw.length > MAX_URL_LENGTH) return form(`must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return form('must be an absolute URL, such as https://hooks.example.com/tollgate.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return form(`must use https (got ${url.protocol.slice(0, 20)}).`);
  if (url.protocol === 'http:' && !opts.allowHttp)
    return { ok: false, reason: 'scheme', message: 'must use https: http endpoints are refused here (OUTBOUND_WEBHOOK_ALLOW_HTTP is off).' };
  if (url.username !== '' || url.password !== '') return form('must not carry a user name or password.');
  if (raw.includes('#')) return form('must not carry a fragment (#…): it is never sent.');
  if (url.hostname === '') return form('must name a host.');
  return { ok: true, url: url.href, host: hostOf(url) };
}

/** The host as the SSRF check needs it: an address literal, or a name to resolve. */
export function hostOf(url: URL): EndpointHost {
  const h = url.hostname;
  if (h.startsWith('[')) return { kind: 'ip', address: h.slice(1, -1) };
  if (isIPv4(h)) return { kind: 'ip', address: h };
  return { kind: 'name', name: h.endsWith('.') ? h.slice(0, -1) : h };
}
