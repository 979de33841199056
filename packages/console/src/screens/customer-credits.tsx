/**
 * A customer's prepaid credits (docs/credits.md), on the customer's page: the balance in each
 * currency, the grants (Void, asked first, on an active one with something left), the ledger
 * newest first, the Grant credits form and the credit settings, read-only. A grant or a void
 * loads the balance, grants and ledger again (keyed by a count of changes) and a status says what
 * changed. Amounts are the API's decimal text, worded by format.ts, never added up here.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ConfirmButton } from '../components/confirm-button.js';
import { TextField } from '../components/field-errors.js';
import { Link } from '../components/link.js';
import { NewForm } from '../components/managed-list.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { SelectField } from '../components/select-field.js';
import { formatAmount, formatExpiry, formatInstant, formatSignedAmount, NONE } from '../format.js';
import type { ListPage } from '../paging.js';
import { hrefOf } from '../routes.js';
import { formValues, useAction, useKept } from '../use-action.js';
import { useApi } from '../use-api.js';

interface CreditBalance {
  balances: Array<{ currency: string; balance: string; updatedAt: string }>;
}

interface CreditGrant {
  id: string;
  currency: string;
  amount: string;
  remaining: string;
  priority: number;
  expiresAt: string | null;
  source: string;
  status: string;
}

interface LedgerEntry {
  id: string;
  currency: string;
  type: string;
  amount: string;
  balanceAfter: string;
  invoiceId: string | null;
  occurredAt: string;
}

interface CreditSettings {
  currency: string;
  lowBalanceThreshold: string | null;
  autoTopUp: { threshold: string; amount: string; cost: string; maxPerPeriod: number; toppedUpThisPeriod: number; armed: boolean } | null;
}

const INPUTS = ['amount', 'currency', 'priority', 'expiresAt', 'source'];
const SOURCES = [
  ['promotional', 'Promotional'],
  ['adjustment', 'Adjustment'],
] as const;

/** The form's values as the API's body: priority a number when it is one (else as typed, so the API names the field), a day as its start in UTC. */
function grantBody(v: Record<string, string>, customerId: string) {
  const { amount, currency, priority, expiresAt, source } = v;
  return {
    customerId,
    amount: amount ?? '',
    currency: (currency ?? '').toUpperCase(),
    ...(priority !== undefined && { priority: /^\d+$/.test(priority) ? Number(priority) : priority }),
    ...(expiresAt !== undefined && { expiresAt: /^\d{4}-\d{2}-\d{2}$/.test(expiresAt) ? `${expiresAt}T00:00:00.000Z` : expiresAt }),
    ...(source !== undefined && { source }),
  };
}

/** Void takes what is left: only an active grant with a digit other than 0 in it has any. */
const voidable = (g: CreditGrant) => g.status === 'active' && /[1-9]/.test(g.remaining);

function VoidGrant(props: { grant: CreditGrant; onVoided: (g: CreditGrant) => void }) {
  const g = props.grant;
  const action = useAction<CreditGrant>();
  return (
    <>
      <ConfirmButton
        label="Void"
        question={`Void the ${formatAmount(g.remaining, g.currency)} left of this ${g.source} grant? What was drawn stays drawn.`}
        confirm="Yes, void it"
        busy={action.busy}
        onConfirm={() =>
          void action.run((api) => api.post<CreditGrant>(`/api/v1/credit_grants/${encodeURIComponent(g.id)}/void`)).then((r) => r && props.onVoided(r))
        }
      />
      {action.problem && <ProblemMessage problem={action.problem} />}
    </>
  );
}

const grantColumns = (onVoided: (g: CreditGrant) => void): Column<CreditGrant>[] => [
  { label: 'Source', cell: (g) => g.source },
  { label: 'Amount', cell: (g) => <span class="amount">{formatAmount(g.amount, g.currency)}</span> },
  { label: 'Left', cell: (g) => formatAmount(g.remaining, g.currency) },
  { label: 'Status', cell: (g) => g.status },
  { label: 'Priority', cell: (g) => String(g.priority) },
  { label: 'Expires', cell: (g) => formatExpiry(g.expiresAt) },
  { label: 'Actions', cell: (g) => voidable(g) && <VoidGrant grant={g} onVoided={onVoided} /> },
];

const ledgerColumns: Column<LedgerEntry>[] = [
  { label: 'When', cell: (e) => formatInstant(e.occurredAt) },
  { label: 'Type', cell: (e) => e.type.replace('_', '-') },
  { label: 'Amount', cell: (e) => <span class="amount">{formatSignedAmount(e.amount, e.currency)}</span> },
  { label: 'Balance after', cell: (e) => formatAmount(e.balanceAfter, e.currency) },
  { label: 'Invoice', cell: (e) => (e.invoiceId ? <Link href={hrefOf('invoice', { id: e.invoiceId })}>{e.invoiceId}</Link> : NONE) },
];

