/**
 * Outbound: the endpoints Tollgate sends its signed webhooks to; an endpoint's state, actions and
 * delivery log; one delivery with the request sent, every attempt's answer, and a replay (the same
 * message, the same webhook-id, sent again).
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
import { useConsole } from '../context.js';
import { formatInstant, NONE } from '../format.js';
import { navigate } from '../navigation.js';
import type { ListPage } from '../paging.js';
import { hrefOf } from '../routes.js';
import { useAction, useKept } from '../use-action.js';
import { useApi } from '../use-api.js';
import { attemptAnswer, deliveryState, deliveryTo, formText, listFormErrors, splitList, type DeliveryLike } from '../webhook-text.js';

interface Endpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  status: 'enabled' | 'disabled';
  disabledReason: 'manual' | 'failing' | 'gone' | null;
  failingSince: string | null;
  secretHint: string;
  createdAt: string;
}

interface Delivery extends DeliveryLike {
  messageId: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
}

interface Message {
  id: string;
  eventType: string;
  source: string;
  createdAt: string;
  payload: unknown;
  deliveries: Delivery[];
}

interface Attempt {
  id: string;
  attemptNumber: number;
  trigger: string;
  url: string;
  status: string;
  responseStatus: number | null;
  responseBody: string | null;
  responseTruncated: boolean;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
  attemptedAt: string;
}

const endpointPath = (id: string) => `/api/v1/webhook-endpoints/${encodeURIComponent(id)}`;

const stateOf = (e: Endpoint) =>
  e.status === 'enabled'
    ? e.failingSince
      ? `enabled, failing since ${formatInstant(e.failingSince)}`
      : 'enabled'
    : `disabled (${e.disabledReason ?? 'manual'})`;

const endpointColumns: Column<Endpoint>[] = [
  { label: 'URL', cell: (e) => <Link href={hrefOf('outbound-endpoint', { id: e.id })}>{e.url}</Link> },
  { label: 'Description', cell: (e) => e.description || NONE },
  { label: 'State', cell: stateOf },
  { label: 'Event types', cell: (e) => e.eventTypes.join(', ') },
  { label: 'Created', cell: (e) => formatInstant(e.createdAt) },
];

const CREATE_INPUTS = ['url', 'eventTypes', 'description'];

/** The signing secret of a new endpoint: the one time the API sends it. */
function NewSecret(props: { endpoint: Endpoint; secret: string; link?: boolean }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(props.secret).then(
      () => setCopied('Copied to the clipboard.'),
      () => setCopied('The browser refused the clipboard: select the secret and copy it.'),
    );
  return (
    <section class="secret-once" aria-labelledby="new-secret">
      <h2 id="new-secret">Signing secret of {props.endpoint.url}</h2>
      <p>Shown this once: store it where your receiver verifies signatures. Rotating it later gives a new one.</p>
      <p>
        <code class="secret">{props.secret}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy secret
      </button>{' '}
      {props.link && <Link href={hrefOf('outbound-endpoint', { id: props.endpoint.id })}>Open the endpoint</Link>}
      <p role="status">{copied}</p>
    </section>
  );
}

export function OutboundEndpoints() {
  const action = useAction<Endpoint & { secret: string | null }>();
  const [round, setRound] = useState(0);
  const errors = listFormErrors(action.problem, CREATE_INPUTS);
  const created = action.result;
  const isAdmin = useConsole().session.operator.role === 'admin';
  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => formText(data, name).trim();
    const description = text('description');
    const made = await action.run((api) =>
      api.post<Endpoint & { secret: string | null }>('/api/v1/webhook-endpoints', {
        url: text('url'),
        eventTypes: splitList(text('eventTypes')),
        ...(description === '' ? {} : { description }),
      }),
    );
    if (made) {
      form.reset();
      setRound(round + 1);
    }
  }
  return (
    <>
      <ScreenTitle>Outbound webhooks</ScreenTitle>
      <p>Endpoints receive Tollgate's events, signed as Standard Webhooks says. Open one for its delivery log.</p>
      {created && created.secret && <NewSecret endpoint={created} secret={created.secret} link />}
      <PagedTable
        key={round}
        path="/api/v1/webhook-endpoints"
        caption="Webhook endpoints, newest first"
        columns={endpointColumns}
        empty="No endpoints in this environment yet."
      />
      {!isAdmin && <p class="muted">Adding an endpoint takes an admin.</p>}
      {isAdmin && (
        <section class="block" aria-labelledby="new-endpoint">
          <h2 id="new-endpoint">Add an endpoint</h2>
          <FormAlert messages={errors.general} />
          <form class="stacked" onSubmit={(e) => void submit(e)} aria-busy={action.busy ? 'true' : 'false'}>
            <TextField name="url" label="URL" type="url" hint="https://… where deliveries are POSTed." required spellcheck={false} errors={errors} />
            <TextField
              name="eventTypes"
              label="Event types"
              hint="Comma-separated: exact types, a category such as invoice.*, or * for every type."
              defaultValue="*"
              required
              spellcheck={false}
              errors={errors}
            />
            <TextField name="description" label="Description (optional)" errors={errors} />
            <button type="submit" class="primary" disabled={action.busy}>
              {action.busy ? 'Adding…' : 'Add endpoint'}
            </button>
          </form>
        </section>
      )}
    </>
  );
}

