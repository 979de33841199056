/**
 * One invoice's page: its facts, lines, totals, payments and credit notes. Money is decimal text
 * from the API, worded by format.ts, never added up here: the API's totals are shown. A line is
 * named as the pricing page names its unit (invoice-lines.ts); usage lines with no usage fold
 * behind one disclosure. Its payments, and the form that records one, are invoice-payments.tsx; a
 * paid invoice's refunds and the Refund form, invoice-refunds.tsx. Loaded lazily (lazy-screens.ts).
 */
import { useState } from 'preact/hooks';
import { Link } from '../components/link.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { formatAmount, formatInstant, formatLineRate, formatPeriod, formatUsage, NONE } from '../format.js';
import { failureText, paymentStatusText } from '../payments.js';
import { foldedLinesText, isZeroUsageLine, lineDescription, ratePlanIdsOf, type InvoiceLine, type LineContext } from '../invoice-lines.js';
import type { RatePlanRecord } from '../plan-form.js';
import { hrefOf } from '../routes.js';
import { useKept } from '../use-action.js';
import { useApi } from '../use-api.js';
import { InvoicePayments } from './invoice-payments.js';
import { CreditNotes, invoiceName, type Invoice } from './invoices.js';
import type { MetricRecord } from './metrics.js';

/**
 * What the lines are worded with: the metrics' display names (the first hundred metrics) and the
 * plans the lines name. Until they arrive, or if one cannot be read, a line reads as its metric
 * and model, which needs neither.
 */
function useLineContext(i: Invoice): LineContext {
  const ids = ratePlanIdsOf(i.lines);
  const metrics = useApi((api) => api.list<MetricRecord>('/api/v1/metrics', null, 100), []);
  const plans = useApi(
    (api) => Promise.all(ids.map((id) => api.get<RatePlanRecord>(`/api/v1/rate-plans/${encodeURIComponent(id)}`).catch(() => null))),
    [ids.join(' ')],
  );
  return {
    currency: i.currency,
    metrics: metrics.state === 'ok' ? metrics.data.data : [],
    plans: plans.state === 'ok' ? plans.data.filter((p) => p !== null) : [],
  };
}

function LineRow(props: { line: InvoiceLine; context: LineContext }) {
  const { line: l, context } = props;
  return (
    <tr>
      <td>
        <span class="line-description">{lineDescription(l, context)}</span>
      </td>
      <td>{l.type.replace('_', ' ')}</td>
      <td>{formatUsage(l.quantity)}</td>
      <td>{formatUsage(l.freeUnits)}</td>
      <td>{formatUsage(l.billableQuantity)}</td>
      <td>{formatLineRate(l.type, l.rate, context.currency)}</td>
      <td class="num amount">{formatAmount(l.amount, context.currency)}</td>
    </tr>
  );
}

