import { randomBytes } from 'node:crypto';
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

export function createIdGenerator(clock: Clock): IdGenerator {
  let lastMs = -1;
  // 80 random bits as 16 base32 digits; incremented within one millisecond for monotonicity.
  let lastRandom: number[] = [];
  return {
    next(kind) {
      const ms = clock.now();
      if (ms === lastMs) {
        let i = 15;
        while (i >= 0 && lastRandom[i] === 31) {
          lastRandom[i] = 0;
          i--;
        }
        if (i >= 0) lastRandom[i] = (lastRandom[i] ?? 0) + 1;
      } else {
        lastMs = ms;
        const bytes = randomBytes(16);
        lastRandom = Array.from(bytes, (b) => b % 32);
        lastRandom[0] = (lastRandom[0] ?? 0) % 16; // headroom so increments do not overflow
      }
      return `${idPrefixes[kind]}_${encodeTime(ms)}${lastRandom.map((d) => ALPHABET[d]).join('')}`;
    },
  };
}
