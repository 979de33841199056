/**
 * Prepaid credits' burn-down: which credit grants pay for which usage, and what no grant pays
 * (billed in arrears or refused, by the offering's overage rule). Pure, exact and in one
 * currency: amounts are decimal text in the currency's minor unit ("12.50" USD, "1200" JPY,
 * "0.125" KWD), computed as whole minor units (bigint), never as JS numbers.
 *
 * The rule (Orb's and OpenMeter's): charges are paid in time order, each by the grants that are
 * eligible at its instant, in draw order.
 * - Eligible: effective at the charge's instant (effectiveAt <= at), not yet expired (at <
 *   expiresAt), something left, and in scope: a grant limited to one subscription pays only that
 *   subscription's charges, and one limited to some metrics only those metrics' charges.
 * - Draw order (drawOrder): priority, a lower number first; then the soonest expiry (a grant that
 *   never expires last); then the oldest (createdAt); then the id, so that the order is total.
 * A grant thus pays only for usage that occurred while it was effective and unexpired, and a
 * promotional grant that expires soon is used before a purchased one that does not expire.
 *
 * Burning the charges of two consecutive stretches one after the other (the second from the
 * grants the first left) gives the same draws as burning them at once: what lets the live
 * balance be kept between a period's closes without reading the ledger again.
 */
import { minorUnitDigits } from './currency.js';

export interface BurnGrant {
  id: string;
  /** What is left of the grant before this burn-down: decimal text in the currency's minor unit, at least 0. */
  remaining: string;
  /** A lower number is drawn first. An integer. */
  priority: number;
  /** Epoch ms from which it pays for usage (inclusive). */
  effectiveAt: number;
  /** Epoch ms from which it pays for nothing (exclusive); null when it never expires. */
  expiresAt: number | null;
  /** Epoch ms of its creation: among grants equal otherwise, the oldest is drawn first. */
  createdAt: number;
  /** Limited to this subscription's usage; null for any of the customer's. */
  subscriptionId: string | null;
  /** Limited to these metrics' usage; null for every metric. */
  metricNames: readonly string[] | null;
}

export interface BurnCharge {
  /** Epoch ms of the usage the money is for. */
  at: number;
  /** Rated usage to pay: decimal text in the currency's minor unit, at least 0. */
  amount: string;
  subscriptionId: string;
  metricName: string;
}

export interface BurnDraw {
  grantId: string;
  /** The index of the charge it pays (part of), in the order the charges were given. */
  charge: number;
  /** Decimal text in the currency's minor unit, greater than 0. */
  amount: string;
}

export interface BurnDown {
  /** In the order they were made: charges in time order, each by its grants in draw order. */
  draws: BurnDraw[];
  /** What is left of every grant given, by id. */
  remaining: Map<string, string>;
  /** Per charge (in the order given), what no grant paid. */
  uncovered: string[];
  /** What no grant paid, in all. */
  overage: string;
  /** What the grants paid, in all. */
  drawn: string;
}

/** Negative when `a` is drawn before `b` (see the rule above). */
export function drawOrder(a: BurnGrant, b: BurnGrant): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.expiresAt !== b.expiresAt) {
    if (a.expiresAt === null) return 1;
    if (b.expiresAt === null) return -1;
    return a.expiresAt - b.expiresAt;
  }
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether the grant may pay for the charge, left amount aside. */
export function grantCovers(grant: BurnGrant, charge: Pick<BurnCharge, 'at' | 'subscriptionId' | 'metricName'>): boolean {
  if (charge.at < grant.effectiveAt) return false;
  if (grant.expiresAt !== null && charge.at >= grant.expiresAt) return false;
  if (grant.subscriptionId !== null && grant.subscriptionId !== charge.subscriptionId) return false;
  return grant.metricNames === null || grant.metricNames.includes(charge.metricName);
}

/** Plain decimal text of at least 0: its whole part and its decimals. */
const AMOUNT = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/** Decimal text in the currency's minor unit as a count of minor units; RangeError naming `what` otherwise. */
function toMinor(value: string, digits: number, currency: string, what: string): bigint {
  const m = AMOUNT.exec(value);
  if (!m) throw new RangeError(`${what} must be a decimal amount of at least 0, got ${JSON.stringify(value)}`);
  let fraction = m[2] ?? '';
  if (fraction.length > digits) {
    // Trailing zeros beyond the minor unit change nothing ("10.500" USD is 10.50).
    fraction = fraction.replace(/0+$/, '');
    if (fraction.length > digits) throw new RangeError(`${what} has more decimals than ${currency}'s minor unit (${digits}): ${value}`);
  }
  return BigInt(m[1]! + fraction.padEnd(digits, '0'));
}

