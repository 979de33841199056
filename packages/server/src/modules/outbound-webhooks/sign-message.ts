import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body` with the secret's key bytes. During a rotation grace the
 * header carries one signature per key, space-separated, the newest first; a receiver accepts
 * the message when any of them verifies. Pure.
 */
export function signMessage(id: string, timestampSeconds: number, body: string, key: Buffer): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}

/** The `webhook-signature` header for these keys (current first, then the previous one while its grace lasts). */
export function signatureHeader(id: string, timestampSeconds: number, body: string, keys: readonly Buffer[]): string {
  return keys.map((key) => signMessage(id, timestampSeconds, body, key)).join(' ');
}

/** The three Standard Webhooks headers of one attempt; the id is the message's, the same on every retry. */
export function webhookHeaders(id: string, timestampSeconds: number, body: string, keys: readonly Buffer[]): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(id, timestampSeconds, body, keys),
  };
}
