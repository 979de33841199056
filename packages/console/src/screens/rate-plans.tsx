/**
 * Rate plans: the list, and the editor (a new plan at /catalog/rate-plans/new, which takes the
 * plan's own address once created) with a form per pricing model and, beside it, the pricing
 * page's wording for the plan as it is typed. Metrics and periods read as people read them, not
 * as the API's codes.
 */
import { useEffect, useState } from 'preact/hooks';
import { pricingModels, type PricingModel } from '@tollgate/pricing';
import { SelectField, type Choice } from '../components/choice-fields.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { PlanPreview } from '../components/plan-preview.js';
import { ProblemMessage } from '../components/problem-message.js';
import { formErrors, type FormErrors } from '../errors.js';
import { formatInstant } from '../format.js';
import { navigate } from '../navigation.js';
import { hrefOf } from '../routes.js';
import {
  draftOf,
  emptyTier,
  fieldsOf,
  metricChoices,
  MODEL_LABELS,
  newPlan,
  newUnit,
  periodLabel,
  planBody,
  planInputs,
  previewOf,
  rateLabelOf,
  unitsText,
  withModel,
  type MetricLabels,
  type PlanDraft,
  type RatePlanRecord,
  type TierDraft,
  type UnitDraft,
} from '../plan-form.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { CurrencyAndPeriod, Saved, useCanEdit } from './catalog-common.js';
import type { MetricRecord } from './metrics.js';

const columnsWith = (metrics: readonly MetricLabels[]): Column<RatePlanRecord>[] => [
  { label: 'Name', cell: (p) => <Link href={hrefOf('catalog-rate-plan', { id: p.id })}>{p.name}</Link> },
  { label: 'Currency', cell: (p) => p.currency },
  { label: 'Period', cell: (p) => periodLabel(p.billingPeriod) },
  { label: 'Units', cell: (p) => unitsText(p.metrics, metrics) },
  { label: 'Version', cell: (p) => p.version },
  { label: 'Updated', cell: (p) => formatInstant(p.updatedAt) },
];

export function RatePlans() {
  // The metrics name the units; until they arrive, a unit reads as its name made readable.
  const metrics = useApi((api) => api.list<MetricRecord>('/api/v1/metrics', null, 100), []);
  const columns = columnsWith(metrics.state === 'ok' ? metrics.data.data : []);
  return (
    <>
      <h2>Rate plans</h2>
      {useCanEdit() && (
        <p>
          <Link href={hrefOf('catalog-rate-plan', { id: 'new' })} class="button-link">
            New rate plan
          </Link>
        </p>
      )}
      <PagedTable path="/api/v1/rate-plans" caption="Rate plans, newest first" columns={columns} empty="No rate plans in this environment yet." />
    </>
  );
}

const MODEL_CHOICES: Choice[] = pricingModels.map((m) => ({ value: m, label: MODEL_LABELS[m] }));

/** A new plan (id `new`) or a stored one: loaded once, then the form owns the draft. */
export function RatePlanEditor(props: { id: string }) {
  const [planId, setPlanId] = useState<string | null>(props.id === 'new' ? null : props.id);
  const loaded = useApi(
    (api) => (props.id === 'new' ? Promise.resolve(null) : api.get<RatePlanRecord>(`/api/v1/rate-plans/${encodeURIComponent(props.id)}`)),
    [props.id],
  );
  const metrics = useApi((api) => api.list<MetricRecord>('/api/v1/metrics', null, 100), []);
  const [draft, setDraft] = useState<PlanDraft | null>(props.id === 'new' ? newPlan() : null);
  useEffect(() => {
    if (loaded.state === 'ok' && loaded.data) setDraft(draftOf(loaded.data));
  }, [loaded.state]);

  const list = metrics.state === 'ok' ? metrics.data.data : [];
  return (
    <>
      <h2>{planId === null ? 'New rate plan' : `Rate plan ${draft?.name ?? ''}`}</h2>
      <p>
        <Link href={hrefOf('catalog-rate-plans')}>All rate plans</Link>
      </p>
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {metrics.state === 'error' && <ProblemMessage problem={metrics.problem} />}
      {draft === null ? <p class="muted">Loading…</p> : <PlanForm draft={draft} setDraft={setDraft} planId={planId} onCreated={setPlanId} metrics={list} />}
    </>
  );
}