/** A count of minor units as decimal text with exactly the currency's decimals. */
function fromMinor(units: bigint, digits: number): string {
  const s = units.toString().padStart(digits + 1, '0');
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/**
 * Burns `charges` down against `grants` by the rule above. Throws RangeError for an unknown
 * currency, an amount that is negative, not decimal text or finer than the minor unit, two
 * grants with one id, or a grant that expires before it is effective.
 */
export function burnDown(currency: string, grants: readonly BurnGrant[], charges: readonly BurnCharge[]): BurnDown {
  const digits = minorUnitDigits(currency);
  const ordered = grants.map((grant) => ({ grant, left: toMinor(grant.remaining, digits, currency, `grant ${grant.id}: remaining`) }));
  const ids = new Set<string>();
  for (const { grant } of ordered) {
    if (ids.has(grant.id)) throw new RangeError(`grant ${grant.id} is given twice`);
    ids.add(grant.id);
    if (grant.expiresAt !== null && grant.expiresAt <= grant.effectiveAt) throw new RangeError(`grant ${grant.id}: expiresAt must be after effectiveAt`);
  }
  ordered.sort((a, b) => drawOrder(a.grant, b.grant));
  const amounts = charges.map((c, i) => toMinor(c.amount, digits, currency, `charge ${i}: amount`));
  // Time order; charges at one instant keep the order they were given in.
  const byTime = charges.map((_, i) => i).sort((i, j) => charges[i]!.at - charges[j]!.at || i - j);

  const draws: BurnDraw[] = [];
  const uncovered = new Array<bigint>(charges.length).fill(0n);
  let drawn = 0n;
  let overage = 0n;
  // The grants that may still pay something, in draw order: one that is empty or has expired
  // never pays again (charges come in time order), so it leaves the list for good.
  let live = ordered.filter((g) => g.left > 0n);
  for (const i of byTime) {
    const charge = charges[i]!;
    let due = amounts[i]!;
    let gone = false;
    for (const g of live) {
      if (due === 0n) break;
      if (g.left === 0n || (g.grant.expiresAt !== null && charge.at >= g.grant.expiresAt)) {
        gone = true;
        continue;
      }
      if (!grantCovers(g.grant, charge)) continue;
      const take = g.left < due ? g.left : due;
      g.left -= take;
      due -= take;
      drawn += take;
      draws.push({ grantId: g.grant.id, charge: i, amount: fromMinor(take, digits) });
    }
    if (gone) live = live.filter((g) => g.left > 0n && (g.grant.expiresAt === null || charge.at < g.grant.expiresAt));
    uncovered[i] = due;
    overage += due;
  }
  return {
    draws,
    remaining: new Map(ordered.map((g) => [g.grant.id, fromMinor(g.left, digits)])),
    uncovered: uncovered.map((u) => fromMinor(u, digits)),
    overage: fromMinor(overage, digits),
    drawn: fromMinor(drawn, digits),
  };
}

/**
 * A line's money over time, for the burn-down: `totals[k]` is what the line rates to for its
 * usage up to and including slice k (the same rating as the invoice's, rounded as the invoice
 * rounds it), slices in time order. Returns each slice's charge: what the line's total grew by
 * there, so that the charges add up to the last total exactly.
 *
 * A total that falls (a volume price that drops for every unit once usage crosses a tier) would
 * give a negative charge: a slice is charged only what takes the total past its highest point so
 * far, and what the last total is below that peak is taken back from the latest charges first.
 * Every charge is then at least 0, none is later than the usage that incurred it, and credits that
 * expire are not drawn for money the invoice will not charge.
 */
export function chargesOverTime(totals: readonly string[], currency: string): string[] {
  const digits = minorUnitDigits(currency);
  const values = totals.map((t, k) => toMinor(t, digits, currency, `totals[${k}]`));
  const charges: bigint[] = [];
  let peak = 0n;
  for (const v of values) {
    charges.push(v > peak ? v - peak : 0n);
    if (v > peak) peak = v;
  }
  let excess = peak - (values.at(-1) ?? 0n);
  for (let k = charges.length - 1; k >= 0 && excess > 0n; k--) {
    const back = charges[k]! < excess ? charges[k]! : excess;
    charges[k]! -= back;
    excess -= back;
  }
  return charges.map((c) => fromMinor(c, digits));
}