const deliveryColumns = (endpointId: string): Column<Message>[] => [
  { label: 'Event', cell: (m) => <Link href={hrefOf('outbound-delivery', { id: endpointId, messageId: m.id })}>{m.eventType}</Link> },
  { label: 'Created', cell: (m) => formatInstant(m.createdAt) },
  { label: 'Delivery', cell: (m) => deliveryState(deliveryTo(m.deliveries, endpointId)) },
  { label: 'Last answer', cell: (m) => String(deliveryTo(m.deliveries, endpointId)?.lastResponseStatus ?? NONE) },
  { label: 'Message id', cell: (m) => m.id },
];

/** A new signing secret; the current one keeps signing alongside it for the API's grace period. */
function RotateSecret(props: { endpoint: Endpoint }) {
  const action = useAction<{ secret: string; previousSecretExpiresAt: string | null }>();
  const rotated = action.result;
  return (
    <>
      <ConfirmButton
        label="Rotate secret"
        question="Make a new signing secret? Deliveries carry signatures with both secrets for 24 hours, then only the new one."
        confirm="Yes, rotate it"
        busy={action.busy}
        onConfirm={() =>
          void action.run((api) => api.post<{ secret: string; previousSecretExpiresAt: string | null }>(`${endpointPath(props.endpoint.id)}/rotate-secret`))
        }
      />
      {action.problem && <ProblemMessage problem={action.problem} />}
      {rotated && (
        <>
          <NewSecret endpoint={props.endpoint} secret={rotated.secret} />
          <p>The previous secret signs too until {formatInstant(rotated.previousSecretExpiresAt)}.</p>
        </>
      )}
    </>
  );
}

