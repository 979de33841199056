/** Home: a few figures of the environment shown, each card loading on its own; usage and revenue charts of a period. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { BarChart } from '../components/bar-chart.js';
import { PeriodPicker, UsageCharts } from '../components/usage-charts.js';
import { daysFrom, periodOf, seriesByKey, type PeriodChoice } from '../chart.js';
import type { Cursor, ListPage } from '../paging.js';
import { issuedTotals, readFarEnough, type IssuedInvoice } from '../revenue.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { Link } from '../components/link.js';
import { useConsole } from '../context.js';
import { formatAmount, formatCount, formatInstant } from '../format.js';
import { hrefOf } from '../routes.js';
import { useApi, type Loaded } from '../use-api.js';

interface Invoice extends IssuedInvoice {
  id: string;
  number: string | null;
}

function Card(props: { title: string; loaded: Loaded<unknown>; children?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`card-${props.title}`} aria-busy={props.loaded.state === 'loading' ? 'true' : 'false'}>
      <h2 id={`card-${props.title}`}>{props.title}</h2>
      {props.loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {props.loaded.state === 'error' && <ProblemMessage problem={props.loaded.problem} />}
      {props.loaded.state === 'ok' && props.children}
    </section>
  );
}

/** How many there are, counted from one page of up to 100. */
function CountCard(props: { title: string; path: string; href?: string }) {
  const loaded = useApi((api) => api.list<{ id: string }>(props.path, null, 100), [props.path]);
  return (
    <Card title={props.title} loaded={loaded}>
      {loaded.state === 'ok' && <p class="figure">{formatCount(loaded.data.data.length, loaded.data.hasMore)}</p>}
      {props.href && <Link href={props.href}>See all {props.title.toLowerCase()}</Link>}
    </Card>
  );
}

function LatestInvoices() {
  const loaded = useApi((api) => api.list<Invoice>('/api/v1/invoices', null, 5), []);
  const invoices = loaded.state === 'ok' ? loaded.data.data : [];
  return (
    <Card title="Latest invoices" loaded={loaded}>
      {invoices.length === 0 ? (
        <p class="muted">No invoices yet.</p>
      ) : (
        <ul class="plain">
          {invoices.map((i) => (
            <li key={i.id}>
              <Link href={hrefOf('invoice', { id: i.id })}>{i.number ?? 'Draft'}</Link> <span class="amount">{formatAmount(i.total, i.currency)}</span>{' '}
              <span class="muted">
                {i.status}, {formatInstant(i.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** At most this many pages of 100 invoices are read for the revenue chart; beyond, the chart says it is partial. */
const MAX_PAGES = 10;

/** The newest invoices back to where none older can have been finalized from `fromDay` on (revenue.ts). */
async function invoicesSince(api: Api, fromDay: string): Promise<{ invoices: Invoice[]; partial: boolean }> {
  const invoices: Invoice[] = [];
  let cursor: Cursor = null;
  for (let n = 0; n < MAX_PAGES; n++) {
    const page: ListPage<Invoice> = await api.list<Invoice>('/api/v1/invoices', cursor, 100);
    invoices.push(...page.data);
    const last = page.data[page.data.length - 1];
    if (!page.hasMore || !last || readFarEnough(page.data, fromDay)) return { invoices, partial: false };
    cursor = { startingAfter: last.id };
  }
  return { invoices, partial: true };
}

function RevenueCharts() {
  const [choice, setChoice] = useState<PeriodChoice>('month');
  const { from, to } = periodOf(choice, Date.now());
  const loaded = useApi((api) => invoicesSince(api, from), [from]);
  const groups = loaded.state === 'ok' ? seriesByKey(issuedTotals(loaded.data.invoices), daysFrom(from, to)) : [];
  return (
    <section class="usage-charts" aria-labelledby="revenue-h" aria-busy={loaded.state === 'loading' ? 'true' : 'false'}>
      <h2 id="revenue-h">Revenue</h2>
      <PeriodPicker value={choice} onChange={setChoice} />
      <p class="muted">
        Totals of issued invoices by the UTC day they were finalized, {from} to {to}.
        {loaded.state === 'ok' && loaded.data.partial && ` From the newest ${loaded.data.invoices.length} invoices only.`}
      </p>
      {loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {loaded.state === 'ok' && groups.length === 0 && <p>No invoices issued in this period.</p>}
      <div class="chart-grid">
        {groups.map((g) => (
          <BarChart key={g.key} title={`Revenue in ${g.key} per day`} series={g.series} format={(v) => formatAmount(v, g.key)} valueHeading="Issued" />
        ))}
      </div>
    </section>
  );
}

export function Home() {
  const { session, environment } = useConsole();
  return (
    <>
      <ScreenTitle>{session.workspace.name}</ScreenTitle>
      <p class="muted">{environment === 'live' ? 'Live data.' : 'Test data: nothing here touches real customers.'}</p>
      <div class="cards">
        <CountCard title="Customers" path="/api/v1/customers" href={hrefOf('customers')} />
        <CountCard title="Subscriptions" path="/api/v1/subscriptions" />
        <LatestInvoices />
      </div>
      <UsageCharts title="Usage, every customer" />
      <RevenueCharts />
    </>
  );
}
