/**
 * An invoice's payments and Stripe's attempts, oldest first; for an admin, Retry payment (charge
 * the card on file now, while the server would take it: finalized, owing, Stripe connected, no
 * attempt in flight) with its outcome, and, while the invoice is finalized or
 * uncollectible with something owed, the form that records money which arrived outside Tollgate
 * (a bank transfer, a cheque). The request carries an Idempotency-Key made for the payment being
 * recorded and kept until one is recorded: a double click, or a retry after the answer was lost,
 * records it once. A viewer sees the payments and no form (the server would refuse it anyway).
 * A paid invoice's refunds and the Refund form follow (invoice-refunds.tsx).
 */
import { useRef, useState } from 'preact/hooks';
import { TextField } from '../components/field-errors.js';
import { NewForm } from '../components/managed-list.js';
import { ProblemMessage } from '../components/problem-message.js';
import { useConsole } from '../context.js';
import { formatAmount, formatInstant, NONE } from '../format.js';
import {
  attemptOutcomeText,
  attemptText,
  canRecordPayment,
  canRetryPayment,
  failureText,
  providerText,
  recordedText,
  recordPaymentBody,
  utcDayOf,
} from '../payments.js';
import { formValues, useAction, useKept } from '../use-action.js';
import { useApi } from '../use-api.js';
import { InvoiceRefunds } from './invoice-refunds.js';
import type { Invoice } from './invoices.js';

interface Payment {
  id: string;
  provider: string;
  amount: string;
  currency: string;
  reference: string | null;
  paidAt: string | null;
  status: string;
  attempt: number | null;
  trigger: string | null;
  providerReference: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  actionUrl: string | null;
  createdAt: string;
}

type RecordedPayment = Payment & { invoice: Invoice };

const INPUTS = ['amount', 'paidAt', 'reference'] as const;

