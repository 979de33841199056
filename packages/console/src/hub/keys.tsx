/**
 * The customer's product keys: rotate (the old key keeps working for 300 s, shown in the table),
 * Roll (for a key that leaked: the old key is revoked at once, the spec's "Roll button in the
 * developer hub"; confirmed first) and revoke (confirmed). A new key's secret is shown once, with
 * Copy; the server never gives it again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { PagedTable, type Column } from '../components/paged-table.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useApiScope } from '../context.js';
import { problemFrom, type ApiProblem } from '../errors.js';
import { formatInstant } from '../format.js';
import { graceText } from './model.js';

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
  const [secret, setSecret] = useState<{ key: HubKey; action: 'rotate' | 'roll'; rotated: RotatedKey } | null>(null);
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
        setSecret({ key, action, rotated: await api.post<RotatedKey>(path) });
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

/** The new key's secret, once: with Copy, and what became of the old key. */
function NewSecret(props: { key: HubKey; action: 'rotate' | 'roll'; rotated: RotatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.rotated.id]);
  const token = props.rotated.fullToken;
  const old =
    props.action === 'roll' || props.rotated.previousKeyExpiresAt === null
      ? `The old key ${props.key.hint} is revoked: it stopped working at once.`
      : `The old key ${props.key.hint} keeps working until ${formatInstant(props.rotated.previousKeyExpiresAt)}.`;
  return (
    <section class="new-secret" aria-labelledby="secret-title">
      <h2 id="secret-title" tabIndex={-1} ref={heading}>
        Your new key
      </h2>
      <p>Copy it now: it is shown only this once. {old}</p>
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
