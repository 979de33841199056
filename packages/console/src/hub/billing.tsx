/**
 * The customer's issued invoices and credit notes, newest first, a page at a time; each invoice
 * with where its payment stands (what failed, when it is tried next), and Pay now on one that is
 * open and owes something (POST /api/v1/hub/invoices/{id}/pay): paid, failed (why), or, when the
 * customer's bank wants them, off to its page, which sends them back here (`?redirect_status=…`).
 * An invoice sent to be paid (send_invoice) links to its payment page instead (hostedInvoiceUrl),
 * where the customer pays by card on Stripe's page whether or not a card is on file.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useApiScope } from '../context.js';
import { problemFrom, type ApiProblem } from '../errors.js';
import { formatAmount, formatInstant, NONE } from '../format.js';
import { canRetryPayment } from '../payments.js';
import { useApi } from '../use-api.js';
import { invoicePaymentText, payOutcomeText, returnNoticeOf } from './model.js';

interface Invoice {
  id: string;
  number: string | null;
  status: string;
  currency: string;
  periodStart: string;
  periodEnd: string;
  total: string;
  amountRemaining: string;
  finalizedAt: string | null;
  paymentStatus: string;
  collectionMethod: string;
  hostedInvoiceUrl: string | null;
  nextPaymentAttempt: string | null;
  lastPaymentError: { code: string; message: string | null } | null;
}

interface Attempt {
  status: string;
  failureCode: string | null;
  failureMessage: string | null;
  actionUrl: string | null;
}

interface CreditNote {
  id: string;
  number: string;
  invoiceId: string;
  status: string;
  reason: string;
  currency: string;
  total: string;
  createdAt: string;
}

const day = (iso: string) => iso.slice(0, 10);

const creditNoteColumns: Column<CreditNote>[] = [
  { label: 'Number', cell: (c) => c.number },
  { label: 'Status', cell: (c) => c.status },
  { label: 'Reason', cell: (c) => c.reason.replace(/_/g, ' ') },
  { label: 'Total', cell: (c) => <span class="amount">{formatAmount(c.total, c.currency)}</span> },
  { label: 'Issued', cell: (c) => formatInstant(c.createdAt) },
];

export function Billing() {
  const { api, signedOut } = useApiScope();
  const cards = useApi((a) => a.get<{ cardPayments: boolean }>('/api/v1/hub/payment_method'), []);
  const cardPayments = cards.state === 'ok' && cards.data.cardPayments;
  const [notice, setNotice] = useState(() => returnNoticeOf(window.location.search));
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [paying, setPaying] = useState<string | null>(null);
  // The list loads again after a payment (a new key remounts it).
  const [round, setRound] = useState(0);

  useEffect(() => {
    // Read once: the provider's additions (its payment's ids) leave the address, and a reload says nothing again.
    if (notice) window.history.replaceState(null, '', window.location.pathname);
  }, []);

  async function pay(i: Invoice) {
    if (paying) return;
    setPaying(i.id);
    setNotice(null);
    setProblem(null);
    try {
      const attempt = await api.post<Attempt>(`/api/v1/hub/invoices/${encodeURIComponent(i.id)}/pay`, {});
      if (attempt.status === 'requires_action' && attempt.actionUrl) return window.location.assign(attempt.actionUrl);
      setNotice(`Invoice ${i.number ?? ''}: ${payOutcomeText(attempt)}`);
      setRound((r) => r + 1);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
    }
    setPaying(null);
  }

  const invoiceColumns: Column<Invoice>[] = [
    { label: 'Number', cell: (i) => i.number ?? NONE },
    { label: 'Status', cell: (i) => i.status },
    { label: 'Period', cell: (i) => `${day(i.periodStart)} to ${day(i.periodEnd)}` },
    { label: 'Total', cell: (i) => <span class="amount">{formatAmount(i.total, i.currency)}</span> },
    { label: 'Still owed', cell: (i) => formatAmount(i.amountRemaining, i.currency) },
    { label: 'Issued', cell: (i) => formatInstant(i.finalizedAt) },
    {
      label: 'Payment',
      cell: (i) => (
        <div class="payment-cell">
          {invoicePaymentText(i)}
          {i.collectionMethod === 'send_invoice' && i.hostedInvoiceUrl && i.status === 'finalized' && i.paymentStatus !== 'processing' ? (
            <div>
              <a href={i.hostedInvoiceUrl} aria-label={`Pay online: invoice ${i.number ?? ''}`}>
                Pay online
              </a>
            </div>
          ) : (
            canRetryPayment(i, cardPayments) && (
              <div>
                <button type="button" disabled={paying !== null} aria-label={`Pay now: invoice ${i.number ?? ''}`} onClick={() => void pay(i)}>
                  Pay now
                </button>
              </div>
            )
          )}
        </div>
      ),
    },
  ];

  return (
    <>
      <ScreenTitle>Invoices</ScreenTitle>
      <p role="status" class={notice ? 'notice' : undefined}>
        {notice ?? ''}
      </p>
      {problem && <ProblemMessage problem={problem} />}
      <PagedTable
        key={round}
        path="/api/v1/hub/invoices"
        caption="Your invoices, newest first"
        columns={invoiceColumns}
        empty="You have no invoices yet."
        stacked
      />
      <div class="hub-section">
        <PagedTable path="/api/v1/hub/credit_notes" caption="Your credit notes, newest first" columns={creditNoteColumns} empty="You have no credit notes." />
      </div>
    </>
  );
}