/** A small table of what one load returned (no paging), scrolling sideways in its own region as PagedTable's do. */
function PlainTable<T>(props: { caption: string; heads: string[]; rows: T[]; row: (r: T) => ComponentChildren[]; empty: string }) {
  return (
    <div class="table-scroll" role="region" aria-label={props.caption} tabIndex={0}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.heads.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r, i) => (
            <tr key={i}>
              {props.row(r).map((c, j) => (
                <td key={j}>{c}</td>
              ))}
            </tr>
          ))}
          {props.rows.length === 0 && (
            <tr>
              <td colSpan={props.heads.length}>{props.empty}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

const topUp = (s: CreditSettings) => {
  const t = s.autoTopUp;
  if (!t) return [NONE, NONE, NONE, NONE];
  return [
    formatAmount(t.threshold, s.currency),
    `${formatAmount(t.amount, s.currency)} for ${formatAmount(t.cost, s.currency)}`,
    `${t.toppedUpThisPeriod} of ${t.maxPerPeriod}`,
    t.armed ? 'ready' : 'waiting for the last top-up to be paid',
  ];
};

function GrantForm(props: { customerId: string; currency: string; onGranted: (g: CreditGrant) => void }) {
  const action = useAction<CreditGrant>();
  // One key per grant, kept through refusals (the server stores none), so a retry after a lost answer grants once.
  const key = useRef<string | null>(null);

  async function submit(form: HTMLFormElement) {
    const body = grantBody(formValues(form), props.customerId);
    const idempotencyKey = (key.current ??= crypto.randomUUID());
    const grant = await action.run((api) => api.post<CreditGrant>('/api/v1/credit_grants', body, { 'idempotency-key': idempotencyKey }));
    if (!grant) return;
    key.current = null;
    form.reset();
    props.onGranted(grant);
  }

  return (
    <NewForm action={action} inputs={INPUTS} submit="Grant credits" onSubmit={(f) => void submit(f)}>
      {(errors) => (
        <>
          <TextField name="amount" label="Amount" hint="Greater than 0, such as 50.00." inputMode="decimal" autoComplete="off" required errors={errors} />
          <TextField
            name="currency"
            label="Currency"
            hint="ISO 4217, such as USD."
            defaultValue={props.currency}
            autoComplete="off"
            spellcheck={false}
            required
            errors={errors}
          />
          <TextField
            name="priority"
            label="Priority (optional)"
            hint="0 to 100, a lower number drawn first; 50 if empty."
            inputMode="numeric"
            autoComplete="off"
            errors={errors}
          />
          <TextField name="expiresAt" label="Expires (optional)" type="date" hint="At the start of this day, UTC; never if empty." errors={errors} />
          <SelectField name="source" label="Source" options={SOURCES} defaultValue="promotional" errors={errors} />
        </>
      )}
    </NewForm>
  );
}

export function CustomerCredits(props: { customerId: string; name: string }) {
  const id = encodeURIComponent(props.customerId);
  const [round, setRound] = useState(0);
  const [said, setSaid] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const balance = useApi((api) => api.get<CreditBalance>(`/api/v1/customers/${id}/credit_balance`), [id, round]);
  const balances = useKept(balance)?.balances;
  const subscriptions = useApi(
    (api) => api.list<{ currency: string; status: string }>('/api/v1/subscriptions', null, 100, { customerId: props.customerId }),
    [props.customerId],
  );
  const settings = useApi((api) => api.get<ListPage<CreditSettings>>(`/api/v1/customers/${id}/credit_settings`), [id]);
  // The form's currency: what the customer's subscriptions bill in (a grant must be), else what it has credits in.
  const billing = subscriptions.state === 'ok' ? subscriptions.data.data.find((s) => s.status !== 'CANCELLED')?.currency : undefined;
  const currency = billing ?? balances?.[0]?.currency ?? 'USD';
  const changed = (message: string) => {
    setSaid(message);
    setRound((r) => r + 1);
  };
  // A viewer (or a key without admin) is refused every credit route: one message says so.
  const refused = balance.state === 'error' && balance.problem.status === 403;

  return (
    <section class="detail-section credits" aria-labelledby="credits-title">
      <h2 id="credits-title" tabIndex={-1} ref={heading}>
        Prepaid credits
      </h2>
      <p role="status">{said}</p>
      {balance.state === 'error' && <ProblemMessage problem={balance.problem} />}
      {balance.state === 'loading' && !balances && <p class="muted">Loading…</p>}
      {!refused && (
        <>
          {balances && (
            <PlainTable
              caption={`Credit balance of ${props.name}`}
              heads={['Currency', 'Balance', 'Updated']}
              rows={balances}
              row={(b) => [b.currency, <span class="amount">{formatAmount(b.balance, b.currency)}</span>, formatInstant(b.updatedAt)]}
              empty="No credits."
            />
          )}
          <h3>Grants</h3>
          <PagedTable
            key={round}
            path="/api/v1/credit_grants"
            query={{ customerId: props.customerId }}
            caption={`Credit grants of ${props.name}, newest first`}
            columns={grantColumns((g) => {
              changed(`Voided what was left of the ${g.source} grant of ${formatAmount(g.amount, g.currency)}.`);
              heading.current?.focus();
            })}
            empty="No credit grants."
            stacked
          />
          <h3>Ledger</h3>
          <PagedTable
            key={round}
            path={`/api/v1/customers/${id}/credit_ledger`}
            caption={`Credit ledger of ${props.name}, newest first`}
            columns={ledgerColumns}
            empty="No ledger entries."
          />
          <h3>Grant credits</h3>
          {subscriptions.state !== 'loading' && (balances || balance.state === 'error') && (
            <GrantForm
              key={currency}
              customerId={props.customerId}
              currency={currency}
              onGranted={(g) => changed(`Granted ${formatAmount(g.amount, g.currency)} of ${g.source} credits.`)}
            />
          )}
          {settings.state === 'error' && <ProblemMessage problem={settings.problem} />}
          {settings.state === 'ok' && settings.data.data.length > 0 && (
            <>
              <h3>Settings</h3>
              <PlainTable
                caption={`Credit settings of ${props.name}`}
                heads={['Currency', 'Low-balance alert below', 'Top-up below', 'Top-up', 'Top-ups this period', 'Top-up state']}
                rows={settings.data.data}
                row={(s) => [s.currency, formatAmount(s.lowBalanceThreshold, s.currency), ...topUp(s)]}
                empty="No settings."
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
