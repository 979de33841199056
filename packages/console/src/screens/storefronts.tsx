/**
 * Storefronts: which offerings a pricing page shows, how each shows (a call to action, a
 * highlight) and the page's theme. The form edits a draft (a new storefront's or an existing
 * one's); Publish makes the draft what the hosted page and storefront keys read.
 */
import { useState } from 'preact/hooks';
import { CheckboxGroup, SelectField, type Choice } from '../components/choice-fields.js';
import { ColorField } from '../components/color-field.js';
import { FormAlert, FieldErrors, TextField } from '../components/field-errors.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import type { FormErrors } from '../errors.js';
import { formatInstant } from '../format.js';
import {
  displayInput,
  emptyOfferingDisplay,
  newStorefrontDraft,
  storefrontBody,
  storefrontDraftOf,
  storefrontErrors,
  storefrontInputs,
  themeInput,
  type OfferingDisplayDraft,
  type StorefrontBody,
  type StorefrontDraft,
  type StorefrontRecord,
} from '../storefront-form.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { Saved, useCanEdit } from './catalog-common.js';
import { entryPriceText, type OfferingRecord } from './offerings.js';

export type { StorefrontRecord } from '../storefront-form.js';

/** "Version 3, 2026-04-16 09:30 UTC", "Not published". */
export function publishedText(s: Pick<StorefrontRecord, 'published'>): string {
  return s.published === null ? 'Not published' : `Version ${s.published.version}, ${formatInstant(s.published.publishedAt)}`;
}

const draftStatusText = (s: Pick<StorefrontRecord, 'hasUnpublishedChanges'>) => (s.hasUnpublishedChanges ? 'Unpublished changes' : 'Published as is');

