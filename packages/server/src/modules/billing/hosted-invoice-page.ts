import { createHash } from 'node:crypto';
import { Decimal, formatDate, formatMoney, minorUnitDigits } from '@tollgate/pricing';
import { escapeHtml } from '../catalog/pricing-page.js';
import { amountRemaining, type Invoice } from './invoice.js';

/**
 * The invoice's payment page (GET /pay/{token}), server-rendered: who is paid, what for, what is
 * still owed, and a Pay button (a form POST, so link previews and mail scanners that fetch the
 * address never open a Stripe page). No script; the CSP allows the page's own style and a form
 * posting back to itself only.
 */
export type PageState =
  | 'open'
  /** Stripe is not connected to the invoice's environment: the buyer pays as the seller says. */
  | 'no_provider'
  /** A payment is being made: reload in a moment. */
  | 'busy'
  /** Stripe did not answer: try again in a moment. */
  | 'unavailable'
  /** Stripe refused to open a payment page (the seller's configuration). */
  | 'refused';

export interface PageView {
  seller: string;
  customer: string | null;
  invoice: Pick<Invoice, 'number' | 'id' | 'status' | 'currency' | 'total' | 'creditedTotal' | 'amountPaid' | 'dueDate' | 'finalizedAt' | 'paidAt'>;
  state: PageState;
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;color:#1f2328;background:#f6f8fa;margin:0}main{max-width:28rem;margin:3rem auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:2rem}h1{font-size:1.25rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1.5rem}dt{color:#59636e}dd{margin:0;text-align:right}.due{font-size:1.5rem;font-weight:600}button{font:inherit;background:#0b5cad;color:#fff;border:0;border-radius:6px;padding:.6rem 1.2rem;cursor:pointer;width:100%}p.note{color:#59636e}';
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The page's own style and nothing else; its form posts to the page itself, which sends the buyer
 * on to Stripe (browsers hold a form's redirect to form-action too): Stripe's Checkout, or the
 * Stripe-compatible server STRIPE_API_BASE names (the development fake). No framing.
 */
export function paymentPageCsp(stripeApiBase: string | null): string {
  const stripe = stripeApiBase === null ? 'https://checkout.stripe.com' : new URL(stripeApiBase).origin;
  return `default-src 'none'; style-src ${STYLE_HASH}; form-action 'self' ${stripe}; base-uri 'none'; frame-ancestors 'none'`;
}

const money = (amount: string, currency: string) => {
  const digits = minorUnitDigits(currency);
  return formatMoney(amount, currency, { minimumFractionDigits: digits, maximumFractionDigits: digits });
};

/** What the page says about paying, by the invoice's status and the page's state. */
function action(view: PageView): string {
  const { invoice } = view;
  if (invoice.status === 'paid') return `<p class="note">Paid${invoice.paidAt === null ? '' : ` on ${formatDate(invoice.paidAt)}`}. Thank you.</p>`;
  if (invoice.status === 'void') return '<p class="note">This invoice was voided: nothing is owed.</p>';
  if (invoice.status === 'uncollectible') return `<p class="note">This invoice can no longer be paid online. Contact ${escapeHtml(view.seller)}.</p>`;
  if (new Decimal(amountRemaining(invoice)).lte(0)) return '<p class="note">Nothing is owed on this invoice.</p>';
  switch (view.state) {
    case 'no_provider':
      return `<p class="note">${escapeHtml(view.seller)} does not take card payments online for this invoice: pay it as they tell you.</p>`;
    case 'busy':
      return '<p class="note">A payment of this invoice is being processed. Reload this page in a moment.</p>';
    case 'unavailable':
      return '<p class="note">The card payment service did not answer. Nothing was charged: try again in a moment.</p><form method="post"><button type="submit">Try again</button></form>';
    case 'refused':
      return `<p class="note">The payment page could not be opened. Contact ${escapeHtml(view.seller)}.</p>`;
    default:
      return `<form method="post"><button type="submit">Pay ${escapeHtml(money(amountRemaining(invoice), invoice.currency))}</button></form>`;
  }
}

export function renderPaymentPage(view: PageView): string {
  const { invoice } = view;
  const title = `Invoice ${invoice.number ?? invoice.id}`;
  const rows: Array<[string, string]> = [
    ['From', view.seller],
    ...(view.customer === null ? [] : ([['To', view.customer]] as Array<[string, string]>)),
    ...(invoice.finalizedAt === null ? [] : ([['Issued', formatDate(invoice.finalizedAt)]] as Array<[string, string]>)),
    ...(invoice.dueDate === null ? [] : ([['Due', formatDate(invoice.dueDate)]] as Array<[string, string]>)),
    ['Total', money(invoice.total, invoice.currency)],
  ];
  const owed = invoice.status === 'finalized' ? amountRemaining(invoice) : null;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>`,
    `<h1>${escapeHtml(title)}</h1><dl>`,
    ...rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`),
    owed === null ? '' : `<dt>Amount due</dt><dd class="due">${escapeHtml(money(owed, invoice.currency))}</dd>`,
    '</dl>',
    action(view),
    '</main></body></html>',
  ].join('');
}

/** The page for an address that names no invoice (a mistyped or forged link). */
export function renderPaymentPageNotFound(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Invoice not found</title><style>${STYLE}</style></head><body><main><h1>Invoice not found</h1><p class="note">This payment link is not valid. Ask the sender for a new one.</p></main></body></html>`;
}
