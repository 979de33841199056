/**
 * The developer hub's pure rules: which link token the address holds, which view a path shows,
 * whom an expired link sends the customer back to (and what a hub opened without a link says),
 * the seller's accent colour made legible, and how a key's grace period, a plan, a quota and a
 * subscription to create a key for are worded. Pure, so each is tested with a table of cases.
 */
import { contrast } from '@tollgate/pricing';
import { formatInstant } from '../format.js';

export const HUB_BASE = '/hub';

export type HubViewName = 'keys' | 'usage' | 'subscription' | 'billing' | 'credits' | 'payment-method';

/** The hub's views, in navigation order; the first is /hub itself. */
export const HUB_VIEWS: ReadonlyArray<{ name: HubViewName; path: string; label: string }> = [
  { name: 'keys', path: HUB_BASE, label: 'API keys' },
  { name: 'usage', path: `${HUB_BASE}/usage`, label: 'Usage and quotas' },
  { name: 'subscription', path: `${HUB_BASE}/subscription`, label: 'Subscription' },
  { name: 'billing', path: `${HUB_BASE}/billing`, label: 'Invoices' },
  { name: 'credits', path: `${HUB_BASE}/credits`, label: 'Credits' },
  { name: 'payment-method', path: `${HUB_BASE}/payment-method`, label: 'Payment method' },
];

/** The view a path shows; null for a path the hub does not have (a trailing slash is the same path). */
export function hubViewOf(pathname: string): HubViewName | null {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return HUB_VIEWS.find((v) => v.path === path)?.name ?? null;
}

/** The single-use link's token from the address's fragment (`#hbl_…`), or null. */
export function linkTokenOf(hash: string): string | null {
  const m = /^#(hbl_[A-Za-z0-9_]{1,190})$/.exec(hash);
  return m ? (m[1] as string) : null;
}

/** What the page remembers of the seller (sessionStorage), so an expired session can still name them. */
export interface Seller {
  title: string | null;
  returnUrl: string | null;
}

/** The seller as the customer knows them: the site the return link goes to, else the hub's title. */
export function sellerName(seller: Seller | null): string | null {
  if (seller?.returnUrl) {
    try {
      return new URL(seller.returnUrl).host;
    } catch {
      // Not a URL: fall through to the title.
    }
  }
  return seller?.title ?? null;
}

export const expiredText = (seller: Seller | null): string =>
  `This link has expired: ask ${sellerName(seller) ?? 'the site that sent you here'} for a new one.`;

/**
 * Why there is no session to show: a link that was used or expired, or a session that ended in
 * this tab ('expired'); or the hub opened with no link at all in a tab that never had a session
 * ('no-link'), which is not an expired link: the customer needs to be told where links come from.
 */
export function endedKindOf(hadLink: boolean, remembered: Seller | null): 'no-link' | 'expired' {
  return !hadLink && remembered === null ? 'no-link' : 'expired';
}

export const NO_LINK_TITLE = 'Open the developer hub from your account';
export const NO_LINK_TEXT =
  'The developer hub opens from a link made for you: sign in to your account on the site of the service you use, and open its developer hub from there (it may be called API keys or developer settings). Each link works once and for a limited time, so a bookmark of this page cannot sign you in.';

export interface AccentColors {
  /** Button background. */
  accent: string;
  /** Text on it: white or near-black, whichever reads (AA, 4.5:1). */
  accentText: string;
  /** Links on the white page: the accent when it reads there, else the hub's own blue. */
  link: string;
}

const WHITE = '#ffffff';
const INK = '#111111';
const DEFAULT_LINK = '#1d4ed8';

