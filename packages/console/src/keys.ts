/**
 * How the Keys screen words a key's state and which changes it offers, from what each kind's API
 * supports (API keys rotate, roll and revoke; client credentials and storefront keys only revoke).
 * Pure, so the rules sit in one table test.
 */
import { formatTimeOfDay } from './time.js';

export type KeyStatus = 'ACTIVE' | 'ROTATED' | 'EXPIRED' | 'REVOKED';
export type KeyAction = 'rotate' | 'roll' | 'revoke';

/** What the list says of a key: a rotated key says until when it still works. */
export function keyStatusText(key: { status: KeyStatus; expiresAt?: string | null }): string {
  if (key.status === 'ACTIVE') return 'Active';
  if (key.status === 'REVOKED') return 'Revoked';
  if (key.status === 'EXPIRED') return 'Expired (rotated)';
  return key.expiresAt ? `Rotated: works until ${formatTimeOfDay(key.expiresAt)}` : 'Rotated: works for 5 minutes of its test clock';
}

/**
 * The changes an API key offers: only an active key can be rotated or rolled (once); a rotated one
 * still in its grace can be revoked at once; an expired or revoked one, nothing.
 */
export function apiKeyActions(status: KeyStatus): KeyAction[] {
  if (status === 'ACTIVE') return ['rotate', 'roll', 'revoke'];
  if (status === 'ROTATED') return ['revoke'];
  return [];
}

/** Client credentials and storefront keys: revoke, while active. */
export const revokeOnly = (status: KeyStatus): KeyAction[] => (status === 'ACTIVE' ? ['revoke'] : []);

/**
 * What a rotation's answer means for the old key. A key on a test clock keeps its grace in the
 * clock's time, so the answer has no real-time expiry for it.
 */
export function graceText(previousKeyExpiresAt: string | null): string {
  if (previousKeyExpiresAt === null) return 'The old key keeps working for 5 minutes of its test clock’s time, then stops.';
  return `The old key works until ${formatTimeOfDay(previousKeyExpiresAt)}, then stops. Replace it everywhere before then.`;
}
