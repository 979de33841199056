/**
 * The audit log: every filter of GET /v1/events in a form whose search lives in the address bar
 * (a search is a link, Back goes to the previous one), the matching events a page at a time with
 * each one's details, saved searches (the API's /api/v1/events/presets), and a live tail of the
 * stream (live-tail.ts) under the same filters.
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import {
  ACTOR_TYPES,
  describeFilters,
  eventTime,
  FILTER_NAMES,
  filtersFrom,
  payloadText,
  searchOf,
  SEVERITIES,
  tailAnnouncement,
  type AuditEvent,
  type AuditFilters,
  type AuditSearchPreset,
} from '../audit.js';
import { errorIdOf, FieldErrors, FormAlert, TextField } from '../components/field-errors.js';
import { Link } from '../components/link.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { Pager } from '../components/pager.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useConsole } from '../context.js';
import { formErrors, problemFrom, type ApiProblem, type FormErrors } from '../errors.js';
import { NONE } from '../format.js';
import { runTail, type TailStatus } from '../live-tail.js';
import { navigate, useLocation } from '../navigation.js';
import { pageState, type Cursor, type ListPage } from '../paging.js';
import { hrefOf } from '../routes.js';
import { useApi, type Loaded } from '../use-api.js';

const EVENTS_PATH = '/v1/events';
const PRESETS_PATH = '/api/v1/events/presets';
const STREAM_PATH = '/api/v1/events/stream';
/** The tail keeps the newest this many: a busy workspace must not grow the page without end. */
const TAIL_MAX = 200;

const searchHref = (filters: AuditFilters) => `${hrefOf('audit')}${searchOf(filters)}`;

export function Audit() {
  const location = useLocation();
  const filters = filtersFrom(new URLSearchParams(location.search));
  const key = searchOf(filters);
  const [at, setAt] = useState<{ key: string; cursor: Cursor; page: number }>({ key, cursor: null, page: 1 });
  // A new search starts at its first page.
  const page = at.key === key ? at : { key, cursor: null, page: 1 };
  const loaded = useApi((api) => api.list<AuditEvent>(EVENTS_PATH, page.cursor, 20, filters), [key, page.cursor]);
  const problem = loaded.state === 'error' ? loaded.problem : null;

  return (
    <div class="audit-screen">
      <ScreenTitle>Audit log</ScreenTitle>
      <SearchForm key={key} filters={filters} errors={formErrors(problem, FILTER_NAMES)} />
      <LiveTail filters={filters} />
      <section aria-labelledby="audit-results-heading">
        <h2 id="audit-results-heading">Events</h2>
        <p class="muted">Matching {describeFilters(filters)}.</p>
        <EventTable loaded={loaded} />
        <Pager
          state={loaded.state === 'ok' ? pageState(page.cursor, { ...loaded.data, data: loaded.data.data.map((e) => ({ id: e.eventId })) }) : null}
          loading={loaded.state === 'loading'}
          page={page.page}
          onGo={(cursor, delta) => cursor && setAt({ key, cursor, page: page.page + delta })}
          onFirst={page.cursor === null ? undefined : () => setAt({ key, cursor: null, page: 1 })}
        />
      </section>
      <SavedSearches filters={filters} />
    </div>
  );
}

function SelectField(props: { name: string; label: string; any: string; options: readonly string[]; defaultValue?: string; errors: FormErrors }) {
  const id = `field-${props.name}`;
  const invalid = (props.errors.byInput[props.name]?.length ?? 0) > 0;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={invalid ? errorIdOf(props.name) : undefined}>
        <option value="">{props.any}</option>
        {props.options.map((o) => (
          <option key={o} value={o} selected={o === props.defaultValue}>
            {o}
          </option>
        ))}
      </select>
      <FieldErrors errors={props.errors} name={props.name} />
    </div>
  );
}