/** The seller's accent (#rrggbb, validated by the server) made legible; null for none or a malformed one. */
export function accentColors(accent: string | null | undefined): AccentColors | null {
  if (!accent || !/^#[0-9a-fA-F]{6}$/.test(accent)) return null;
  const color = accent.toLowerCase();
  return {
    accent: color,
    accentText: contrast(color, WHITE) >= 4.5 ? WHITE : INK,
    link: contrast(color, WHITE) >= 4.5 ? color : DEFAULT_LINK,
  };
}

/** A rotated key's grace: "Works until 2026-04-16 09:35 UTC (5 min left)"; over: "Grace period over". */
export function graceText(expiresAt: string | null, nowMs: number): string {
  if (expiresAt === null) return 'Grace period over';
  const left = Math.ceil((Date.parse(expiresAt) - nowMs) / 60_000);
  if (!(left > 0)) return 'Grace period over';
  return `Works until ${formatInstant(expiresAt)} (${left} min left)`;
}

/** Units left: "Unlimited", or the number with thousands separators (never negative, says the API). */
export function remainingText(remaining: number, unlimited: boolean): string {
  return unlimited ? 'Unlimited' : remaining.toLocaleString('en-US');
}

/** What a quota card shows: the figure, and what it is of ("100,000" "API calls left"). */
export function quotaFigure(q: { quotaRemaining: number; quotaUnlimited: boolean; quotaMetric: { label: string } | null }): {
  figure: string;
  caption: string;
} {
  const figure = remainingText(q.quotaRemaining, q.quotaUnlimited);
  if (q.quotaUnlimited) return { figure, caption: 'no usage limit' };
  // Without a metric there is no active subscription: the reason beside it says so.
  return { figure, caption: q.quotaMetric ? `${q.quotaMetric.label} left` : 'left' };
}

/** A plan as the hub API names it (hub subscriptions' and quotas' `productName` and `plan`). */
export interface PlanNames {
  productName: string;
  plan: { offeringId: string; name: string; priceText: string } | null;
}

/** "Pro (Demo Search API)": the plan, and the product it is of; the product alone without a plan. Never an id. */
export function planTitle(p: PlanNames): string {
  if (!p.plan) return p.productName;
  return p.plan.name === p.productName ? p.plan.name : `${p.plan.name} (${p.productName})`;
}

/** What the Create key form knows of a subscription. */
export interface SubscriptionChoice extends PlanNames {
  id: string;
  status: string;
}

/** "Pro (Demo Search API), active"; with the subscription's id only when another one has the same plan, so the choice stays short. */
export function subscriptionLabel(sub: SubscriptionChoice, all: readonly SubscriptionChoice[]): string {
  const title = planTitle(sub);
  const label = `${title}, ${sub.status.toLowerCase().replace(/_/g, ' ')}`;
  return all.some((o) => o.id !== sub.id && planTitle(o) === title) ? `${label} · ${sub.id}` : label;
}

export interface Card {
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
}

/** The card on file: "Visa ending in 4242, expires 04/2030"; what the API left out is left out. */
export function cardText(card: Card): string {
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : 'Card';
  const last4 = card.last4 ? ` ending in ${card.last4}` : '';
  const expiry = card.expMonth && card.expYear ? `, expires ${String(card.expMonth).padStart(2, '0')}/${card.expYear}` : '';
  return brand + last4 + expiry;
}

type PaymentError = { code: string; message: string | null } | null;
// The provider's words are the customer's own bank's; ours for a missing card are the operator's, so reworded.
const NO_CARD = 'You have no card on file: add one under Payment method, then pay again.';
const why = (e: PaymentError) => (!e ? 'no reason given.' : e.code === 'no_payment_method' ? NO_CARD : (e.message ?? `${e.code.replace(/_/g, ' ')}.`));

/** Where an invoice's payment stands, for the customer: "Payment failed: Your card was declined. Next try: 2026-01-13 02:00 UTC." */
export function invoicePaymentText(i: { paymentStatus: string; lastPaymentError: PaymentError; nextPaymentAttempt: string | null }): string {
  const next = i.nextPaymentAttempt ? ` Next try: ${formatInstant(i.nextPaymentAttempt)}.` : '';
  switch (i.paymentStatus) {
    case 'paid':
      return 'Paid';
    case 'void':
      return 'Void';
    case 'processing':
      return 'Payment in progress';
    case 'requires_action':
      return `Your bank asks you to confirm the payment: use Pay now.${next}`;
    case 'failed':
      return `Payment failed: ${why(i.lastPaymentError)}${next}`;
    case 'partially_paid':
      return `Partly paid.${next}`;
    default:
      return `Unpaid.${next}`;
  }
}

/** What Pay now came to (a payment that needs the customer's bank sends them to its page instead). */
export function payOutcomeText(p: { status: string; failureCode: string | null; failureMessage: string | null }): string {
  if (p.status === 'succeeded') return 'Paid. Thank you!';
  if (p.status === 'failed') return `The payment failed: ${why(p.failureCode ? { code: p.failureCode, message: p.failureMessage } : null)}`;
  if (p.status === 'requires_action') return 'Your bank asks you to confirm this payment, but gave no page for it: try Pay now again in a moment.';
  return 'Your payment is being processed: it shows here once your bank answers.';
}

/**
 * What the address says the customer just did on the payment provider's page: came back from
 * adding a card (`?card=added|cancelled`) or from confirming a payment (`?redirect_status=…`,
 * which Stripe adds); null for anything else.
 */
export function returnNoticeOf(search: string): string | null {
  const q = new URLSearchParams(search);
  if (q.get('card') === 'added') return 'Thank you: your card is saved. It shows here as soon as the payment provider confirms it.';
  if (q.get('card') === 'cancelled') return 'No card was added.';
  if (q.get('redirect_status') === 'succeeded') return 'Thank you: your payment is confirmed. The invoice shows as paid as soon as your bank’s answer arrives.';
  if (q.get('redirect_status') === 'failed') return 'The payment was not confirmed. You can try again with Pay now.';
  return null;
}