function EndpointActions(props: { endpoint: Endpoint; onChanged: () => void }) {
  const e = props.endpoint;
  const action = useAction<unknown>();
  const [said, setSaid] = useState<string | null>(null);
  const act = (send: Parameters<typeof action.run>[0], done: string) =>
    void action.run(send).then((r) => {
      if (r === null) return;
      setSaid(done);
      props.onChanged();
    });
  const enabled = e.status === 'enabled';
  return (
    <section class="block" aria-labelledby="endpoint-actions">
      <h2 id="endpoint-actions">Actions</h2>
      <div class="actions">
        <button
          type="button"
          disabled={action.busy}
          onClick={() => act((api) => api.patch(endpointPath(e.id), { enabled: !enabled }), enabled ? 'Disabled: nothing is sent to it.' : 'Enabled.')}
        >
          {enabled ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          disabled={action.busy || !enabled}
          onClick={() => act((api) => api.post(`${endpointPath(e.id)}/test`), 'A test event is queued: it shows in the delivery log.')}
        >
          Send a test event
        </button>
        <ConfirmButton
          label="Delete endpoint"
          question={`Delete ${e.url}? Nothing more is sent to it; its pending deliveries fail.`}
          confirm="Yes, delete it"
          busy={action.busy}
          onConfirm={() => void action.run((api) => api.delete(endpointPath(e.id))).then((r) => r && navigate(hrefOf('outbound')))}
        />
      </div>
      <RotateSecret endpoint={e} />
      {action.problem && <ProblemMessage problem={action.problem} />}
      <p role="status">{said}</p>
    </section>
  );
}

export function OutboundEndpoint(props: { id: string }) {
  const loaded = useApi((api) => api.get<Endpoint>(endpointPath(props.id)), [props.id]);
  const [round, setRound] = useState(0);
  return (
    <DetailPage title="Webhook endpoint" back={{ href: hrefOf('outbound'), label: 'All endpoints' }} loaded={loaded} data={useKept(loaded)}>
      {(e) => (
        <>
          <dl class="facts">
            <dt>URL</dt>
            <dd>{e.url}</dd>
            <dt>Description</dt>
            <dd>{e.description || NONE}</dd>
            <dt>State</dt>
            <dd>{stateOf(e)}</dd>
            <dt>Event types</dt>
            <dd>{e.eventTypes.join(', ')}</dd>
            <dt>Signing secret</dt>
            <dd>{e.secretHint}</dd>
            <dt>Id</dt>
            <dd>{e.id}</dd>
          </dl>
          <EndpointActions
            endpoint={e}
            onChanged={() => {
              loaded.reload();
              setRound(round + 1);
            }}
          />
          <h2>Delivery log</h2>
          <PagedTable
            key={round}
            path="/api/v1/webhook-messages"
            query={{ endpointId: e.id }}
            caption="Messages sent to this endpoint, newest first"
            columns={deliveryColumns(e.id)}
            empty="Nothing sent to this endpoint yet."
          />
          <p>
            <button type="button" onClick={() => setRound(round + 1)}>
              Refresh the log
            </button>
          </p>
        </>
      )}
    </DetailPage>
  );
}

function AttemptDetail(props: { a: Attempt }) {
  const a = props.a;
  return (
    <section class="attempt" aria-labelledby={`attempt-${a.id}`}>
      <h3 id={`attempt-${a.id}`}>
        Attempt {a.attemptNumber} ({a.trigger}): {a.status}
      </h3>
      <dl class="facts">
        <dt>Sent</dt>
        <dd>
          {formatInstant(a.attemptedAt)} to {a.url}
        </dd>
        <dt>Answer</dt>
        <dd>{attemptAnswer(a)}</dd>
      </dl>
      {a.responseBody !== null && a.responseBody !== '' && (
        <>
          <p class="muted">Response body{a.responseTruncated ? ', its first 1 KiB' : ''}:</p>
          <Payload label={`Response to attempt ${a.attemptNumber}`} body={a.responseBody} />
        </>
      )}
    </section>
  );
}

const ATTEMPTS_SHOWN = 20;

export function OutboundDelivery(props: { id: string; messageId: string }) {
  const [round, setRound] = useState(0);
  const replay = useAction<{ deliveries: Delivery[] }>();
  const message = useApi((api) => api.get<Message>(`/api/v1/webhook-messages/${encodeURIComponent(props.messageId)}`), [props.messageId, round]);
  const attempts = useApi(
    (api) => api.list<Attempt>('/api/v1/webhook-attempts', null, ATTEMPTS_SHOWN, { messageId: props.messageId, endpointId: props.id }),
    [props.messageId, props.id, round],
  );
  const m = useKept(message);
  const attemptsPage = useKept(attempts);
  const delivery = m ? deliveryTo(m.deliveries, props.id) : null;
  const queued = replay.result ? deliveryTo(replay.result.deliveries, props.id) : null;
  const sendAgain = () =>
    void replay
      .run((api) => api.post<{ deliveries: Delivery[] }>(`/api/v1/webhook-messages/${encodeURIComponent(props.messageId)}/replay`, { endpointId: props.id }))
      .then((r) => r && setRound(round + 1));
  return (
    <DetailPage
      title={`Delivery${m ? ` of ${m.eventType}` : ''}`}
      back={{ href: hrefOf('outbound-endpoint', { id: props.id }), label: 'Back to the endpoint' }}
      loaded={message}
      data={m}
    >
      {(m) => (
        <>
          <dl class="facts">
            <dt>State</dt>
            <dd>{deliveryState(delivery)}</dd>
            <dt>Next attempt</dt>
            <dd>{formatInstant(delivery?.nextAttemptAt)}</dd>
            <dt>Message id (webhook-id)</dt>
            <dd>{m.id}</dd>
            <dt>Created</dt>
            <dd>{formatInstant(m.createdAt)}</dd>
          </dl>
          <h2>Replay</h2>
          <p>Sends the same message again, with the same webhook-id, whatever its state: receivers deduplicate by webhook-id.</p>
          <div class="actions">
            <button type="button" class="primary" disabled={replay.busy} onClick={sendAgain}>
              {replay.busy ? 'Replaying…' : 'Replay'}
            </button>
            <button type="button" onClick={() => setRound(round + 1)}>
              Refresh
            </button>
          </div>
          {replay.problem && <ProblemMessage problem={replay.problem} />}
          <p role="status">
            {queued && `Replay queued: the delivery is ${queued.status}, due ${formatInstant(queued.nextAttemptAt)}. Refresh to see its attempt.`}
          </p>
          <h2>Request</h2>
          <p>POST, signed (webhook-id, webhook-timestamp, webhook-signature), with this body:</p>
          <Payload label="Request body" body={JSON.stringify(m.payload)} />
          <h2>Attempts</h2>
          {attempts.state === 'error' && <ProblemMessage problem={attempts.problem} />}
          {attemptsPage && <Attempts page={attemptsPage} />}
        </>
      )}
    </DetailPage>
  );
}

function Attempts(props: { page: ListPage<Attempt> }) {
  const { data, hasMore } = props.page;
  if (data.length === 0) return <p>No attempt yet.</p>;
  return (
    <>
      {hasMore && <p class="muted">The newest {data.length} attempts.</p>}
      {data.map((a) => (
        <AttemptDetail key={a.id} a={a} />
      ))}
    </>
  );
}