/** The filters, filled in from the address; submitting puts the search in the address. */
function SearchForm(props: { filters: AuditFilters; errors: FormErrors }) {
  const { filters: f, errors } = props;
  const time = 'UTC, ISO 8601 to the second: 2026-04-16T09:30:00Z.';
  return (
    <section aria-labelledby="audit-search-heading">
      <h2 id="audit-search-heading">Search</h2>
      <form
        role="search"
        aria-labelledby="audit-search-heading"
        class="audit-filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(searchHref(filtersFrom(new FormData(e.currentTarget).entries())));
        }}
      >
        <FormAlert messages={errors.general} />
        <div class="filter-grid">
          <TextField
            name="q"
            label="Words"
            type="search"
            hint="In the type and the payload's values; end a word with * for a prefix."
            defaultValue={f.q}
            errors={errors}
          />
          <TextField name="type" label="Event type" hint="customer.created, or a prefix: api_key.*" defaultValue={f.type} errors={errors} spellcheck={false} />
          <SelectField name="severity" label="Severity and above" any="Any severity" options={SEVERITIES} defaultValue={f.severity} errors={errors} />
          <SelectField name="actorType" label="Actor type" any="Any actor type" options={ACTOR_TYPES} defaultValue={f.actorType} errors={errors} />
          <TextField name="actorId" label="Actor id" defaultValue={f.actorId} errors={errors} spellcheck={false} />
          <TextField name="targetType" label="Target type" hint="customer, api_key, …" defaultValue={f.targetType} errors={errors} spellcheck={false} />
          <TextField name="targetId" label="Target id" defaultValue={f.targetId} errors={errors} spellcheck={false} />
          <TextField name="correlationId" label="Correlation id" defaultValue={f.correlationId} errors={errors} spellcheck={false} />
          <TextField name="createdFrom" label="From (included)" hint={time} defaultValue={f.createdFrom} errors={errors} spellcheck={false} />
          <TextField name="createdTo" label="Until (not included)" hint={time} defaultValue={f.createdTo} errors={errors} spellcheck={false} />
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
          <button type="button" onClick={() => navigate(hrefOf('audit'))}>
            Clear filters
          </button>
        </div>
      </form>
    </section>
  );
}