function PaymentList(props: { payments: Payment[] | null; caption: string }) {
  const rows = props.payments ?? [];
  return (
    <div class="table-scroll" role="region" aria-label={props.caption} tabIndex={0}>
      <table aria-busy={props.payments === null ? 'true' : 'false'}>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col">How</th>
            <th scope="col">Reference</th>
            <th scope="col">Status</th>
            <th scope="col">Attempt</th>
            <th scope="col">Failure</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <tr key={p.id}>
              <td>{formatInstant(p.paidAt ?? p.createdAt)}</td>
              <td class="num amount">{formatAmount(p.amount, p.currency)}</td>
              <td>{providerText(p.provider)}</td>
              <td>{p.reference ?? p.providerReference ?? NONE}</td>
              <td>{p.status.replace('_', ' ')}</td>
              <td>{attemptText(p) ?? NONE}</td>
              <td>{failureText(p.failureCode, p.failureMessage) ?? NONE}</td>
            </tr>
          ))}
          {props.payments !== null && rows.length === 0 && (
            <tr>
              <td colSpan={7}>No payments yet.</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

function RecordPayment(props: { invoice: Invoice; onRecorded: (recorded: RecordedPayment) => void }) {
  const i = props.invoice;
  const action = useAction<RecordedPayment>();
  // One key per payment being recorded: kept through failures (the server stores nothing for
  // them), dropped once one is recorded, so the next payment gets its own.
  const key = useRef<string | null>(null);
  const today = utcDayOf(Date.now());

  async function submit(form: HTMLFormElement) {
    const v = formValues(form);
    const body = recordPaymentBody({ amount: v.amount ?? '', paidOn: v.paidAt ?? '', reference: v.reference ?? '' }, today);
    key.current ??= crypto.randomUUID();
    const idempotencyKey = key.current;
    const recorded = await action.run((api) =>
      api.post<RecordedPayment>(`/api/v1/invoices/${encodeURIComponent(i.id)}/payments`, body, { 'idempotency-key': idempotencyKey }),
    );
    if (!recorded) return;
    key.current = null;
    props.onRecorded(recorded);
  }

  return (
    <section class="record-payment" aria-labelledby="record-payment-title">
      <h3 id="record-payment-title">Record a payment</h3>
      <p class="muted">Money that reached you outside Tollgate: a bank transfer, a cheque.</p>
      <div class="new-form">
        <NewForm action={action} inputs={INPUTS} submit="Record payment" onSubmit={(f) => void submit(f)}>
          {(errors) => (
            <>
              <TextField
                name="amount"
                label={`Amount (${i.currency})`}
                hint={`At most what is still owed: ${formatAmount(i.amountRemaining, i.currency)}.`}
                defaultValue={i.amountRemaining}
                inputMode="decimal"
                autoComplete="off"
                required
                errors={errors}
              />
              <TextField name="paidAt" label="Date it arrived (UTC)" type="date" defaultValue={today} errors={errors} />
              <TextField
                name="reference"
                label="Reference (optional)"
                hint="The payer’s or the bank’s, e.g. SEPA 0115-77."
                autoComplete="off"
                errors={errors}
              />
            </>
          )}
        </NewForm>
      </div>
    </section>
  );
}

/** Charges the card on file now (POST …/attempt_payment) and says what came of it; the server's refusals as it words them. */
function RetryPayment(props: { invoice: Invoice; onDone: () => void }) {
  const i = props.invoice;
  const providers = useApi((api) => api.get<{ data: Array<{ provider: string }> }>('/api/v1/payment_providers'), []);
  const action = useAction<Payment>();
  const connected = providers.state === 'ok' && providers.data.data.some((p) => p.provider === 'stripe');
  const outcome = action.result;
  async function retry() {
    // Stripe sends a buyer who authenticates back to the developer hub's invoices.
    const returnUrl = `${window.location.origin}/hub/billing?invoice=${encodeURIComponent(i.id)}`;
    if (await action.run((api) => api.post<Payment>(`/api/v1/invoices/${encodeURIComponent(i.id)}/attempt_payment`, { returnUrl }))) props.onDone();
  }
  return (
    <div class="retry-payment">
      {canRetryPayment(i, connected) && (
        <button type="button" disabled={action.busy} onClick={() => void retry()}>
          Retry payment
        </button>
      )}
      <p role="status" class={outcome ? 'notice' : undefined}>
        {outcome && attemptOutcomeText(outcome)} {outcome?.actionUrl && <a href={outcome.actionUrl}>The buyer’s page</a>}
      </p>
      {action.problem && <ProblemMessage problem={action.problem} />}
    </div>
  );
}

export function InvoicePayments(props: { invoice: Invoice; onRecorded: () => void }) {
  const i = props.invoice;
  const { session } = useConsole();
  const loaded = useApi((api) => api.get<{ data: Payment[] }>(`/api/v1/invoices/${encodeURIComponent(i.id)}/payments`), [i.id]);
  const payments = useKept(loaded);
  const [recorded, setRecorded] = useState<RecordedPayment | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const admin = session.operator.role === 'admin';
  return (
    <section class="detail-section" aria-labelledby="payments-title">
      <h2 id="payments-title" tabIndex={-1} ref={heading}>
        Payments
      </h2>
      <p role="status" class={recorded ? 'notice' : undefined}>
        {recorded ? recordedText(recorded.amount, recorded.invoice) : ''}
      </p>
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      <PaymentList payments={payments?.data ?? null} caption="Payments, oldest first" />
      {/* Kept once the invoice is paid, so the outcome stays in view. */}
      {admin && i.status !== 'draft' && (
        <RetryPayment
          invoice={i}
          onDone={() => {
            loaded.reload();
            props.onRecorded();
          }}
        />
      )}
      {admin && i.status === 'draft' && <p class="muted">A payment is recorded against the invoice once it is finalized.</p>}
      {admin && canRecordPayment(i) && (
        // Keyed by what is owed: after a partial payment the form starts again, prefilled with the rest.
        <RecordPayment
          key={i.amountRemaining}
          invoice={i}
          onRecorded={(r) => {
            setRecorded(r);
            // The form may be gone (nothing owed) or starts again: focus stays in the section.
            heading.current?.focus();
            loaded.reload();
            props.onRecorded();
          }}
        />
      )}
      {i.status === 'paid' && (
        <InvoiceRefunds
          invoice={i}
          payments={payments?.data ?? null}
          admin={admin}
          onRefunded={() => {
            loaded.reload();
            props.onRecorded();
          }}
        />
      )}
    </section>
  );
}
