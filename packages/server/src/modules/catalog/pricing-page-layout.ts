import { Decimal, monthsPerPeriod, type BillingPeriod, type Offering } from '@tollgate/pricing';

/**
 * Which cards the hosted pricing page shows in which view of its period switch, and what a longer
 * period saves against monthly. Pure, so the rules are tested with a table (pricing-page.test.ts).
 *
 * A seller offers one plan for several periods by listing offerings of the same name (trimmed,
 * case-insensitive) with different billing periods: "Pro" MONTHLY and "Pro" ANNUAL. Those are a
 * group; the page shows one view per period any group has, and a group's members only in their
 * period's view, at the slot of the group's first member, so the card does not jump around when
 * the buyer switches. Every other offering (Free, Enterprise, a ONE_TIME pack) shows in every view.
 */

/** The periods a switch offers, in this order. ONE_TIME has no per-month price to compare. */
export const SWITCH_PERIODS = ['MONTHLY', 'QUARTERLY', 'ANNUAL'] as const;
export type SwitchPeriod = (typeof SWITCH_PERIODS)[number];

const isSwitchPeriod = (period: BillingPeriod): period is SwitchPeriod => (SWITCH_PERIODS as readonly string[]).includes(period);

export interface PageSlot {
  offering: Offering;
  /** The offering's position in the storefront (0-based): its card's id comes from it. */
  index: number;
  /** The one view it shows in; null: every view (it has no sibling of another period). */
  period: SwitchPeriod | null;
  /** Whole percent saved per month against the same-named MONTHLY offering; null: nothing to say. */
  savingsPercent: number | null;
}

export interface PageLayout {
  /** The switch's views, in SWITCH_PERIODS order; empty: no switch. */
  periods: SwitchPeriod[];
  /** The view checked on arrival: MONTHLY when there is one, else the first; null without a switch. */
  defaultPeriod: SwitchPeriod | null;
  /** The cards in page order. */
  slots: PageSlot[];
}

/** The key offerings are grouped by: the name as a buyer reads it. */
export const groupKey = (name: string): string => name.trim().toLowerCase();

/**
 * What paying for `longer` saves per month against `monthly`, in whole percent rounded DOWN so
 * it is never overstated ($490 a year against $49 a month saves 16.67%: "16"). Exact: compared
 * as 100 × (12 × 49 − 490) against 12 × 49, never through a float. Null when there is nothing
 * true to say: no entry price on either, different currencies, a monthly price of zero, a
 * `longer` that is not MONTHLY's multiple (ONE_TIME) or is MONTHLY itself, or no saving at all.
 */
export function savingsAgainstMonthly(longer: Offering, monthly: Offering): number | null {
  if (monthly.billingPeriod !== 'MONTHLY' || longer.billingPeriod === 'MONTHLY') return null;
  if (longer.entryPrice === null || monthly.entryPrice === null) return null;
  if (longer.currency.toUpperCase() !== monthly.currency.toUpperCase()) return null;
  const months = monthsPerPeriod(longer.billingPeriod);
  if (months === null) return null;
  const base = new Decimal(monthly.entryPrice).times(months);
  if (!base.greaterThan(0)) return null;
  const saved = base.minus(longer.entryPrice).times(100);
  if (!saved.greaterThan(0)) return null;
  // The quotient is rounded to 40 digits, which could round 16.999… up to 17: step back if so.
  let percent = saved.dividedBy(base).floor();
  if (percent.times(base).greaterThan(saved)) percent = percent.minus(1);
  return percent.greaterThan(0) ? percent.toNumber() : null;
}

/** The page's cards and switch for a storefront's offerings, in storefront order. */
export function layoutOfferings(offerings: readonly Offering[]): PageLayout {
  // Each name's members in switchable periods, in storefront order.
  const groups = new Map<string, Array<{ offering: Offering; index: number; period: SwitchPeriod }>>();
  offerings.forEach((offering, index) => {
    const period = offering.billingPeriod;
    if (!isSwitchPeriod(period)) return;
    const key = groupKey(offering.name);
    const members = groups.get(key) ?? [];
    members.push({ offering, index, period });
    groups.set(key, members);
  });
  // A group is a name offered for more than one period; a name in one period is just a card.
  const grouped = new Map([...groups].filter(([, members]) => new Set(members.map((m) => m.period)).size > 1));
  const used = new Set(SWITCH_PERIODS.filter((p) => [...grouped.values()].some((members) => members.some((m) => m.period === p))));
  const periods = SWITCH_PERIODS.filter((p) => used.has(p));

  const slots: PageSlot[] = [];
  const placed = new Set<string>();
  offerings.forEach((offering, index) => {
    const key = groupKey(offering.name);
    const members = isSwitchPeriod(offering.billingPeriod) ? grouped.get(key) : undefined;
    if (!members) {
      slots.push({ offering, index, period: null, savingsPercent: null });
      return;
    }
    // The whole group at its first member's slot.
    if (placed.has(key)) return;
    placed.add(key);
    for (const m of members) {
      const monthly = members.find((s) => s.period === 'MONTHLY' && s.offering.currency.toUpperCase() === m.offering.currency.toUpperCase());
      slots.push({
        offering: m.offering,
        index: m.index,
        period: m.period,
        savingsPercent: monthly === undefined ? null : savingsAgainstMonthly(m.offering, monthly.offering),
      });
    }
  });
  return { periods, defaultPeriod: periods.includes('MONTHLY') ? 'MONTHLY' : (periods[0] ?? null), slots };
}
