/**
 * The customer's prepaid credits (GET /api/v1/hub/credits): the balance, what is left of each
 * grant soonest expiry first (and purchases not yet paid), the ledger a page at a time, and Buy
 * credits (POST /api/v1/hub/credits/purchases with an Idempotency-Key kept until it succeeds, so a
 * retry buys once): the purchase is pending until its invoice is paid, on its payment page.
 * Small on purpose: the hub's script is near its size budget (test/bundle.test.ts).
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useApiScope } from '../context.js';
import { formErrors, problemFrom, type ApiProblem } from '../errors.js';
import { formatAmount, formatInstant } from '../format.js';
import { useKept } from '../use-action.js';
import { useApi } from '../use-api.js';

interface Grant {
  id: string;
  amount: string;
  remaining: string;
  currency: string;
  expiresAt: string | null;
  status: string;
}

interface Entry {
  id: string;
  type: string;
  amount: string;
  balanceAfter: string;
  currency: string;
  occurredAt: string;
}

interface Purchase {
  grant: Grant;
  invoice: { number: string | null; total: string; hostedInvoiceUrl: string | null };
}

const TYPES: Record<string, string> = { grant: 'Granted', top_up: 'Bought', draw: 'Used', expiry: 'Expired', void: 'Voided', rollover: 'Carried over' };

const ledgerColumns: Column<Entry>[] = [
  { label: 'Date', cell: (e) => formatInstant(e.occurredAt) },
  { label: 'Change', cell: (e) => TYPES[e.type] ?? e.type },
  { label: 'Amount', cell: (e) => formatAmount(e.amount, e.currency) },
  { label: 'Balance after', cell: (e) => formatAmount(e.balanceAfter, e.currency) },
];

const money = (g: Grant, amount: string) => formatAmount(amount, g.currency);

export function Credits() {
  const [round, setRound] = useState(0);
  const loaded = useApi(
    (a) => a.get<{ balances: Array<{ currency: string; balance: string }>; grants: Grant[]; purchaseCurrencies: string[] }>('/api/v1/hub/credits'),
    [round],
  );
  const c = useKept(loaded);
  const [bought, setBought] = useState<Purchase | null>(null);
  return (
    <>
      <ScreenTitle>Credits</ScreenTitle>
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {c && (
        <>
          <h2>Balance</h2>
          <div class="cards">
            {c.balances.length === 0 && <p>You have no credits yet.</p>}
            {c.balances.map((b) => (
              <p class="card figure" key={b.currency}>
                {formatAmount(b.balance, b.currency)}
              </p>
            ))}
          </div>
          <h2 id="left-title">Credits left, soonest to expire first</h2>
          <ul aria-labelledby="left-title">
            {c.grants.map((g) => (
              <li key={g.id}>
                {g.status === 'pending'
                  ? `${money(g, g.amount)} bought: added once its invoice is paid`
                  : `${money(g, g.remaining)} left of ${money(g, g.amount)}, ${g.expiresAt ? `expires ${formatInstant(g.expiresAt)}` : 'never expires'}`}
              </li>
            ))}
            {c.grants.length === 0 && <li>None.</li>}
          </ul>
          <div role="status">
            {bought && (
              <div class="new-secret">
                <p>
                  Purchase pending: {money(bought.grant, bought.grant.amount)} of credits, on invoice {bought.invoice.number} for{' '}
                  {money(bought.grant, bought.invoice.total)}. They are added to your balance once it is paid.
                </p>
                {bought.invoice.hostedInvoiceUrl && <a href={bought.invoice.hostedInvoiceUrl}>Pay invoice {bought.invoice.number}</a>}
              </div>
            )}
          </div>
          <Buy
            currencies={c.purchaseCurrencies}
            onBought={(p) => {
              setBought(p);
              setRound((r) => r + 1);
            }}
          />
        </>
      )}
      <div class="hub-section">
        <PagedTable path="/api/v1/hub/credits/ledger" caption="Your credit ledger, newest first" columns={ledgerColumns} empty="No changes yet." stacked />
      </div>
    </>
  );
}

// The currency's refusals go above the form: it is often not an input at all.
const INPUTS = ['amount'];

/** Amount, and the currency when the customer's subscriptions bill in more than one. */
function Buy(props: { currencies: string[]; onBought: (p: Purchase) => void }) {
  const { api, signedOut } = useApiScope();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  // One purchase, one key: a retry after a lost answer buys once; a new key once it succeeded.
  const key = useRef<string | null>(null);
  const errors = formErrors(problem, INPUTS);
  const [one] = props.currencies;

  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    setProblem(null);
    try {
      key.current ??= crypto.randomUUID();
      const body = { amount: data.get('amount'), currency: data.get('currency') ?? one };
      props.onBought(await api.post<Purchase>('/api/v1/hub/credits/purchases', body, { 'Idempotency-Key': key.current }));
      key.current = null;
      form.reset();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
    }
    setBusy(false);
  }

  return (
    <section aria-labelledby="buy-title" class="hub-section create-key">
      <h2 id="buy-title">Buy credits</h2>
      {one ? (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <FormAlert messages={errors.general} />
          <TextField name="amount" label={props.currencies.length > 1 ? 'Amount' : `Amount (${one})`} errors={errors} inputMode="decimal" required />
          {props.currencies.length > 1 && (
            <div class="field">
              <label for="field-currency">Currency</label>
              <select id="field-currency" name="currency">
                {props.currencies.map((x) => (
                  <option key={x}>{x}</option>
                ))}
              </select>
            </div>
          )}
          <button type="submit" class="primary" disabled={busy}>
            Buy credits
          </button>
        </form>
      ) : (
        <p>You need a subscription to buy credits.</p>
      )}
    </section>
  );
}