function EventTable(props: { loaded: Loaded<ListPage<AuditEvent>> }) {
  const { loaded } = props;
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const rows = loaded.state === 'ok' ? loaded.data.data : [];
  const toggle = (id: string) => {
    const next = new Set(open);
    if (!next.delete(id)) next.add(id);
    setOpen(next);
  };
  return (
    <>
      {/* Field errors show next to their filter above; a problem with no field (the network, a 500) here. */}
      {loaded.state === 'error' && formErrors(loaded.problem, FILTER_NAMES).general.length > 0 && <ProblemMessage problem={loaded.problem} />}
      <div class="table-scroll" role="region" aria-label="Audit events" tabIndex={0}>
        <table class="audit-table" aria-busy={loaded.state === 'loading' ? 'true' : 'false'}>
          <caption>Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Time</th>
              <th scope="col">Severity</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const shown = open.has(e.eventId);
              const detailId = `detail-${e.eventId}`;
              return (
                <Fragment key={e.eventId}>
                  <tr>
                    <td>
                      <button
                        type="button"
                        class="disclosure"
                        aria-expanded={shown}
                        aria-controls={shown ? detailId : undefined}
                        onClick={() => toggle(e.eventId)}
                      >
                        {e.eventType}
                      </button>
                    </td>
                    <td>{eventTime(e.createdAt)}</td>
                    <td>{e.severity}</td>
                    <td>{`${e.actorType} ${e.actorId}`}</td>
                    <td>{e.targetId ?? NONE}</td>
                  </tr>
                  {shown && (
                    <tr id={detailId} class="event-detail-row">
                      <td colSpan={5}>
                        <EventDetails event={e} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
            {loaded.state === 'ok' && rows.length === 0 && (
              <tr>
                <td colSpan={5}>No event matches this search.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Everything an event says; the payload as indented JSON text, escaped (payloadText). */
function EventDetails(props: { event: AuditEvent }) {
  const e = props.event;
  const payloadId = `payload-${e.eventId}`;
  return (
    <div class="event-details">
      <dl class="facts">
        <dt>Event id</dt>
        <dd>{e.eventId}</dd>
        <dt>Time</dt>
        <dd>{e.createdAt}</dd>
        <dt>Actor</dt>
        <dd>{`${e.actorType} ${e.actorId}`}</dd>
        <dt>Source</dt>
        <dd>{e.source}</dd>
        <dt>Target</dt>
        <dd>{e.targetType ? `${e.targetType} ${e.targetId ?? ''}` : NONE}</dd>
        <dt>Correlation id</dt>
        <dd>
          {e.correlationId} (<Link href={searchHref({ correlationId: e.correlationId })}>every event of this request</Link>)
        </dd>
        <dt>Environment</dt>
        <dd>{e.environment}</dd>
      </dl>
      <p class="payload-label" id={payloadId}>
        Payload
      </p>
      <pre class="payload" aria-labelledby={payloadId}>
        {payloadText(e.payload)}
      </pre>
    </div>
  );
}

function tailStatusText(status: TailStatus | null, count: number, latest: string | null): string {
  if (status === null || status.state === 'connecting') return 'Connecting the live tail…';
  if (status.state === 'live') return tailAnnouncement(count, latest);
  if (status.state === 'waiting') return `${status.message ?? 'The stream was interrupted.'} Reconnecting in ${Math.ceil(status.ms / 1000)} s.`;
  return 'The live tail stopped.';
}

/**
 * New events as they are committed, under the search's filters. The status line (polite) says
 * how many arrived; focus stays where the operator left it.
 */
function LiveTail(props: { filters: AuditFilters }) {
  const { environment, session, signedOut } = useConsole();
  const [on, setOn] = useState(false);
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [count, setCount] = useState(0);
  const [status, setStatus] = useState<TailStatus | null>(null);
  const key = searchOf(props.filters);

  useEffect(() => {
    if (!on) return;
    const stop = new AbortController();
    setEvents([]);
    setCount(0);
    void runTail({
      url: `${STREAM_PATH}${key}`,
      headers: { 'x-tollgate-environment': environment, 'x-tenant-id': session.workspace.id },
      signal: stop.signal,
      onEvent: (data) => {
        let e: AuditEvent;
        try {
          e = JSON.parse(data) as AuditEvent;
        } catch {
          return;
        }
        setEvents((list) => [e, ...list].slice(0, TAIL_MAX));
        setCount((n) => n + 1);
      },
      onStatus: (s) => {
        setStatus(s);
        if (s.state !== 'stopped') return;
        setOn(false);
        if (s.problem.status === 401) signedOut();
      },
    });
    // Off, another search, another environment or another screen: this stream ends.
    return () => stop.abort();
  }, [on, key, environment]);

  return (
    <section aria-labelledby="audit-tail-heading">
      <h2 id="audit-tail-heading">Live tail</h2>
      <div class="actions">
        <button
          type="button"
          aria-pressed={on}
          onClick={() => {
            if (on) setStatus(null);
            setOn(!on);
          }}
        >
          Live tail
        </button>
        <p role="status" class="tail-status">
          {on || status?.state === 'stopped' ? tailStatusText(status, count, events[0]?.eventType ?? null) : 'The live tail is off.'}
        </p>
      </div>
      {!on && status?.state === 'stopped' && <ProblemMessage problem={status.problem} />}
      {events.length > 0 && (
        <ol class="tail-list" aria-label="New events, newest first">
          {events.map((e) => (
            <li key={e.eventId}>
              <details>
                <summary>
                  <span class="tail-type">{e.eventType}</span>{' '}
                  <span class="muted">{`${eventTime(e.createdAt)} · ${e.severity} · ${e.actorType} ${e.actorId}`}</span>
                </summary>
                <EventDetails event={e} />
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Saved searches: save the filters shown under a name, apply one (its filters into the address), delete one. */
function SavedSearches(props: { filters: AuditFilters }) {
  const { api, session, signedOut } = useConsole();
  const admin = session.operator.role === 'admin';
  const [round, setRound] = useState(0);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const errors = formErrors(problem, ['name']);

  const run = async (work: () => Promise<string>) => {
    setBusy(true);
    setProblem(null);
    try {
      setDone(await work());
      setRound((r) => r + 1);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      setDone('');
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
    } finally {
      setBusy(false);
    }
  };

  const columns: Column<AuditSearchPreset>[] = [
    { label: 'Name', cell: (p) => p.name },
    { label: 'Filters', cell: (p) => describeFilters(p.filters) },
    {
      label: 'Actions',
      cell: (p) => (
        <span class="row-actions">
          <button type="button" onClick={() => navigate(searchHref(p.filters))}>
            Apply<span class="visually-hidden"> {p.name}</span>
          </button>
          {admin && (
            <button
              type="button"
              disabled={busy}
              onClick={() => void run(() => api.delete(`${PRESETS_PATH}/${encodeURIComponent(p.id)}`).then(() => `Deleted “${p.name}”.`))}
            >
              Delete<span class="visually-hidden"> {p.name}</span>
            </button>
          )}
        </span>
      ),
    },
  ];

  return (
    <section aria-labelledby="audit-saved-heading">
      <h2 id="audit-saved-heading">Saved searches</h2>
      {admin && (
        <form
          class="save-search"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const entry = new FormData(form).get('name');
            const name = typeof entry === 'string' ? entry : '';
            void run(async () => {
              await api.post(PRESETS_PATH, { name, filters: props.filters });
              form.reset();
              return `Saved “${name}”: ${describeFilters(props.filters)}.`;
            });
          }}
        >
          <FormAlert messages={errors.general} />
          <TextField name="name" label="Save this search as" hint={`Saves ${describeFilters(props.filters)}.`} required errors={errors} />
          <button type="submit" disabled={busy}>
            Save search
          </button>
        </form>
      )}
      <p role="status" class="muted">
        {done}
      </p>
      <PagedTable key={round} path={PRESETS_PATH} caption="Saved searches, newest first" columns={columns} empty="No saved searches yet." limit={10} />
    </section>
  );
}
