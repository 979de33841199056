/**
 * A paid invoice's refunds, newest first, and for an admin the Refund form: a credit note of the
 * amount (POST /api/v1/credit_notes) that gives it back through Stripe, as returned outside
 * Tollgate, or to the customer's balance; then the credit note's number and each refund's status
 * (pending while Stripe has not answered: the server asks again, never twice). The amount starts
 * at what may still go back (refundableOf, as the API judges it); the API's refusals show at the
 * field they name. One Idempotency-Key per refund, kept until one is issued, as Record payment does.
 */
import { useRef, useState } from 'preact/hooks';
import { TextField } from '../components/field-errors.js';
import { NewForm } from '../components/managed-list.js';
import { ProblemMessage } from '../components/problem-message.js';
import { SelectField } from '../components/select-field.js';
import { formatAmount, formatInstant } from '../format.js';
import { canRefund, defaultRefundMethod, REFUND_METHODS, refundableOf, refundBody, refundProblem, refundText, type Refund } from '../payments.js';
import { formValues, useAction, useKept } from '../use-action.js';
import { useApi } from '../use-api.js';
import type { Invoice } from './invoices.js';

type IssuedCreditNote = { number: string; refunds: Refund[] };

const INPUTS = ['refund.amount', 'refund.method', 'reason'];
const REASONS = ['', 'duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory', 'other'].map((r) => [r, r.replace('_', ' ') || 'Choose…'] as const);

function RefundForm(props: { invoice: Invoice; refundable: string; method: string; onIssued: (note: IssuedCreditNote) => void }) {
  const i = props.invoice;
  const action = useAction<IssuedCreditNote>();
  // One key per refund: kept through failures (the server stores nothing for them), so a retry after a lost answer refunds once.
  const key = useRef<string | null>(null);

  async function submit(form: HTMLFormElement) {
    const body = refundBody(formValues(form), i.id);
    const idempotencyKey = (key.current ??= crypto.randomUUID());
    const note = await action.run((api) => api.post<IssuedCreditNote>('/api/v1/credit_notes', body, { 'idempotency-key': idempotencyKey }));
    if (!note) return;
    // Issued: the next refund is another, with a key of its own (the form may stay, if what may go back is unchanged).
    key.current = null;
    props.onIssued(note);
  }

  return (
    <div class="new-form">
      <NewForm action={{ ...action, problem: refundProblem(action.problem) }} inputs={INPUTS} submit="Refund" onSubmit={(f) => void submit(f)}>
        {(errors) => (
          <>
            <TextField
              name="refund.amount"
              label={`Amount (${i.currency})`}
              hint={`At most what was paid and not yet refunded or credited: ${formatAmount(props.refundable, i.currency)}.`}
              defaultValue={props.refundable}
              inputMode="decimal"
              autoComplete="off"
              required
              errors={errors}
            />
            <SelectField name="refund.method" label="How" options={Object.entries(REFUND_METHODS)} defaultValue={props.method} errors={errors} />
            <SelectField name="reason" label="Reason" options={REASONS} errors={errors} />
          </>
        )}
      </NewForm>
    </div>
  );
}

export function InvoiceRefunds(props: {
  invoice: Invoice;
  payments: Array<{ provider: string; status: string }> | null;
  admin: boolean;
  onRefunded: () => void;
}) {
  const i = props.invoice;
  // Loaded again when the invoice's credited total changes: after a refund, whoever made it.
  const loaded = useApi((api) => api.get<{ data: Refund[] }>('/api/v1/refunds', { invoiceId: i.id, limit: 100 }), [i.id, i.creditedTotal]);
  const refunds = useKept(loaded)?.data;
  const [issued, setIssued] = useState<IssuedCreditNote | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const refundable = refunds && refundableOf(i, refunds);
  return (
    <section class="refunds" aria-labelledby="refunds-title">
      <h3 id="refunds-title" tabIndex={-1} ref={heading}>
        Refunds
      </h3>
      <p role="status" class={issued ? 'notice' : undefined}>
        {issued && `Credit note ${issued.number} issued. ${issued.refunds.map(refundText).join(' ')}`}
      </p>
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      <ul class="plain" aria-label="Refunds, newest first">
        {refunds?.map((r) => (
          <li key={r.id}>
            {formatInstant(r.createdAt)} — {refundText(r)}
          </li>
        ))}
        {refunds?.length === 0 && <li>No refunds yet.</li>}
      </ul>
      {props.admin && props.payments && refundable && canRefund(i, refundable) && (
        // Keyed by what may go back: after a partial refund the form starts again with the rest.
        <RefundForm
          key={refundable}
          invoice={i}
          refundable={refundable}
          method={defaultRefundMethod(props.payments)}
          onIssued={(note) => {
            setIssued(note);
            heading.current?.focus();
            props.onRefunded();
          }}
        />
      )}
    </section>
  );
}
