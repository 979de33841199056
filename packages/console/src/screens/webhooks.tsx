/**
 * Webhooks: the sources (plugs) where third parties' signed webhooks arrive and become usage; a
 * source's settings and its ingestion log; one received webhook with its headers and payload, and
 * its replay (the stored body mapped again with the source's current settings).
 */
import { useState } from 'preact/hooks';
import { ConfirmButton } from '../components/confirm-button.js';
import { DetailPage } from '../components/detail-page.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { Payload } from '../components/payload.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { SelectField } from '../components/select-field.js';
import { useConsole } from '../context.js';
import { formatInstant, NONE } from '../format.js';
import { navigate } from '../navigation.js';
import { hrefOf } from '../routes.js';
import { useAction, useKept } from '../use-action.js';
import { useApi } from '../use-api.js';
import { formText, ingestionOutcome, listFormErrors, sourcePatch, splitList } from '../webhook-text.js';

interface Source {
  id: string;
  provider: string;
  displayName: string;
  metricId: string;
  metricName: string;
  url: string;
  signature: { scheme: string; header: string; algorithm: string; encoding: string; prefix: string };
  hasSigningSecret: boolean;
  signingSecretHint: string | null;
  eventTypeFrom: unknown;
  eventFilter: string[];
  fieldMappings: Record<string, unknown>;
  dedupWindowHours: number;
  createdAt: string;
  updatedAt: string;
}

interface Outcome {
  index: number;
  status: string;
  eventId?: string;
  customerId?: string;
  quantity?: number;
  reason?: string;
  message?: string;
}

interface LogEntry {
  id: string;
  sourceId: string;
  /** The source's name when the request arrived. */
  sourceDisplayName: string;
  receivedAt: string;
  status: string;
  verification: string;
  httpStatus: number;
  reasonCode: string | null;
  reasonMessage: string | null;
  eventType: string | null;
  outcomes: Outcome[];
  headers: Record<string, string>;
  bodyBytes: number;
  url: string;
  replayOf: string | null;
  correlationId: string;
  body?: string;
  bodyEncoding?: 'utf8' | 'base64';
}

const PROVIDERS = [
  ['custom', 'Custom HMAC sender'],
  ['payment', 'Payments (Stripe-style)'],
  ['messaging', 'Messaging (Twilio-style)'],
  ['email', 'E-mail events (SendGrid-style)'],
  ['code_hosting', 'Code hosting (GitHub-style)'],
  ['chat', 'Chat (Slack-style)'],
] as const;

const sourcePath = (id: string) => `/api/v1/webhook-sources/${encodeURIComponent(id)}`;
const entryPath = (id: string) => `/api/v1/webhook-log/${encodeURIComponent(id)}`;
/** The address to give the provider: this server's origin (PUBLIC_URL, when the console is served there) and the source's path. */
const receivingUrl = (s: Source) => `${window.location.origin}${s.url}`;

const sourceColumns: Column<Source>[] = [
  { label: 'Name', cell: (s) => <Link href={hrefOf('webhook-source', { id: s.id })}>{s.displayName}</Link> },
  { label: 'Provider', cell: (s) => s.provider },
  { label: 'Metric', cell: (s) => s.metricName },
  { label: 'Signing secret', cell: (s) => (s.hasSigningSecret ? `set (…${s.signingSecretHint ?? ''})` : 'none: every request is refused') },
  { label: 'Created', cell: (s) => formatInstant(s.createdAt) },
];

const CREATE_INPUTS = ['provider', 'displayName', 'metricName', 'signingSecret', 'eventFilter'];

function CreateSource() {
  const action = useAction<Source>();
  const errors = listFormErrors(action.problem, CREATE_INPUTS);
  async function submit(e: Event) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const filter = formText(data, 'eventFilter');
    const secret = formText(data, 'signingSecret');
    const created = await action.run((api) =>
      api.post<Source>('/api/v1/webhook-sources', {
        provider: formText(data, 'provider'),
        displayName: formText(data, 'displayName').trim(),
        metricName: formText(data, 'metricName').trim(),
        ...(secret === '' ? {} : { signingSecret: secret }),
        // Blank: the provider template's filter.
        ...(filter.trim() === '' ? {} : { eventFilter: splitList(filter) }),
      }),
    );
    if (created) navigate(hrefOf('webhook-source', { id: created.id }));
  }
  return (
    <section class="block" aria-labelledby="new-source">
      <h2 id="new-source">Add a source</h2>
      <FormAlert messages={errors.general} />
      <form class="stacked" onSubmit={(e) => void submit(e)} aria-busy={action.busy ? 'true' : 'false'}>
        <SelectField name="provider" label="Provider" hint="Decides how requests are signed and the default mappings." options={PROVIDERS} errors={errors} />
        <TextField name="displayName" label="Name" required errors={errors} />
        <TextField
          name="metricName"
          label="Metric"
          hint="The name of the billable metric that receives the quantity."
          required
          spellcheck={false}
          errors={errors}
        />
        <TextField
          name="signingSecret"
          label="Signing secret"
          type="password"
          autoComplete="off"
          hint="The provider's secret. Stored sealed, never shown again. Without one, every request is refused."
          errors={errors}
        />
        <TextField
          name="eventFilter"
          label="Event types (optional)"
          hint="Comma-separated. Blank: the provider's default."
          spellcheck={false}
          errors={errors}
        />
        <button type="submit" class="primary" disabled={action.busy}>
          {action.busy ? 'Adding…' : 'Add source'}
        </button>
      </form>
    </section>
  );
}