function InvoiceLines(props: { invoice: Invoice }) {
  const i = props.invoice;
  const money = (amount: string) => formatAmount(amount, i.currency);
  const context = useLineContext(i);
  const [unfolded, setUnfolded] = useState(false);
  // Folded, not dropped: the lines keep their order, the ones with no usage after the disclosure.
  const numbered = i.lines.map((line, n) => ({ line, n }));
  const shown = numbered.filter((x) => !isZeroUsageLine(x.line));
  const folded = numbered.filter((x) => isZeroUsageLine(x.line));
  // The API's figures under the lines; each row is one the API returns, nothing summed here.
  const totals: Array<[string, string]> = [
    ['Subtotal', i.subtotal],
    ['Total', i.total],
    ['Credited', i.creditedTotal],
    ['Paid', i.amountPaid],
    ['Still owed', i.amountRemaining],
  ];
  return (
    <>
      <div class="table-scroll" role="region" aria-label="Lines" tabIndex={0}>
        <table>
          <caption>Lines</caption>
          <thead>
            <tr>
              <th scope="col">Description</th>
              <th scope="col">Kind</th>
              <th scope="col">Quantity</th>
              <th scope="col">Free</th>
              <th scope="col">Billed</th>
              <th scope="col">Rate</th>
              <th scope="col" class="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((x) => (
              <LineRow key={x.n} line={x.line} context={context} />
            ))}
            {i.lines.length === 0 && (
              <tr>
                <td colSpan={7}>No lines.</td>
              </tr>
            )}
          </tbody>
          {folded.length > 0 && (
            <tbody>
              <tr>
                <td colSpan={7}>
                  <button type="button" class="link-button" aria-expanded={unfolded} aria-controls="folded-lines" onClick={() => setUnfolded(!unfolded)}>
                    {foldedLinesText(folded.length)}
                  </button>
                </td>
              </tr>
            </tbody>
          )}
          {folded.length > 0 && (
            <tbody id="folded-lines" hidden={!unfolded}>
              {folded.map((x) => (
                <LineRow key={x.n} line={x.line} context={context} />
              ))}
            </tbody>
          )}
        </table>
      </div>
      {/* Apart from the lines, so the figures stay in view on a phone while the lines scroll sideways. */}
      <table class="invoice-totals">
        <caption>Totals</caption>
        <tbody>
          {totals.map(([label, amount]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td class="num amount">{money(amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function InvoiceDetail(props: { id: string }) {
  const loaded = useApi((api) => api.get<Invoice>(`/api/v1/invoices/${encodeURIComponent(props.id)}`), [props.id]);
  // Kept while it loads again after a payment, so the page (and the focus in it) stays.
  const i = useKept(loaded);
  return (
    <>
      <ScreenTitle>{i ? `Invoice ${invoiceName(i)}` : 'Invoice'}</ScreenTitle>
      {i === null && loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {i && (
        <>
          <p>
            <Link href={hrefOf('customer', { id: i.customerId })}>The customer's page</Link>
          </p>
          <dl class="facts">
            <dt>Status</dt>
            <dd>{i.status}</dd>
            <dt>Total</dt>
            <dd class="amount">{formatAmount(i.total, i.currency)}</dd>
            <dt>Paid</dt>
            <dd class="amount">{formatAmount(i.amountPaid, i.currency)}</dd>
            <dt>Still owed</dt>
            <dd class="amount">{formatAmount(i.amountRemaining, i.currency)}</dd>
            <dt>Payment</dt>
            <dd>
              {paymentStatusText(i.paymentStatus)}
              {i.paymentActionUrl && (
                <>
                  {' '}
                  (<a href={i.paymentActionUrl}>the buyer’s page</a>)
                </>
              )}
            </dd>
            <dt>Attempts</dt>
            <dd>{i.attemptCount}</dd>
            {i.lastPaymentError && <dt>Last failure</dt>}
            {i.lastPaymentError && <dd>{failureText(i.lastPaymentError.code, i.lastPaymentError.message)}</dd>}
            {i.nextPaymentAttempt && <dt>Next attempt</dt>}
            {i.nextPaymentAttempt && <dd>{formatInstant(i.nextPaymentAttempt)}</dd>}
            <dt>Customer</dt>
            <dd>{i.customerId}</dd>
            <dt>Subscription</dt>
            <dd>{i.subscriptionId ?? NONE}</dd>
            <dt>Reason</dt>
            <dd>{i.billingReason.replace('_', ' ')}</dd>
            <dt>Period</dt>
            <dd>{formatPeriod(i.periodStart, i.periodEnd)}</dd>
            <dt>Created</dt>
            <dd>{formatInstant(i.createdAt)}</dd>
            <dt>{i.finalizedAt ? 'Finalized' : 'Finalizes'}</dt>
            <dd>{formatInstant(i.finalizedAt ?? i.finalizeAt)}</dd>
            {i.paidAt && <dt>Paid on</dt>}
            {i.paidAt && <dd>{formatInstant(i.paidAt)}</dd>}
            {i.voidedAt && <dt>Voided</dt>}
            {i.voidedAt && <dd>{formatInstant(i.voidedAt)}</dd>}
            {i.markedUncollectibleAt && <dt>Uncollectible</dt>}
            {i.markedUncollectibleAt && <dd>{formatInstant(i.markedUncollectibleAt)}</dd>}
          </dl>
          <h2 class="section">Lines</h2>
          <InvoiceLines invoice={i} />
          <InvoicePayments invoice={i} onRecorded={loaded.reload} />
          <h2 class="section">Credit notes</h2>
          {/* Keyed by the credited total: a refund's credit note shows once the invoice loads again. */}
          <CreditNotes key={i.creditedTotal} caption={`Credit notes of invoice ${invoiceName(i)}`} invoiceId={i.id} />
        </>
      )}
    </>
  );
}
