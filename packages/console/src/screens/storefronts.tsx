/**
 * Storefronts: which offerings a pricing page shows. The form edits a draft (a new storefront's or
 * an existing one's); Publish makes the draft what the hosted page and storefront keys read.
 */
import { useState } from 'preact/hooks';
import { CheckboxGroup, itemInputs, SelectField, type Choice } from '../components/choice-fields.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { formErrors } from '../errors.js';
import { formatInstant } from '../format.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { Saved, useCanEdit } from './catalog-common.js';
import type { OfferingRecord } from './offerings.js';

export interface StorefrontRecord {
  id: string;
  name: string;
  draft: { offeringIds: string[] };
  published: { offeringIds: string[]; version: number; publishedAt: string } | null;
  hasUnpublishedChanges: boolean;
  pricingPagePath: string;
}

/** "Version 3, 2026-04-16 09:30 UTC", "Not published". */
export function publishedText(s: Pick<StorefrontRecord, 'published'>): string {
  return s.published === null ? 'Not published' : `Version ${s.published.version}, ${formatInstant(s.published.publishedAt)}`;
}

export function Storefronts() {
  const canEdit = useCanEdit();
  const [round, setRound] = useState(0);
  const [published, setPublished] = useState<StorefrontRecord | null>(null);
  const publish = useSubmit();
  const reload = () => setRound(round + 1);

  async function publishOne(s: StorefrontRecord) {
    setPublished(null);
    const done = await publish.run((api) => api.post<StorefrontRecord>(`/api/v1/storefronts/${encodeURIComponent(s.id)}/publish`));
    if (!done) return;
    setPublished(done);
    reload();
  }

  const columns: Column<StorefrontRecord>[] = [
    { label: 'Name', cell: (s) => s.name },
    { label: 'Draft offerings', cell: (s) => s.draft.offeringIds.join(', ') || 'None' },
    { label: 'Published', cell: (s) => publishedText(s) },
    { label: 'Draft status', cell: (s) => (s.hasUnpublishedChanges ? 'Unpublished changes' : 'Published as is') },
    // A page of the server, outside the console: a plain link.
    { label: 'Pricing page', cell: (s) => <a href={s.pricingPagePath}>{s.pricingPagePath}</a> },
  ];
  if (canEdit)
    columns.push({
      label: 'Publish',
      cell: (s) => (
        <button type="button" disabled={publish.busy} onClick={() => void publishOne(s)} aria-label={`Publish ${s.name}`}>
          Publish
        </button>
      ),
    });

  return (
    <>
      <h2>Storefronts</h2>
      {publish.problem && <ProblemMessage problem={publish.problem} />}
      <p role="status" class={published ? 'saved' : 'saved empty'}>
        {published && (
          <>
            {published.name} is published: {publishedText(published)}. <a href={published.pricingPagePath}>Open its pricing page</a>.
          </>
        )}
      </p>
      {canEdit && <DraftForm onSaved={reload} />}
      <PagedTable
        key={round}
        path="/api/v1/storefronts"
        caption="Storefronts, newest first"
        columns={columns}
        empty="No storefronts in this environment yet."
      />
    </>
  );
}

const INPUTS = ['name', ...itemInputs('offeringIds', 12)];

function DraftForm(props: { onSaved: () => void }) {
  const storefronts = useApi((api) => api.list<StorefrontRecord>('/api/v1/storefronts', null, 100), []);
  const offerings = useApi((api) => api.list<OfferingRecord>('/api/v1/offerings', null, 100), []);
  const { busy, problem, run } = useSubmit();
  const [saved, setSaved] = useState<string | null>(null);
  const [form, setForm] = useState({ id: '', name: '', offeringIds: [] as string[] });
  const errors = formErrors(problem, INPUTS);
  const list = storefronts.state === 'ok' ? storefronts.data.data : [];
  const which: Choice[] = [{ value: '', label: 'A new storefront' }, ...list.map((s) => ({ value: s.id, label: s.name }))];
  const offeringChoices: Choice[] = (offerings.state === 'ok' ? offerings.data.data : []).map((o) => ({ value: o.id, label: `${o.name} (${o.id})` }));

  function choose(id: string) {
    const s = list.find((x) => x.id === id);
    setForm(s ? { id, name: s.name, offeringIds: s.draft.offeringIds } : { id: '', name: '', offeringIds: [] });
  }

  async function submit(e: Event) {
    e.preventDefault();
    setSaved(null);
    const body = { name: form.name.trim(), offeringIds: form.offeringIds };
    const s = await run((api) =>
      form.id === ''
        ? api.post<StorefrontRecord>('/api/v1/storefronts', body)
        : api.patch<StorefrontRecord>(`/api/v1/storefronts/${encodeURIComponent(form.id)}`, body),
    );
    if (!s) return;
    setSaved(`Draft of ${s.name} saved (${s.id}). Publish it to show it.`);
    setForm({ id: s.id, name: s.name, offeringIds: s.draft.offeringIds });
    storefronts.reload();
    props.onSaved();
  }

  return (
    <form class="panel" onSubmit={(e) => void submit(e)} aria-labelledby="storefront-draft" aria-busy={busy ? 'true' : 'false'}>
      <h3 id="storefront-draft">Storefront draft</h3>
      {storefronts.state === 'error' && <ProblemMessage problem={storefronts.problem} />}
      {offerings.state === 'error' && <ProblemMessage problem={offerings.problem} />}
      <FormAlert messages={errors.general} />
      <SelectField name="storefront" label="Storefront" choices={which} value={form.id} onValue={choose} errors={errors} />
      <TextField name="name" label="Name" value={form.name} onValue={(name) => setForm({ ...form, name })} autoComplete="off" errors={errors} />
      <CheckboxGroup
        name="offeringIds"
        legend="Offerings, in the order chosen"
        choices={offeringChoices}
        selected={form.offeringIds}
        onSelected={(offeringIds) => setForm({ ...form, offeringIds })}
        empty="No offerings yet."
        errors={errors}
      />
      <button type="submit" class="primary" disabled={busy}>
        {form.id === '' ? 'Create storefront' : 'Save draft'}
      </button>
      <Saved text={saved} />
    </form>
  );
}