export function WebhookSources() {
  return (
    <>
      <ScreenTitle>Webhooks</ScreenTitle>
      <p>Sources receive third parties' signed webhooks and turn them into usage. Open a source for its address, settings and ingestion log.</p>
      <PagedTable
        path="/api/v1/webhook-sources"
        caption="Webhook sources, newest first"
        columns={sourceColumns}
        empty="No webhook sources in this environment yet."
      />
      {useConsole().session.operator.role === 'admin' ? <CreateSource /> : <p class="muted">Adding a source takes an admin.</p>}
    </>
  );
}

const logColumns = (sourceId: string): Column<LogEntry>[] => [
  { label: 'Received', cell: (e) => <Link href={hrefOf('webhook-entry', { id: sourceId, entryId: e.id })}>{formatInstant(e.receivedAt)}</Link> },
  { label: 'Status', cell: (e) => e.status },
  { label: 'Signature', cell: (e) => e.verification },
  { label: 'HTTP', cell: (e) => String(e.httpStatus) },
  { label: 'Event type', cell: (e) => e.eventType ?? NONE },
  { label: 'Reason', cell: (e) => e.reasonCode ?? NONE },
  { label: 'Replay of', cell: (e) => e.replayOf ?? NONE },
];

const EDIT_INPUTS = ['displayName', 'metricName', 'signingSecret', 'eventFilter', 'dedupWindowHours'];

function EditSource(props: { source: Source; onSaved: () => void }) {
  const s = props.source;
  const action = useAction<Source>();
  const [round, setRound] = useState(0);
  const [saved, setSaved] = useState<string | null>(null);
  const errors = listFormErrors(action.problem, EDIT_INPUTS);
  async function submit(e: Event) {
    e.preventDefault();
    setSaved(null);
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const patch = sourcePatch(
      {
        displayName: formText(data, 'displayName'),
        metricName: formText(data, 'metricName'),
        signingSecret: formText(data, 'signingSecret'),
        eventFilter: formText(data, 'eventFilter'),
        dedupWindowHours: formText(data, 'dedupWindowHours'),
      },
      s,
    );
    if (!patch) return setSaved('Nothing to save: no field changed.');
    if (await action.run((api) => api.patch<Source>(sourcePath(s.id), patch))) {
      setSaved('Saved.');
      // A fresh form: the secret typed is gone from the page.
      setRound(round + 1);
      props.onSaved();
    }
  }
  return (
    <section class="block" aria-labelledby="edit-source">
      <h2 id="edit-source">Settings</h2>
      <FormAlert messages={errors.general} />
      <form key={round} class="stacked" onSubmit={(e) => void submit(e)} aria-busy={action.busy ? 'true' : 'false'}>
        <TextField name="displayName" label="Name" defaultValue={s.displayName} required errors={errors} />
        <TextField name="metricName" label="Metric" defaultValue={s.metricName} spellcheck={false} required errors={errors} />
        <TextField
          name="signingSecret"
          label="New signing secret"
          type="password"
          autoComplete="off"
          hint="Blank keeps the current one. A new one replaces it at once."
          errors={errors}
        />
        <TextField
          name="eventFilter"
          label="Event types"
          hint="Comma-separated. Blank: every type."
          defaultValue={s.eventFilter.join(', ')}
          spellcheck={false}
          errors={errors}
        />
        <TextField name="dedupWindowHours" label="Deduplication window (hours)" hint="1 to 720." defaultValue={String(s.dedupWindowHours)} errors={errors} />
        <button type="submit" class="primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save settings'}
        </button>
        <p role="status">{saved}</p>
      </form>
    </section>
  );
}

function DeleteSource(props: { source: Source }) {
  const action = useAction<unknown>();
  return (
    <section class="block" aria-labelledby="delete-source">
      <h2 id="delete-source">Delete</h2>
      {action.problem && <ProblemMessage problem={action.problem} />}
      <ConfirmButton
        label="Delete source"
        question={`Delete ${props.source.displayName}? Its address answers 404 from then on; its log stays until retention removes it.`}
        confirm="Yes, delete it"
        busy={action.busy}
        onConfirm={() => void action.run((api) => api.delete(sourcePath(props.source.id))).then((r) => r && navigate(hrefOf('webhooks')))}
      />
    </section>
  );
}

