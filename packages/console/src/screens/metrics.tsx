/** Billable metrics: the units usage events name, newest first; and a form to create one. */
import { useState } from 'preact/hooks';
import { FormAlert, TextField } from '../components/field-errors.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { formErrors } from '../errors.js';
import { formatInstant, NONE } from '../format.js';
import { useSubmit } from '../use-submit.js';
import { Saved, useCanEdit } from './catalog-common.js';

export interface MetricRecord {
  id: string;
  name: string;
  displayName: string | null;
  unit: string | null;
  createdAt: string;
}

const columns: Column<MetricRecord>[] = [
  { label: 'Name', cell: (m) => <code>{m.name}</code> },
  { label: 'Display name', cell: (m) => m.displayName ?? NONE },
  { label: 'Unit', cell: (m) => m.unit ?? NONE },
  { label: 'Created', cell: (m) => formatInstant(m.createdAt) },
];

const INPUTS = ['name', 'displayName', 'unit'] as const;

export function Metrics() {
  const [round, setRound] = useState(0);
  return (
    <>
      <h2>Metrics</h2>
      {useCanEdit() && <NewMetric onCreated={() => setRound(round + 1)} />}
      <PagedTable key={round} path="/api/v1/metrics" caption="Metrics, newest first" columns={columns} empty="No metrics in this environment yet." />
    </>
  );
}

function NewMetric(props: { onCreated: () => void }) {
  const { busy, problem, run } = useSubmit();
  const [saved, setSaved] = useState<string | null>(null);
  const errors = formErrors(problem, INPUTS);

  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    // Optional texts left empty are left out: the API refuses an empty string for them.
    const text = (k: string) => {
      const v = data.get(k);
      return typeof v === 'string' ? v.trim() : '';
    };
    const body: Record<string, string> = {};
    for (const k of INPUTS) if (k === 'name' || text(k) !== '') body[k] = text(k);
    setSaved(null);
    const created = await run((api) => api.post<MetricRecord>('/api/v1/metrics', body));
    if (!created) return;
    form.reset();
    setSaved(`Metric ${created.name} created.`);
    props.onCreated();
  }

  return (
    <form class="panel" onSubmit={(e) => void submit(e)} aria-labelledby="new-metric" aria-busy={busy ? 'true' : 'false'}>
      <h3 id="new-metric">New metric</h3>
      <FormAlert messages={errors.general} />
      <TextField
        name="name"
        label="Name"
        hint="Exactly as usage events send it in metricName: letters, digits, _ . : -"
        spellcheck={false}
        autoComplete="off"
        errors={errors}
      />
      <TextField name="displayName" label="Display name (optional)" autoComplete="off" errors={errors} />
      <TextField name="unit" label="Unit (optional)" hint="A label such as request or token." autoComplete="off" errors={errors} />
      <button type="submit" class="primary" disabled={busy}>
        Create metric
      </button>
      <Saved text={saved} />
    </form>
  );
}
