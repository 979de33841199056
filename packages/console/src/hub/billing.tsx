/** The customer's issued invoices and credit notes, newest first, a page at a time. */
import { PagedTable, type Column } from '../components/paged-table.js';
import { ScreenTitle } from '../components/screen-title.js';
import { formatAmount, formatInstant, NONE } from '../format.js';

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

const invoiceColumns: Column<Invoice>[] = [
  { label: 'Number', cell: (i) => i.number ?? NONE },
  { label: 'Status', cell: (i) => i.status },
  { label: 'Period', cell: (i) => `${day(i.periodStart)} to ${day(i.periodEnd)}` },
  { label: 'Total', cell: (i) => <span class="amount">{formatAmount(i.total, i.currency)}</span> },
  { label: 'Still owed', cell: (i) => formatAmount(i.amountRemaining, i.currency) },
  { label: 'Issued', cell: (i) => formatInstant(i.finalizedAt) },
];

const creditNoteColumns: Column<CreditNote>[] = [
  { label: 'Number', cell: (c) => c.number },
  { label: 'Status', cell: (c) => c.status },
  { label: 'Reason', cell: (c) => c.reason.replace(/_/g, ' ') },
  { label: 'Total', cell: (c) => <span class="amount">{formatAmount(c.total, c.currency)}</span> },
  { label: 'Issued', cell: (c) => formatInstant(c.createdAt) },
];

export function Billing() {
  return (
    <>
      <ScreenTitle>Invoices</ScreenTitle>
      <PagedTable path="/api/v1/hub/invoices" caption="Your invoices, newest first" columns={invoiceColumns} empty="You have no invoices yet." />
      <div class="hub-section">
        <PagedTable path="/api/v1/hub/credit_notes" caption="Your credit notes, newest first" columns={creditNoteColumns} empty="You have no credit notes." />
      </div>
    </>
  );
}