export function WebhookSourceDetail(props: { id: string }) {
  const loaded = useApi((api) => api.get<Source>(sourcePath(props.id)), [props.id]);
  const kept = useKept(loaded);
  return (
    <DetailPage
      title={kept ? kept.displayName : 'Webhook source'}
      back={{ href: hrefOf('webhooks'), label: 'All webhook sources' }}
      loaded={loaded}
      data={kept}
    >
      {(s) => (
        <>
          <dl class="facts">
            <dt>Address</dt>
            <dd>
              <code>POST {receivingUrl(s)}</code>
            </dd>
            <dt>Provider</dt>
            <dd>{s.provider}</dd>
            <dt>Signature</dt>
            <dd>
              {s.signature.scheme}, header {s.signature.header}
            </dd>
            <dt>Signing secret</dt>
            <dd>{s.hasSigningSecret ? `set, ending ${s.signingSecretHint ?? ''}` : 'none: every request is refused with 401'}</dd>
            <dt>Metric</dt>
            <dd>{s.metricName}</dd>
            <dt>Event types</dt>
            <dd>{s.eventFilter.length === 0 ? 'every type' : s.eventFilter.join(', ')}</dd>
            <dt>Field mappings</dt>
            <dd>
              <code>{JSON.stringify(s.fieldMappings)}</code>
            </dd>
            <dt>Id</dt>
            <dd>{s.id}</dd>
          </dl>
          <h2>Ingestion log</h2>
          <PagedTable
            path="/api/v1/webhook-log"
            query={{ sourceId: s.id }}
            caption="Webhooks received by this source, newest first"
            columns={logColumns(s.id)}
            empty="Nothing received yet."
          />
          <EditSource source={s} onSaved={loaded.reload} />
          <DeleteSource source={s} />
        </>
      )}
    </DetailPage>
  );
}

function Outcomes(props: { outcomes: Outcome[] }) {
  if (props.outcomes.length === 0) return null;
  return (
    <div class="table-scroll" role="region" aria-label="What became of each event" tabIndex={0}>
      <table>
        <caption>What became of each event</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Status</th>
            <th scope="col">Event id</th>
            <th scope="col">Customer</th>
            <th scope="col">Quantity</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {props.outcomes.map((o) => (
            <tr key={o.index}>
              <td>{o.index + 1}</td>
              <td>{o.status}</td>
              <td>{o.eventId ?? NONE}</td>
              <td>{o.customerId ?? NONE}</td>
              <td>{o.quantity ?? NONE}</td>
              <td>{o.message ?? o.reason ?? NONE}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ReplayEntry(props: { entry: LogEntry; sourceId: string }) {
  const action = useAction<LogEntry>();
  const replayed = action.result;
  if (props.entry.verification !== 'passed')
    return <p class="muted">Only a webhook whose signature was verified can be replayed: this one's was {props.entry.verification}.</p>;
  return (
    <>
      <p>Replay maps the stored body again with the source's current settings, without checking the signature again.</p>
      <button
        type="button"
        class="primary"
        disabled={action.busy}
        onClick={() => void action.run((api) => api.post<LogEntry>(`${entryPath(props.entry.id)}/replay`))}
      >
        {action.busy ? 'Replaying…' : 'Replay'}
      </button>
      {action.problem && <ProblemMessage problem={action.problem} />}
      <div role="status">
        {replayed && (
          <p class="notice">
            Replayed. {ingestionOutcome(replayed)}{' '}
            <Link href={hrefOf('webhook-entry', { id: props.sourceId, entryId: replayed.id })}>Open the replay's entry</Link>
          </p>
        )}
      </div>
    </>
  );
}

export function WebhookEntry(props: { id: string; entryId: string }) {
  const loaded = useApi((api) => api.get<LogEntry>(entryPath(props.entryId)), [props.entryId]);
  return (
    <DetailPage
      title="Received webhook"
      back={{ href: hrefOf('webhook-source', { id: props.id }), label: 'Back to the source' }}
      loaded={loaded}
      data={loaded.state === 'ok' ? loaded.data : null}
    >
      {(e) => (
        <>
          <p>{ingestionOutcome(e)}</p>
          <dl class="facts">
            <dt>Source</dt>
            <dd>{e.sourceDisplayName}</dd>
            <dt>Received</dt>
            <dd>{formatInstant(e.receivedAt)}</dd>
            <dt>Signature</dt>
            <dd>{e.verification}</dd>
            <dt>Event type</dt>
            <dd>{e.eventType ?? NONE}</dd>
            <dt>Replay of</dt>
            <dd>{e.replayOf ? <Link href={hrefOf('webhook-entry', { id: props.id, entryId: e.replayOf })}>{e.replayOf}</Link> : NONE}</dd>
            <dt>Address</dt>
            <dd>{e.url}</dd>
            <dt>Correlation id</dt>
            <dd>{e.correlationId}</dd>
            <dt>Id</dt>
            <dd>{e.id}</dd>
          </dl>
          <Outcomes outcomes={e.outcomes} />
          <h2>Replay</h2>
          <ReplayEntry entry={e} sourceId={props.id} />
          <h2>Headers</h2>
          <dl class="facts">{Object.entries(e.headers).map(([name, value]) => [<dt key={`${name}-n`}>{name}</dt>, <dd key={`${name}-v`}>{value}</dd>])}</dl>
          <h2>Payload ({e.bodyBytes} bytes)</h2>
          <Payload label="Payload" body={e.body ?? ''} encoding={e.bodyEncoding} />
        </>
      )}
    </DetailPage>
  );
}