function PlanForm(props: {
  draft: PlanDraft;
  setDraft: (d: PlanDraft) => void;
  planId: string | null;
  onCreated: (id: string) => void;
  metrics: MetricRecord[];
}) {
  const { draft, setDraft } = props;
  const { busy, problem, run } = useSubmit();
  const [saved, setSaved] = useState<string | null>(null);
  const canEdit = useCanEdit();
  const errors = formErrors(problem, planInputs(draft));
  const set = (patch: Partial<PlanDraft>) => setDraft({ ...draft, ...patch });
  const setUnit = (i: number, u: UnitDraft | null) =>
    set({ metrics: u === null ? draft.metrics.filter((_, k) => k !== i) : draft.metrics.map((x, k) => (k === i ? u : x)) });

  async function submit(e: Event) {
    e.preventDefault();
    setSaved(null);
    const body = planBody(draft);
    const id = props.planId;
    const plan = await run((api) =>
      id === null
        ? api.post<RatePlanRecord>('/api/v1/rate-plans', body)
        : api.patch<RatePlanRecord>(`/api/v1/rate-plans/${encodeURIComponent(id)}`, { name: body.name, metrics: body.metrics }),
    );
    if (!plan) return;
    props.onCreated(plan.id);
    // The new plan's own address, in place of …/new: a reload or a bookmark opens this plan, and
    // Back goes where it went before the form. The form and its message stay (same screen).
    if (id === null) navigate(hrefOf('catalog-rate-plan', { id: plan.id }), { replace: true });
    setSaved(id === null ? `Rate plan ${plan.name} created (${plan.id}).` : `Rate plan ${plan.name} saved (version ${plan.version}).`);
  }

  return (
    <div class="plan-editor">
      <form onSubmit={(e) => void submit(e)} aria-label="Rate plan" aria-busy={busy ? 'true' : 'false'}>
        <FormAlert messages={errors.general} />
        <TextField name="name" label="Name" value={draft.name} onValue={(name) => set({ name })} autoComplete="off" errors={errors} />
        <div class="field-row">
          <CurrencyAndPeriod currency={draft.currency} billingPeriod={draft.billingPeriod} onChange={set} fixed={props.planId !== null} errors={errors} />
        </div>
        {draft.metrics.map((u, i) => (
          <UnitFields key={i} index={i} unit={u} errors={errors} metrics={props.metrics} onChange={(x) => setUnit(i, x)} />
        ))}
        <p>
          <button type="button" onClick={() => set({ metrics: [...draft.metrics, newUnit()] })}>
            Add a billable unit
          </button>
        </p>
        {canEdit && (
          <button type="submit" class="primary" disabled={busy}>
            {props.planId === null ? 'Create rate plan' : 'Save rate plan'}
          </button>
        )}
        <Saved text={saved} />
      </form>
      <PlanPreview preview={previewOf(draft, props.metrics)} />
    </div>
  );
}

