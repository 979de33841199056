/**
 * Offerings: what a buyer subscribes to (a product, an entry price, rate plans of its currency and
 * period), newest first; and a form to create one. The price column uses pricing's wording.
 */
import { useState } from 'preact/hooks';
import { formatPeriodPrice, isCurrencyCode, isDecimalString, type BillingPeriod } from '@tollgate/pricing';
import { CheckboxGroup, itemInputs, SelectField, type Choice } from '../components/choice-fields.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { formErrors } from '../errors.js';
import { formatInstant } from '../format.js';
import { quantityOf, type RatePlanRecord } from '../plan-form.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { CurrencyAndPeriod, Saved, useCanEdit } from './catalog-common.js';

export interface OfferingRecord {
  id: string;
  name: string;
  productId: string;
  currency: string;
  entryPrice: string | null;
  billingPeriod: BillingPeriod;
  trialDays: number;
  ratePlanIds: string[];
  updatedAt: string;
}

/** The entry price as the pricing page shows it ("$49.00/mo"); "Usage only" without one. */
export function entryPriceText(o: Pick<OfferingRecord, 'entryPrice' | 'currency' | 'billingPeriod'>): string {
  if (o.entryPrice === null) return 'Usage only';
  if (!isDecimalString(o.entryPrice) || !isCurrencyCode(o.currency)) return `${o.entryPrice} ${o.currency}`;
  return formatPeriodPrice(o.entryPrice, o.currency, o.billingPeriod);
}

const columns: Column<OfferingRecord>[] = [
  { label: 'Name', cell: (o) => o.name },
  { label: 'Entry price', cell: (o) => entryPriceText(o) },
  { label: 'Rate plans', cell: (o) => o.ratePlanIds.join(', ') || 'None' },
  { label: 'Trial', cell: (o) => (o.trialDays > 0 ? `${o.trialDays} days` : 'None') },
  { label: 'Id', cell: (o) => <code>{o.id}</code> },
  { label: 'Updated', cell: (o) => formatInstant(o.updatedAt) },
];

export function Offerings() {
  const [round, setRound] = useState(0);
  return (
    <>
      <h2>Offerings</h2>
      {useCanEdit() && <OfferingForm onSaved={() => setRound(round + 1)} />}
      <PagedTable key={round} path="/api/v1/offerings" caption="Offerings, newest first" columns={columns} empty="No offerings in this environment yet." />
    </>
  );
}

const INPUTS = ['productId', 'name', 'currency', 'billingPeriod', 'entryPrice', 'trialDays', ...itemInputs('ratePlanIds', 20)];

const blank = {
  id: '',
  productId: '',
  name: '',
  currency: 'USD',
  billingPeriod: 'MONTHLY' as BillingPeriod,
  entryPrice: '',
  trialDays: '',
  ratePlanIds: [] as string[],
};

/** The form of a stored offering: its product, currency and period are shown but fixed. */
function formOf(o: OfferingRecord): typeof blank {
  const { id, productId, name, currency, billingPeriod, ratePlanIds } = o;
  return { id, productId, name, currency, billingPeriod, ratePlanIds, entryPrice: o.entryPrice ?? '', trialDays: o.trialDays > 0 ? String(o.trialDays) : '' };
}

