/** Customers of the environment shown, newest first, a page at a time; and one customer. */
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { formatInstant, NONE } from '../format.js';
import { hrefOf } from '../routes.js';
import { useApi } from '../use-api.js';

interface Customer {
  id: string;
  externalId: string | null;
  name: string | null;
  email: string | null;
  testClockId: string | null;
  createdAt: string;
}

const columns: Column<Customer>[] = [
  { label: 'Name', cell: (c) => <Link href={hrefOf('customer', { id: c.id })}>{c.name ?? c.id}</Link> },
  { label: 'E-mail', cell: (c) => c.email ?? NONE },
  { label: 'Your id', cell: (c) => c.externalId ?? NONE },
  { label: 'Created', cell: (c) => formatInstant(c.createdAt) },
];

export function Customers() {
  return (
    <>
      <ScreenTitle>Customers</ScreenTitle>
      <PagedTable path="/api/v1/customers" caption="Customers, newest first" columns={columns} empty="No customers in this environment yet." />
    </>
  );
}

export function CustomerDetail(props: { id: string }) {
  const loaded = useApi((api) => api.get<Customer>(`/api/v1/customers/${encodeURIComponent(props.id)}`), [props.id]);
  const c = loaded.state === 'ok' ? loaded.data : null;
  return (
    <>
      <ScreenTitle>{c ? (c.name ?? c.id) : 'Customer'}</ScreenTitle>
      <p>
        <Link href={hrefOf('customers')}>All customers</Link>
      </p>
      {loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {c && (
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
      )}
    </>
  );
}
