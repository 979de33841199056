/**
 * The customer's product keys: rotate (the old key keeps working for 300 s, shown in the table),
 * Roll (for a key that leaked: the old key is revoked at once, the spec's "Roll button in the
 * developer hub"; confirmed first) and revoke (confirmed); create a key for one of the customer's
 * subscriptions. A new key's secret is shown once, with Copy; the server never gives it again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { FieldErrors, FormAlert, TextField, errorIdOf } from '../components/field-errors.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useApiScope } from '../context.js';
import { formErrors, problemFrom, type ApiProblem } from '../errors.js';
import { formatInstant } from '../format.js';
import type { ListPage } from '../paging.js';
import { useApi } from '../use-api.js';
import { graceText, planTitle, subscriptionLabel, type SubscriptionChoice } from './model.js';

export interface HubKey {
  id: string;
  name: string;
  hint: string;
  status: 'ACTIVE' | 'ROTATED' | 'EXPIRED' | 'REVOKED';
  expiresAt: string | null;
  createdAt: string;
}

interface RotatedKey {
  id: string;
  fullToken: string | null;
  previousKeyId: string;
  previousKeyExpiresAt: string | null;
}

type Action = 'rotate' | 'roll' | 'revoke';

const STATUS: Record<HubKey['status'], string> = { ACTIVE: 'Active', ROTATED: 'Rotated', EXPIRED: 'Expired', REVOKED: 'Revoked' };

export function Keys() {
  const { api } = useApiScope();
  const [round, setRound] = useState(0);
  const [confirming, setConfirming] = useState<{ action: 'roll' | 'revoke'; key: HubKey } | null>(null);
  const [secret, setSecret] = useState<Secret | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);

  async function act(action: Action, key: HubKey) {
    setBusy(true);
    setProblem(null);
    setDone(null);
    try {
      const path = `/api/v1/hub/keys/${encodeURIComponent(key.id)}/${action}`;
      if (action === 'revoke') {
        await api.post(path);
        setDone(`${key.name} (${key.hint}) is revoked: it stopped working at once.`);
      } else {
        const rotated = await api.post<RotatedKey>(path);
        setSecret({ id: rotated.id, token: rotated.fullToken, note: oldKeyText(key, action, rotated) });
      }
      setConfirming(null);
      setRound((r) => r + 1);
    } catch (err) {
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
    } finally {
      setBusy(false);
    }
  }

  const columns: Column<HubKey>[] = [
    { label: 'Name', cell: (k) => k.name },
    { label: 'Key', cell: (k) => <code>{k.hint}</code> },
    { label: 'Status', cell: (k) => (k.status === 'ROTATED' ? `${STATUS[k.status]}: ${graceText(k.expiresAt, Date.now())}` : STATUS[k.status]) },
    { label: 'Created', cell: (k) => formatInstant(k.createdAt) },
    {
      label: 'Actions',
      cell: (k) =>
        k.status === 'ACTIVE' ? (
          <div class="row-actions">
            <button type="button" disabled={busy} aria-label={`Rotate ${k.name}`} onClick={() => void act('rotate', k)}>
              Rotate
            </button>
            <button type="button" disabled={busy} aria-label={`Roll ${k.name}`} onClick={() => setConfirming({ action: 'roll', key: k })}>
              Roll
            </button>
            <button type="button" class="danger" disabled={busy} aria-label={`Revoke ${k.name}`} onClick={() => setConfirming({ action: 'revoke', key: k })}>
              Revoke
            </button>
          </div>
        ) : null,
    },
  ];

  return (
    <>
      <ScreenTitle>API keys</ScreenTitle>
      <p class="muted">
        Rotate replaces a key and keeps the old one working for 5 minutes, time to deploy the new one. Roll replaces a key that leaked: the old one stops
        working at once.
      </p>
      {problem && <ProblemMessage problem={problem} />}
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {confirming && <Confirm {...confirming} busy={busy} onCancel={() => setConfirming(null)} onConfirm={() => void act(confirming.action, confirming.key)} />}
      {secret && <NewSecret {...secret} onDone={() => setSecret(null)} />}
      <CreateKey
        onCreated={(created) => {
          setSecret(created);
          setRound((r) => r + 1);
        }}
      />
      <PagedTable key={round} path="/api/v1/hub/keys" caption="Your API keys, newest first" columns={columns} empty="You have no API keys yet." />
    </>
  );
}

/** Roll and revoke cannot be undone: say what happens, and ask. Focus moves here so a keyboard user lands on the question. */
function Confirm(props: { action: 'roll' | 'revoke'; key: HubKey; busy: boolean; onCancel: () => void; onConfirm: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.key.id, props.action]);
  const { key } = props;
  const roll = props.action === 'roll';
  return (
    <section class="confirm" aria-labelledby="confirm-title">
      <h2 id="confirm-title" tabIndex={-1} ref={heading}>
        {roll ? `Roll ${key.name}?` : `Revoke ${key.name}?`}
      </h2>
      <p>
        {roll
          ? `The key ${key.hint} stops working now, with no grace period, and a new key replaces it. Anything still using the old key is refused at once.`
          : `The key ${key.hint} stops working now and is not replaced.`}
      </p>
      <div class="row-actions">
        <button type="button" class="primary" disabled={props.busy} onClick={props.onConfirm}>
          {roll ? 'Roll now' : 'Revoke now'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** A new key's secret: its id, the token (null if the server kept it back), and what else to know. */
interface Secret {
  id: string;
  token: string | null;
  note: string;
}

/** What became of the key a rotate or roll replaced. */
function oldKeyText(key: HubKey, action: 'rotate' | 'roll', rotated: RotatedKey): string {
  return action === 'roll' || rotated.previousKeyExpiresAt === null
    ? `The old key ${key.hint} is revoked: it stopped working at once.`
    : `The old key ${key.hint} keeps working until ${formatInstant(rotated.previousKeyExpiresAt)}.`;
}

const CREATE_INPUTS = ['name', 'subscriptionId'] as const;

/**
 * A new key for one of the customer's subscriptions (the key is bound to it): the only one is
 * chosen already. Which subscription may have a key is the server's call; its errors show by
 * their fields.
 */
function CreateKey(props: { onCreated: (secret: Secret) => void }) {
  const { api } = useApiScope();
  const subs = useApi((a) => a.get<ListPage<SubscriptionChoice>>('/api/v1/hub/subscriptions', { limit: 100 }), []);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const errors = formErrors(problem, CREATE_INPUTS);
  const list = subs.state === 'ok' ? subs.data.data : [];
  const subInvalid = (errors.byInput.subscriptionId?.length ?? 0) > 0;

  async function submit(e: Event) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setProblem(null);
    try {
      const text = (name: string) => {
        const v = data.get(name);
        return typeof v === 'string' ? v : '';
      };
      const body = { name: text('name'), subscriptionId: text('subscriptionId') };
      const created = await api.post<{ id: string; fullToken: string | null; hint: string }>('/api/v1/hub/keys', body);
      const sub = list.find((x) => x.id === body.subscriptionId);
      props.onCreated({ id: created.id, token: created.fullToken, note: `It is ${body.name}, for ${sub ? planTitle(sub) : 'your subscription'}.` });
      form.current?.reset();
    } catch (err) {
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="create-key-title" class="hub-section create-key">
      <h2 id="create-key-title">Create a key</h2>
      {subs.state === 'error' && <ProblemMessage problem={subs.problem} />}
      {subs.state === 'ok' && list.length === 0 ? (
        <p>You need a subscription to create a key.</p>
      ) : (
        <form ref={form} onSubmit={(e) => void submit(e)} noValidate>
          <FormAlert messages={errors.general} />
          <TextField name="name" label="Name" hint="What the key is for, such as “production server”." errors={errors} required autoComplete="off" />
          <div class="field">
            <label for="field-subscriptionId">Subscription</label>
            <select
              id="field-subscriptionId"
              name="subscriptionId"
              required
              aria-invalid={subInvalid ? 'true' : undefined}
              aria-describedby={subInvalid ? errorIdOf('subscriptionId') : undefined}
            >
              {list.length !== 1 && <option value="">Choose a subscription</option>}
              {list.map((x) => (
                <option key={x.id} value={x.id}>
                  {subscriptionLabel(x, list)}
                </option>
              ))}
            </select>
            <FieldErrors errors={errors} name="subscriptionId" />
          </div>
          <button type="submit" class="primary" disabled={busy || subs.state !== 'ok'}>
            Create key
          </button>
        </form>
      )}
    </section>
  );
}

/** A new key's secret, once: with Copy, and what else to know (the old key's fate, or what the new one is for). */
function NewSecret(props: Secret & { onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.id]);
  const token = props.token;
  return (
    <section class="new-secret" aria-labelledby="secret-title">
      <h2 id="secret-title" tabIndex={-1} ref={heading}>
        Your new key
      </h2>
      <p>Copy it now: it is shown only this once. {props.note}</p>
      {token && (
        <p class="secret-line">
          <code class="secret" id="new-secret">
            {token}
          </code>{' '}
          <button
            type="button"
            aria-describedby="new-secret"
            onClick={() => {
              void navigator.clipboard.writeText(token).then(
                () => setCopied('Copied.'),
                () => setCopied('The browser did not allow copying: select the key and copy it.'),
              );
            }}
          >
            Copy
          </button>
        </p>
      )}
      <p role="status">{copied}</p>
      <button type="button" onClick={props.onDone}>
        I have copied it
      </button>
    </section>
  );
}