function UnitFields(props: { index: number; unit: UnitDraft; errors: FormErrors; metrics: readonly MetricLabels[]; onChange: (u: UnitDraft | null) => void }) {
  const { unit: u, errors } = props;
  const at = `metrics.${props.index}`;
  const f = fieldsOf(u.pricingModel);
  const set = (patch: Partial<UnitDraft>) => props.onChange({ ...u, ...patch });
  const setTier = (j: number, t: TierDraft | null) => set({ tiers: t === null ? u.tiers.filter((_, k) => k !== j) : u.tiers.map((x, k) => (k === j ? t : x)) });
  const n = props.index + 1;
  return (
    <fieldset class="unit">
      <legend>Billable unit {n}</legend>
      <div class="field-row">
        <SelectField
          name={`${at}.metricName`}
          label={`Metric of unit ${n}`}
          choices={metricChoices(props.metrics, u.metricName)}
          value={u.metricName}
          onValue={(metricName) => set({ metricName })}
          errors={errors}
        />
        <SelectField
          name={`${at}.pricingModel`}
          label={`Pricing model of unit ${n}`}
          choices={MODEL_CHOICES}
          value={u.pricingModel}
          onValue={(m) => props.onChange(withModel(u, m as PricingModel))}
          errors={errors}
        />
      </div>
      {/* A metricId error (an unknown metric) belongs to the metric's select. */}
      <FieldsFor errors={errors} names={[`${at}.metricId`, `${at}`, `${at}.tiers`, `${at}.outcomeWeights`]} />
      <div class="field-row">
        {f.rate && (
          <TextField
            name={`${at}.rate`}
            label={rateLabelOf(u.pricingModel)}
            inputMode="decimal"
            value={u.rate}
            onValue={(rate) => set({ rate })}
            errors={errors}
          />
        )}
        {f.includedFree && (
          <TextField
            name={`${at}.includedFree`}
            label="Free units each period"
            inputMode="decimal"
            value={u.includedFree}
            onValue={(includedFree) => set({ includedFree })}
            errors={errors}
          />
        )}
        {f.blockSize && (
          <TextField
            name={`${at}.blockSize`}
            label="Block size (optional)"
            inputMode="numeric"
            value={u.blockSize}
            onValue={(blockSize) => set({ blockSize })}
            errors={errors}
          />
        )}
        {f.minFee && (
          <TextField
            name={`${at}.minFee`}
            label="Minimum fee per period (optional)"
            inputMode="decimal"
            value={u.minFee}
            onValue={(minFee) => set({ minFee })}
            errors={errors}
          />
        )}
      </div>
      {f.tiers &&
        u.tiers.map((t, j) => (
          <fieldset class="band" key={j}>
            <legend>
              Unit {n}, band {j + 1}
            </legend>
            <div class="field-row">
              <TextField
                name={`${at}.tiers.${j}.tierStart`}
                label="Above"
                inputMode="decimal"
                value={t.tierStart}
                onValue={(tierStart) => setTier(j, { ...t, tierStart })}
                errors={errors}
              />
              <TextField
                name={`${at}.tiers.${j}.tierEnd`}
                label="Up to (empty: no end)"
                inputMode="decimal"
                value={t.tierEnd}
                onValue={(tierEnd) => setTier(j, { ...t, tierEnd })}
                errors={errors}
              />
              {f.tierUnitPrice && (
                <TextField
                  name={`${at}.tiers.${j}.unitPrice`}
                  label="Price per unit"
                  inputMode="decimal"
                  value={t.unitPrice}
                  onValue={(unitPrice) => setTier(j, { ...t, unitPrice })}
                  errors={errors}
                />
              )}
              <TextField
                name={`${at}.tiers.${j}.flatFee`}
                label={u.pricingModel === 'STAIRCASE' ? 'Fee for the band' : 'Flat fee (optional)'}
                inputMode="decimal"
                value={t.flatFee}
                onValue={(flatFee) => setTier(j, { ...t, flatFee })}
                errors={errors}
              />
            </div>
            {u.tiers.length > 1 && (
              <button type="button" class="link-button" onClick={() => setTier(j, null)}>
                Remove band {j + 1} of unit {n}
              </button>
            )}
          </fieldset>
        ))}
      {f.tiers && (
        <button type="button" onClick={() => set({ tiers: [...u.tiers, emptyTier(u.tiers[u.tiers.length - 1]?.tierEnd ?? '0')] })}>
          Add a band to unit {n}
        </button>
      )}
      {f.weights && <Weights unit={u} at={at} n={n} set={set} />}
      <p>
        <button type="button" class="link-button" onClick={() => props.onChange(null)}>
          Remove unit {n}
        </button>
      </p>
    </fieldset>
  );
}

/** Errors the API gave a unit as a whole (or a list of it), shown at the top of that unit. */
function FieldsFor(props: { errors: FormErrors; names: string[] }) {
  const messages = props.names.flatMap((k) => props.errors.byInput[k] ?? []);
  if (messages.length === 0) return null;
  return <p class="field-error">{messages.join(' ')}</p>;
}

function Weights(props: { unit: UnitDraft; at: string; n: number; set: (patch: Partial<UnitDraft>) => void }) {
  const { unit: u, at, n, set } = props;
  const none = { byInput: {}, general: [] };
  const setWeight = (k: number, w: UnitDraft['weights'][number] | null) =>
    set({ weights: w === null ? u.weights.filter((_, x) => x !== k) : u.weights.map((x, y) => (y === k ? w : x)) });
  return (
    <fieldset class="band">
      <legend>Unit {n}: weight per execution status (unlisted statuses bill at full price)</legend>
      {u.weights.map((w, k) => (
        <div class="field-row" key={k}>
          <TextField
            name={`${at}.weights.${k}.status`}
            label="Status, e.g. ERROR"
            value={w.status}
            onValue={(status) => setWeight(k, { ...w, status })}
            errors={none}
          />
          <TextField
            name={`${at}.weights.${k}.weight`}
            label="Weight, 0 to 1"
            inputMode="decimal"
            value={w.weight}
            onValue={(weight) => setWeight(k, { ...w, weight })}
            errors={none}
          />
          <button type="button" class="link-button" onClick={() => setWeight(k, null)}>
            Remove weight {k + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => set({ weights: [...u.weights, { status: '', weight: '' }] })}>
        Add a status weight to unit {n}
      </button>
    </fieldset>
  );
}
