/** Home: a few figures of the environment shown, each card loading on its own. */
import type { ComponentChildren } from 'preact';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { Link } from '../components/link.js';
import { useConsole } from '../context.js';
import { formatAmount, formatCount, formatInstant } from '../format.js';
import { hrefOf } from '../routes.js';
import { useApi, type Loaded } from '../use-api.js';

interface Invoice {
  id: string;
  number: string | null;
  status: string;
  currency: string;
  total: string;
  createdAt: string;
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
              <span>{i.number ?? 'Draft'}</span> <span class="amount">{formatAmount(i.total, i.currency)}</span>{' '}
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
    </>
  );
}
