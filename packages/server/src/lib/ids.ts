import { randomFillSync } from 'node:crypto';
import type { Clock } from './clock.js';

/**
 * Prefixed, time-sortable ids (`cus_01jd…`): a 48-bit millisecond timestamp and 80 random bits,
 * in lowercase Crockford base32 (the ULID layout). Ids made by one process within one millisecond
 * increase monotonically, so ordering by id is ordering by creation, which cursor pagination uses.
 */
export const idPrefixes = {
  workspace: 'ws',
  customer: 'cus',
  product: 'prod',
  metric: 'mtr',
  subscription: 'sub',
  apiKey: 'key',
  clientCredential: 'cid',
  storefrontKey: 'sfk',
  ratePlan: 'plan',
  offering: 'off',
  storefront: 'sf',
  auditEvent: 'evt',
  webhookSource: 'wsrc',
  webhookLogEntry: 'whl',
  auditSearchPreset: 'asp',
  request: 'req',
  invoice: 'inv',
  creditNote: 'cn',
  priceVersion: 'pv',
  testClock: 'clock',
  widgetSession: 'wses',
  hubSession: 'hses',
  retentionOfferAcceptance: 'roa',
  webhookEndpoint: 'we',
  webhookMessage: 'msg',
  webhookAttempt: 'atmpt',
  operator: 'op',
  operatorSession: 'opses',
  operatorInvitation: 'opinv',
  paymentProvider: 'pp',
  payment: 'pay',
  refund: 're',
  creditGrant: 'cgr',
  creditLedgerEntry: 'cle',
} as const;

export type IdKind = keyof typeof idPrefixes;

export interface IdGenerator {
  next(kind: IdKind): string;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/**
 * The smallest id of this kind made at or after `ms`: ids sort by time, so a time range over a
 * table keyed by these ids is a range of its primary key, with no index on the time column.
 */
export function idFloor(kind: IdKind, ms: number): string {
  return `${idPrefixes[kind]}_${encodeTime(Math.max(0, ms))}`;
}

/** The millisecond an id was made in (its first ten digits after the prefix); NaN if it is not one of ours. */
export function idTime(id: string): number {
  const digits = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  if (digits.length !== 10) return NaN;
  let ms = 0;
  for (const c of digits) {
    const v = ALPHABET.indexOf(c);
    if (v < 0) return NaN;
    ms = ms * 32 + v;
  }
  return ms;
}

/** Random bytes drawn from the CSPRNG this many at a time: one call per 256 new milliseconds, not one per id. */
const POOL_BYTES = 4_096;

export function createIdGenerator(clock: Clock): IdGenerator {
  let lastMs = -1;
  let timeText = '';
  // 80 random bits as 16 base32 digits; incremented within one millisecond for monotonicity.
  // Every request gets an id (X-Request-Id), so this is on every request's path: the time's
  // digits are encoded once per millisecond and nothing is allocated but the id itself.
  const digits = new Uint8Array(16);
  const pool = new Uint8Array(POOL_BYTES);
  let poolAt = POOL_BYTES;
  return {
    next(kind) {
      const ms = clock.now();
      if (ms === lastMs) {
        let i = 15;
        while (i >= 0 && digits[i] === 31) {
          digits[i] = 0;
          i--;
        }
        if (i >= 0) digits[i]! += 1;
      } else {
        lastMs = ms;
        timeText = encodeTime(ms);
        if (poolAt + 16 > POOL_BYTES) {
          randomFillSync(pool);
          poolAt = 0;
        }
        for (let i = 0; i < 16; i++) digits[i] = pool[poolAt + i]! & 31;
        poolAt += 16;
        digits[0]! &= 15; // headroom so increments do not overflow
      }
      let id = `${idPrefixes[kind]}_${timeText}`;
      for (let i = 0; i < 16; i++) id += ALPHABET[digits[i]!];
      return id;
    },
  };
}
