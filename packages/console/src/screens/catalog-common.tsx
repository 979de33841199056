/** What the catalog's views share: who may edit, a form's announced success message, currency and period inputs. */
import { billingPeriods, type BillingPeriod } from '@tollgate/pricing';
import { SelectField } from '../components/choice-fields.js';
import { TextField } from '../components/field-errors.js';
import { useConsole } from '../context.js';
import type { FormErrors } from '../errors.js';
import { periodLabel } from '../plan-form.js';

/** Whether to show the editing forms: admins only (the server refuses anyone else anyway). */
export function useCanEdit(): boolean {
  return useConsole().session.operator.role === 'admin';
}

/** A form's success message, announced. */
export function Saved(props: { text: string | null }) {
  return (
    <p role="status" class={props.text ? 'saved' : 'saved empty'}>
      {props.text}
    </p>
  );
}

/** Each period in words (Monthly, not MONTHLY); the value sent is the API's code. */
const PERIODS = billingPeriods.map((p) => ({ value: p, label: periodLabel(p) }));

/** A plan's or an offering's currency and billing period: both fixed once the record exists. */
export function CurrencyAndPeriod(props: {
  currency: string;
  billingPeriod: BillingPeriod;
  onChange: (patch: { currency?: string; billingPeriod?: BillingPeriod }) => void;
  errors: FormErrors;
  fixed?: boolean;
}) {
  return (
    <>
      <TextField
        name="currency"
        label="Currency"
        hint="ISO 4217, e.g. USD; fixed once created."
        value={props.currency}
        onValue={(currency) => props.onChange({ currency })}
        disabled={props.fixed}
        autoComplete="off"
        spellcheck={false}
        errors={props.errors}
      />
      <SelectField
        name="billingPeriod"
        label="Billing period"
        choices={PERIODS}
        value={props.billingPeriod}
        onValue={(v) => props.onChange({ billingPeriod: v as BillingPeriod })}
        disabled={props.fixed}
        errors={props.errors}
      />
    </>
  );
}
