/**
 * Invoices and credit notes: the columns every list of them shows (the customer's page, an
 * invoice's credit notes). One invoice's page is invoice-detail.tsx, a chunk of its own with its
 * payments and refunds (the customer's page does not load them). Money is decimal text from the
 * API, worded by format.ts, never added up here.
 */
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { formatAmount, formatInstant, formatPeriod, NONE } from '../format.js';
import type { InvoiceLine } from '../invoice-lines.js';
import { hrefOf } from '../routes.js';

export interface Invoice {
  id: string;
  customerId: string;
  subscriptionId: string | null;
  billingReason: string;
  status: string;
  number: string | null;
  currency: string;
  periodStart: string;
  periodEnd: string;
  lines: InvoiceLine[];
  subtotal: string;
  total: string;
  creditedTotal: string;
  amountPaid: string;
  amountRemaining: string;
  paymentStatus: string;
  attemptCount: number;
  nextPaymentAttempt: string | null;
  lastPaymentError: { code: string; message: string | null } | null;
  paymentActionUrl: string | null;
  finalizeAt: string;
  finalizedAt: string | null;
  paidAt: string | null;
  voidedAt: string | null;
  markedUncollectibleAt: string | null;
  createdAt: string;
}

interface CreditNote {
  id: string;
  invoiceId: string;
  number: string;
  status: string;
  reason: string;
  memo: string | null;
  currency: string;
  total: string;
  createdAt: string;
}

/** An invoice's name: its number, or "Draft" until finalization gives it one. */
export const invoiceName = (i: Pick<Invoice, 'number'>) => i.number ?? 'Draft';

export const invoiceColumns: Column<Invoice>[] = [
  { label: 'Number', cell: (i) => <Link href={hrefOf('invoice', { id: i.id })}>{invoiceName(i)}</Link> },
  { label: 'Status', cell: (i) => i.status },
  { label: 'Period', cell: (i) => formatPeriod(i.periodStart, i.periodEnd) },
  { label: 'Total', cell: (i) => <span class="amount">{formatAmount(i.total, i.currency)}</span> },
  { label: 'Still owed', cell: (i) => formatAmount(i.amountRemaining, i.currency) },
  { label: 'Created', cell: (i) => formatInstant(i.createdAt) },
];

const creditNoteColumns = (withInvoice: boolean): Column<CreditNote>[] => [
  { label: 'Number', cell: (n) => n.number },
  ...(withInvoice ? [{ label: 'Invoice', cell: (n: CreditNote) => <Link href={hrefOf('invoice', { id: n.invoiceId })}>{n.invoiceId}</Link> }] : []),
  { label: 'Status', cell: (n) => n.status },
  { label: 'Reason', cell: (n) => n.reason },
  { label: 'Memo', cell: (n) => n.memo ?? NONE },
  { label: 'Total', cell: (n) => <span class="amount">{formatAmount(n.total, n.currency)}</span> },
  { label: 'Issued', cell: (n) => formatInstant(n.createdAt) },
];

/** Credit notes, newest first, of a customer (with the invoice each one credits) or of one invoice. */
export function CreditNotes(props: { caption: string; customerId?: string; invoiceId?: string }) {
  return (
    <PagedTable
      path="/api/v1/credit_notes"
      query={{ customerId: props.customerId, invoiceId: props.invoiceId }}
      caption={props.caption}
      columns={creditNoteColumns(props.invoiceId === undefined)}
      empty="No credit notes."
    />
  );
}