/** A new offering, or a change to one chosen from the first hundred. */
function OfferingForm(props: { onSaved: () => void }) {
  const offerings = useApi((api) => api.list<OfferingRecord>('/api/v1/offerings', null, 100), []);
  const products = useApi((api) => api.list<{ id: string; name: string }>('/api/v1/products', null, 100), []);
  const plans = useApi((api) => api.list<RatePlanRecord>('/api/v1/rate-plans', null, 100), []);
  const { busy, problem, run } = useSubmit();
  const [saved, setSaved] = useState<string | null>(null);
  const [form, setForm] = useState(blank);
  const editing = form.id !== '';
  const stored = offerings.state === 'ok' ? offerings.data.data : [];
  const which: Choice[] = [{ value: '', label: 'A new offering' }, ...stored.map((o) => ({ value: o.id, label: `${o.name} (${o.id})` }))];
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch });
  const errors = formErrors(problem, INPUTS);
  const productChoices: Choice[] = [
    { value: '', label: 'Choose a product' },
    ...(products.state === 'ok' ? products.data.data.map((p) => ({ value: p.id, label: p.name })) : []),
  ];
  // Only plans of the offering's currency and period can be on it (the API says so otherwise).
  const planChoices: Choice[] = (plans.state === 'ok' ? plans.data.data : [])
    .filter((p) => p.currency === form.currency.trim() && p.billingPeriod === form.billingPeriod)
    .map((p) => ({ value: p.id, label: `${p.name} (${p.id})` }));

  async function submit(e: Event) {
    e.preventDefault();
    setSaved(null);
    // Empty entry price: usage only (null); empty trial: none (0). A new offering leaves both out.
    const change = {
      name: form.name.trim(),
      entryPrice: form.entryPrice.trim() === '' ? null : form.entryPrice.trim(),
      trialDays: quantityOf(form.trialDays) ?? 0,
      ratePlanIds: form.ratePlanIds,
    };
    const body = { productId: form.productId, currency: form.currency.trim(), billingPeriod: form.billingPeriod, ...change };
    const id = form.id;
    const o = await run((api) =>
      id === '' ? api.post<OfferingRecord>('/api/v1/offerings', body) : api.patch<OfferingRecord>(`/api/v1/offerings/${encodeURIComponent(id)}`, change),
    );
    if (!o) return;
    setSaved(`Offering ${o.name} ${id === '' ? 'created' : 'saved'} (${o.id}).`);
    setForm(formOf(o));
    offerings.reload();
    props.onSaved();
  }

  return (
    <form class="panel" onSubmit={(e) => void submit(e)} aria-labelledby="new-offering" aria-busy={busy ? 'true' : 'false'}>
      <h3 id="new-offering">Create or change an offering</h3>
      {offerings.state === 'error' && <ProblemMessage problem={offerings.problem} />}
      {products.state === 'error' && <ProblemMessage problem={products.problem} />}
      {plans.state === 'error' && <ProblemMessage problem={plans.problem} />}
      <FormAlert messages={errors.general} />
      <SelectField
        name="offering"
        label="Offering"
        choices={which}
        value={form.id}
        onValue={(id) => {
          const o = stored.find((x) => x.id === id);
          setForm(o ? formOf(o) : blank);
        }}
        errors={errors}
      />
      <SelectField
        name="productId"
        label="Product"
        choices={productChoices}
        value={form.productId}
        onValue={(productId) => set({ productId })}
        disabled={editing}
        errors={errors}
      />
      <TextField name="name" label="Name" value={form.name} onValue={(name) => set({ name })} autoComplete="off" errors={errors} />
      <div class="field-row">
        <CurrencyAndPeriod
          currency={form.currency}
          billingPeriod={form.billingPeriod}
          onChange={(patch) => set({ ...patch, ratePlanIds: [] })}
          fixed={editing}
          errors={errors}
        />
        <TextField
          name="entryPrice"
          label="Entry price per period (optional)"
          inputMode="decimal"
          value={form.entryPrice}
          onValue={(entryPrice) => set({ entryPrice })}
          errors={errors}
        />
        <TextField
          name="trialDays"
          label="Trial days (optional)"
          inputMode="numeric"
          value={form.trialDays}
          onValue={(trialDays) => set({ trialDays })}
          errors={errors}
        />
      </div>
      <CheckboxGroup
        name="ratePlanIds"
        legend="Rate plans (of this currency and period)"
        choices={planChoices}
        selected={form.ratePlanIds}
        onSelected={(ratePlanIds) => set({ ratePlanIds })}
        empty="No rate plan of this currency and period yet."
        errors={errors}
      />
      <button type="submit" class="primary" disabled={busy}>
        {editing ? 'Save offering' : 'Create offering'}
      </button>
      <Saved text={saved} />
    </form>
  );
}
