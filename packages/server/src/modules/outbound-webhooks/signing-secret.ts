import { randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing secrets: `whsec_` and the base64 of the key bytes. New ones carry 32
 * random bytes; a secret the operator brings may carry 24 to 64 (the spec asks for 24 at least,
 * Svix uses 24 or 32).
 */
export const SECRET_PREFIX = 'whsec_';
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key bytes of a secret, or null when it is not `whsec_` + base64 of 24-64 bytes. */
export function signingKeyOf(secret: string): Buffer | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return null;
  const bytes = Buffer.from(encoded, 'base64');
  return bytes.length >= MIN_SECRET_BYTES && bytes.length <= MAX_SECRET_BYTES ? bytes : null;
}

/** What the API shows of a secret, to tell two apart: `whsec_…k3Xa`. */
export function signingSecretHint(secret: string): string {
  return `${SECRET_PREFIX}…${secret.slice(-4)}`;
}
