/** Customers of the environment shown, newest first, a page at a time (one customer: customer-detail.tsx). */
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ScreenTitle } from '../components/screen-title.js';
import { formatInstant, NONE } from '../format.js';
import { hrefOf } from '../routes.js';

export interface Customer {
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
