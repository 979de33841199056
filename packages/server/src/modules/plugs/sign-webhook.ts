// Signs a webhook the way each provider does, for our tests, the benchmark and documentation
// examples. Written independently of signature.ts (it shares no helper with the verifier), so that
// a misreading of a provider's algorithm in one is caught by the round trip rather than mirrored.
import { createHash, createHmac, createPrivateKey, sign as signDigital } from 'node:crypto';
import type { SignatureScheme } from '../../lib/webhook-signature.js';

export interface SignOptions {
  nowMs: number;
  url?: string;
  contentType?: string;
}

export interface SignedHeaders {
  headers: Record<string, string>;
  url: string;
}

/**
 * Returns the headers (lower-case names) a genuine sender of this scheme would add for this body.
 * For 'sendgrid' the secret is the PEM PRIVATE key (P-256). For twilio with a JSON body, returns
 * { headers, url } where url has bodySHA256 appended.
 */
export function signWebhook(scheme: SignatureScheme, secret: string, body: Buffer | string, opts: SignOptions): SignedHeaders {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const seconds = String(Math.floor(opts.nowMs / 1000));
  const url = opts.url ?? '';
  switch (scheme.kind) {
    case 'stripe':
      return { headers: { 'stripe-signature': `t=${seconds},v1=${hmacOf('sha256', secret, 'hex', `${seconds}.`, bytes)}` }, url };
    case 'hub_sha256':
      return { headers: { 'x-hub-signature-256': `sha256=${hmacOf('sha256', secret, 'hex', bytes)}` }, url };
    case 'hub_sha1':
      return { headers: { 'x-hub-signature': `sha1=${hmacOf('sha1', secret, 'hex', bytes)}` }, url };
    case 'raw_sha256':
      return { headers: { 'x-signature-256': hmacOf('sha256', secret, 'hex', bytes) }, url };
    case 'slack':
      return {
        headers: { 'x-slack-signature': `v0=${hmacOf('sha256', secret, 'hex', `v0:${seconds}:`, bytes)}`, 'x-slack-request-timestamp': seconds },
        url,
      };
    case 'sendgrid':
      return { headers: signSendGrid(secret, seconds, bytes), url };
    case 'twilio':
      return signTwilio(secret, bytes, opts);
    case 'custom':
      return { headers: { [scheme.header.toLowerCase()]: scheme.prefix + hmacOf(scheme.algorithm, secret, scheme.encoding, bytes) }, url };
  }
}

function hmacOf(algorithm: 'sha256' | 'sha1', secret: string, encoding: 'hex' | 'base64', ...parts: Array<string | Buffer>): string {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest(encoding);
}

function signSendGrid(privateKeyPem: string, seconds: string, body: Buffer): Record<string, string> {
  const key = createPrivateKey({ key: privateKeyPem, format: 'pem' });
  const signature = signDigital('sha256', Buffer.concat([Buffer.from(seconds, 'utf8'), body]), { key, dsaEncoding: 'der' });
  return {
    'x-twilio-email-event-webhook-signature': signature.toString('base64'),
    'x-twilio-email-event-webhook-timestamp': seconds,
  };
}

/**
 * Form posts (Twilio's default, and ours when no content type is given) sign the URL plus the
 * sorted parameters; any other content type is covered by a bodySHA256 query parameter instead.
 */
function signTwilio(authToken: string, body: Buffer, opts: SignOptions): SignedHeaders {
  if (opts.url === undefined || opts.url === '') throw new Error('twilio signatures cover the URL: pass opts.url');
  const isForm = opts.contentType === undefined || /^\s*application\/x-www-form-urlencoded\s*(?:;|$)/i.test(opts.contentType);
  if (!isForm) {
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const url = `${opts.url}${opts.url.includes('?') ? '&' : '?'}bodySHA256=${bodyHash}`;
    return { headers: { 'x-twilio-signature': hmacOf('sha1', authToken, 'base64', url) }, url };
  }
  const byName = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    byName.set(name, (byName.get(name) ?? new Set()).add(value));
  }
  const names = [...byName.keys()].sort();
  const signed = names.reduce(
    (data, name) =>
      data +
      [...(byName.get(name) ?? [])]
        .sort()
        .map((value) => name + value)
        .join(''),
    opts.url,
  );
  return { headers: { 'x-twilio-signature': hmacOf('sha1', authToken, 'base64', signed) }, url: opts.url };
}
