/**
 * One customer: who they are, their subscriptions, their usage per metric and day, their
 * invoices and credit notes, their prepaid credits (customer-credits.tsx), and the product keys
 * issued to them. Each section loads (and pages) on its own, so a slow or refused list does not
 * hold up the rest.
 */
import type { ComponentChildren } from 'preact';
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { UsageCharts } from '../components/usage-charts.js';
import { formatInstant, formatPeriod, NONE } from '../format.js';
import { hrefOf } from '../routes.js';
import { useApi } from '../use-api.js';
import { CustomerCredits } from './customer-credits.js';
import type { Customer } from './customers.js';
import { CreditNotes, invoiceColumns } from './invoices.js';

interface Subscription {
  id: string;
  status: string;
  productId: string;
  offeringId: string | null;
  billingPeriod: string;
  currency: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
}

interface ApiKey {
  id: string;
  name: string;
  hint: string;
  status: string;
  subscriptionId: string | null;
  createdAt: string;
}

const subscriptionColumns: Column<Subscription>[] = [
  { label: 'Id', cell: (s) => s.id },
  { label: 'Status', cell: (s) => (s.cancelAtPeriodEnd ? `${s.status}, ends at period end` : s.status) },
  { label: 'Plan', cell: (s) => s.offeringId ?? `${s.productId} (unit prices)` },
  { label: 'Billed', cell: (s) => `${s.billingPeriod.toLowerCase()}, ${s.currency}` },
  { label: 'Current period', cell: (s) => formatPeriod(s.currentPeriodStart, s.currentPeriodEnd) },
];

const keyColumns: Column<ApiKey>[] = [
  { label: 'Name', cell: (k) => k.name },
  { label: 'Key', cell: (k) => <code>{k.hint}</code> },
  { label: 'Status', cell: (k) => k.status },
  { label: 'Subscription', cell: (k) => k.subscriptionId ?? NONE },
  { label: 'Created', cell: (k) => formatInstant(k.createdAt) },
];

function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="detail-section">
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

export function CustomerDetail(props: { id: string }) {
  const loaded = useApi((api) => api.get<Customer>(`/api/v1/customers/${encodeURIComponent(props.id)}`), [props.id]);
  const c = loaded.state === 'ok' ? loaded.data : null;
  const name = c ? (c.name ?? c.id) : 'Customer';
  return (
    <>
      <ScreenTitle>{name}</ScreenTitle>
      <p>
        <Link href={hrefOf('customers')}>All customers</Link>
      </p>
      {loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {c && (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd>{c.id}</dd>
            <dt>E-mail</dt>
            <dd>{c.email ?? NONE}</dd>
            <dt>Your id</dt>
            <dd>{c.externalId ?? NONE}</dd>
            <dt>Test clock</dt>
            <dd>{c.testClockId ?? NONE}</dd>
            <dt>Created</dt>
            <dd>{formatInstant(c.createdAt)}</dd>
          </dl>
          <Section title="Subscriptions">
            <PagedTable
              path="/api/v1/subscriptions"
              query={{ customerId: c.id }}
              caption={`Subscriptions of ${name}`}
              columns={subscriptionColumns}
              empty="No subscriptions."
            />
          </Section>
          <UsageCharts title="Usage" customerId={c.id} />
          <Section title="Invoices">
            <PagedTable
              path={`/api/v1/customers/${encodeURIComponent(c.id)}/invoices`}
              caption={`Invoices of ${name}, newest first`}
              columns={invoiceColumns}
              empty="No invoices yet."
            />
          </Section>
          <Section title="Credit notes">
            <CreditNotes caption={`Credit notes of ${name}, newest first`} customerId={c.id} />
          </Section>
          <CustomerCredits customerId={c.id} name={name} />
          <Section title="Keys">
            <PagedTable
              path="/api/v1/api-keys"
              query={{ customerId: c.id }}
              caption={`Product keys of ${name}`}
              columns={keyColumns}
              empty="No keys issued to this customer."
            />
          </Section>
        </>
      )}
    </>
  );
}