export function Storefronts() {
  const canEdit = useCanEdit();
  const [round, setRound] = useState(0);
  const [published, setPublished] = useState<StorefrontRecord | null>(null);
  const publish = useSubmit();
  const reload = () => setRound(round + 1);

  async function publishOne(s: Pick<StorefrontRecord, 'id'>) {
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
    { label: 'Draft status', cell: (s) => draftStatusText(s) },
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
      {canEdit && <DraftForm round={round} onSaved={reload} onPublish={(s) => void publishOne(s)} publishing={publish.busy} />}
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

/** The hosted page's own colours, which the pickers show while a colour is not set. */
const PAGE_ACCENT = '#1e40af';
const PAGE_BACKGROUND = '#f5f6f8';

function DraftForm(props: { round: number; onSaved: () => void; onPublish: (s: StorefrontRecord) => void; publishing: boolean }) {
  // Reloaded after a publish (round), so the draft's status below is the stored one.
  const storefronts = useApi((api) => api.list<StorefrontRecord>('/api/v1/storefronts', null, 100), [props.round]);
  const offerings = useApi((api) => api.list<OfferingRecord>('/api/v1/offerings', null, 100), []);
  const { busy, problem, run } = useSubmit();
  const [saved, setSaved] = useState<string | null>(null);
  const [form, setForm] = useState<StorefrontDraft>(newStorefrontDraft);
  // The body the errors answer: their display entries are counted in it.
  const [sent, setSent] = useState<StorefrontBody | null>(null);
  const errors = storefrontErrors(problem, sent, storefrontInputs(form));
  const list = storefronts.state === 'ok' ? storefronts.data.data : [];
  const stored = list.find((s) => s.id === form.id) ?? null;
  const which: Choice[] = [{ value: '', label: 'A new storefront' }, ...list.map((s) => ({ value: s.id, label: s.name }))];
  const offeringList = offerings.state === 'ok' ? offerings.data.data : [];
  const offeringChoices: Choice[] = offeringList.map((o) => ({ value: o.id, label: `${o.name} (${o.id})` }));
  // A monthly and an annual offering share a name (the page's period switch pairs them by it), so
  // a listed name that repeats is told apart by its price ("Pro, $490.00/yr").
  const legendOf = (id: string): string => {
    const o = offeringList.find((x) => x.id === id);
    if (!o) return id;
    const twins = form.offeringIds.filter((x) => offeringList.find((y) => y.id === x)?.name === o.name).length;
    return twins > 1 ? `${o.name}, ${entryPriceText(o)}` : o.name;
  };
  const set = (patch: Partial<StorefrontDraft>) => setForm({ ...form, ...patch });
  const setDisplay = (id: string, patch: Partial<OfferingDisplayDraft>) =>
    set({ display: { ...form.display, [id]: { ...(form.display[id] ?? emptyOfferingDisplay()), ...patch } } });

  function choose(id: string) {
    const s = list.find((x) => x.id === id);
    setForm(s ? storefrontDraftOf(s) : newStorefrontDraft());
  }

  async function submit(e: Event) {
    e.preventDefault();
    setSaved(null);
    const body = storefrontBody(form);
    setSent(body);
    const s = await run((api) =>
      form.id === ''
        ? api.post<StorefrontRecord>('/api/v1/storefronts', body)
        : api.patch<StorefrontRecord>(`/api/v1/storefronts/${encodeURIComponent(form.id)}`, body),
    );
    if (!s) return;
    setSaved(`Draft of ${s.name} saved (${s.id}). Publish it to show it.`);
    setForm(storefrontDraftOf(s));
    storefronts.reload();
    props.onSaved();
  }

  return (
    // noValidate: the API's message for a URL shows where every other error does, next to its field.
    <form class="panel" onSubmit={(e) => void submit(e)} aria-labelledby="storefront-draft" aria-busy={busy ? 'true' : 'false'} noValidate>
      <h3 id="storefront-draft">Storefront draft</h3>
      {storefronts.state === 'error' && <ProblemMessage problem={storefronts.problem} />}
      {offerings.state === 'error' && <ProblemMessage problem={offerings.problem} />}
      <FormAlert messages={errors.general} />
      <SelectField name="storefront" label="Storefront" choices={which} value={form.id} onValue={choose} errors={errors} />
      {stored && <StoredStatus storefront={stored} onPublish={props.onPublish} publishing={props.publishing} />}
      <TextField name="name" label="Name" value={form.name} onValue={(name) => set({ name })} autoComplete="off" errors={errors} />
      <CheckboxGroup
        name="offeringIds"
        legend="Offerings, in the order chosen"
        choices={offeringChoices}
        selected={form.offeringIds}
        onSelected={(offeringIds) => set({ offeringIds })}
        empty="No offerings yet."
        errors={errors}
      />
      {form.offeringIds.length > 0 && (
        <fieldset class="field offering-displays">
          <legend>How each offering shows</legend>
          <p class="hint">A button to your sign-up or checkout page, and a "Most popular" badge. Leave both button fields empty for no button.</p>
          {form.offeringIds.map((id) => (
            <OfferingDisplayFields
              key={id}
              offeringId={id}
              name={legendOf(id)}
              value={form.display[id] ?? emptyOfferingDisplay()}
              onChange={(patch) => setDisplay(id, patch)}
              errors={errors}
            />
          ))}
        </fieldset>
      )}
      <ThemeFields theme={form.theme} onChange={(patch) => set({ theme: { ...form.theme, ...patch } })} errors={errors} />
      <button type="submit" class="primary" disabled={busy}>
        {form.id === '' ? 'Create storefront' : 'Save draft'}
      </button>
      <Saved text={saved} />
    </form>
  );
}

/** The stored storefront: what is published, whether the saved draft differs, its page, and Publish. */
function StoredStatus(props: { storefront: StorefrontRecord; onPublish: (s: StorefrontRecord) => void; publishing: boolean }) {
  const s = props.storefront;
  return (
    <div class="storefront-status">
      <p>
        Published: {publishedText(s)}. Saved draft: {draftStatusText(s)}. Hosted page: <a href={s.pricingPagePath}>{s.pricingPagePath}</a>
      </p>
      {/* Publishes what is saved; changes in the form are not sent until saved. */}
      <button type="button" disabled={props.publishing || !s.hasUnpublishedChanges} onClick={() => props.onPublish(s)}>
        Publish the saved draft
      </button>
    </div>
  );
}

function OfferingDisplayFields(props: {
  offeringId: string;
  name: string;
  value: OfferingDisplayDraft;
  onChange: (patch: Partial<OfferingDisplayDraft>) => void;
  errors: FormErrors;
}) {
  const { offeringId: id, value: v, errors } = props;
  const highlighted = displayInput(id, 'highlighted');
  const checkId = `field-${highlighted.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <fieldset class="field offering-display">
      <legend>{props.name}</legend>
      <FieldErrors errors={errors} name={displayInput(id, 'callToAction')} />
      <div class="field-row">
        <TextField
          name={displayInput(id, 'callToAction.label')}
          label="Button text"
          hint='Up to 40 characters, e.g. "Start free trial".'
          value={v.ctaLabel}
          onValue={(ctaLabel) => props.onChange({ ctaLabel })}
          autoComplete="off"
          errors={errors}
        />
        <TextField
          name={displayInput(id, 'callToAction.url')}
          label="Button link"
          hint="An http or https address."
          type="url"
          value={v.ctaUrl}
          onValue={(ctaUrl) => props.onChange({ ctaUrl })}
          autoComplete="off"
          spellcheck={false}
          errors={errors}
        />
      </div>
      <div class="field check-field">
        <input id={checkId} type="checkbox" checked={v.highlighted} onChange={(e) => props.onChange({ highlighted: e.currentTarget.checked })} />{' '}
        <label for={checkId}>Highlighted, with a "Most popular" badge</label>
        <FieldErrors errors={errors} name={highlighted} />
      </div>
    </fieldset>
  );
}

function ThemeFields(props: { theme: StorefrontDraft['theme']; onChange: (patch: Partial<StorefrontDraft['theme']>) => void; errors: FormErrors }) {
  const { theme, errors } = props;
  return (
    <fieldset class="field theme-fields">
      <legend>Theme of the hosted page</legend>
      <p class="hint">Optional. Text on your colours is white or near-black, whichever reads; the page loads nothing from elsewhere but the logo.</p>
      <div class="field-row">
        <ColorField
          name={themeInput('accentColor')}
          legend="Accent colour"
          hint="Prices, buttons and the highlighted card. Empty: the page's blue."
          fallback={PAGE_ACCENT}
          value={theme.accentColor}
          onValue={(accentColor) => props.onChange({ accentColor })}
          errors={errors}
        />
        <ColorField
          name={themeInput('backgroundColor')}
          legend="Background colour"
          hint="Behind the cards. Empty: the page's light grey."
          fallback={PAGE_BACKGROUND}
          value={theme.backgroundColor}
          onValue={(backgroundColor) => props.onChange({ backgroundColor })}
          errors={errors}
        />
      </div>
      <TextField
        name={themeInput('fontFamily')}
        label="Font family (optional)"
        hint="A font on the buyer's device, e.g. Inter: letters, digits, spaces and hyphens. Empty: the system font."
        value={theme.fontFamily}
        onValue={(fontFamily) => props.onChange({ fontFamily })}
        autoComplete="off"
        spellcheck={false}
        errors={errors}
      />
      <TextField
        name={themeInput('logoUrl')}
        label="Logo URL (optional)"
        hint="An https address, or a data: URL of a PNG, SVG, WebP or JPEG image."
        type="url"
        value={theme.logoUrl}
        onValue={(logoUrl) => props.onChange({ logoUrl })}
        autoComplete="off"
        spellcheck={false}
        errors={errors}
      />
    </fieldset>
  );
}
