import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyActions, graceText, keyStatusText, revokeOnly, type KeyAction, type KeyStatus } from '../src/keys.js';
import { formatSeconds, formatTimeOfDay, stepAfter, type ClockStep } from '../src/time.js';

describe('the changes each kind of key offers', () => {
  const cases: Array<[KeyStatus, KeyAction[], KeyAction[]]> = [
    ['ACTIVE', ['rotate', 'roll', 'revoke'], ['revoke']],
    // In its grace a rotated key can still be cut off at once; it cannot be rotated twice.
    ['ROTATED', ['revoke'], []],
    ['EXPIRED', [], []],
    ['REVOKED', [], []],
  ];
  for (const [status, apiKey, others] of cases) {
    it(`${status}: an API key offers [${apiKey.join(', ')}], a client credential or storefront key [${others.join(', ')}]`, () => {
      assert.deepEqual(apiKeyActions(status), apiKey);
      assert.deepEqual(revokeOnly(status), others);
    });
  }
});

describe('keyStatusText and graceText: the old key’s grace in words', () => {
  const statuses: Array<[{ status: KeyStatus; expiresAt?: string | null }, string]> = [
    [{ status: 'ACTIVE' }, 'Active'],
    [{ status: 'ROTATED', expiresAt: '2026-01-15T12:05:00.000Z' }, 'Rotated: works until 12:05:00 UTC on 2026-01-15'],
    [{ status: 'ROTATED', expiresAt: null }, 'Rotated: works for 5 minutes of its test clock'],
    [{ status: 'EXPIRED', expiresAt: '2026-01-15T12:05:00.000Z' }, 'Expired (rotated)'],
    [{ status: 'REVOKED' }, 'Revoked'],
  ];
  for (const [key, want] of statuses) it(`${key.status} ${String(key.expiresAt)} -> ${want}`, () => assert.equal(keyStatusText(key), want));
  it('a rotation with a real-time expiry names the time', () =>
    assert.equal(graceText('2026-01-15T12:05:00.000Z'), 'The old key works until 12:05:00 UTC on 2026-01-15, then stops. Replace it everywhere before then.'));
  it('a rotation on a test clock has no real-time expiry', () => assert.match(graceText(null), /5 minutes of its test clock’s time/));
});

describe('formatTimeOfDay and formatSeconds', () => {
  const cases: Array<[string, string, string]> = [
    ['2026-01-15T12:05:00.000Z', '12:05:00 UTC on 2026-01-15', '2026-01-15 12:05:00 UTC'],
    ['2026-01-15T12:05:07Z', '12:05:07 UTC on 2026-01-15', '2026-01-15 12:05:07 UTC'],
    ['2026-01-15T12:05Z', '12:05:00 UTC on 2026-01-15', '2026-01-15 12:05:00 UTC'],
    // Not the API's form: shown as sent, never guessed at.
    ['2026-01-15T12:05:00+02:00', '2026-01-15T12:05:00+02:00', '2026-01-15T12:05:00+02:00'],
  ];
  for (const [iso, time, seconds] of cases) {
    it(`${iso} -> ${time} / ${seconds}`, () => {
      assert.equal(formatTimeOfDay(iso), time);
      assert.equal(formatSeconds(iso), seconds);
    });
  }
});

describe('stepAfter: where a test clock goes with one step', () => {
  const cases: Array<[string, ClockStep, string | null]> = [
    ['2026-01-15T12:00:00.000Z', 'hour', '2026-01-15T13:00:00.000Z'],
    ['2026-01-15T23:30:00.000Z', 'hour', '2026-01-16T00:30:00.000Z'],
    ['2026-01-15T12:00:00.000Z', 'day', '2026-01-16T12:00:00.000Z'],
    ['2026-12-31T12:00:00.000Z', 'day', '2027-01-01T12:00:00.000Z'],
    ['2026-01-15T12:00:00.000Z', 'month', '2026-02-15T12:00:00.000Z'],
    // A month stays within the next month, as a monthly renewal counts it.
    ['2026-01-31T08:00:00.000Z', 'month', '2026-02-28T08:00:00.000Z'],
    ['2028-01-31T08:00:00.000Z', 'month', '2028-02-29T08:00:00.000Z'],
    ['2026-03-31T00:00:00.000Z', 'month', '2026-04-30T00:00:00.000Z'],
    ['2026-12-15T00:00:00.000Z', 'month', '2027-01-15T00:00:00.000Z'],
    ['not a time', 'day', null],
  ];
  for (const [iso, step, want] of cases) it(`${iso} + 1 ${step} -> ${String(want)}`, () => assert.equal(stepAfter(iso, step), want));
});
