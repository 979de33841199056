/**
 * Keys of the environment shown: API keys (workspace and product), client credentials and
 * storefront keys. A secret appears once, in the answer that made it; the lists show hints only.
 * Each kind offers only what its API supports: API keys rotate (the old one works 5 more minutes),
 * roll (the old one is revoked at once) and revoke; the others revoke. On a phone each list's
 * rows stack as cards, so a key's status and its actions are in view.
 */
import { useState } from 'preact/hooks';
import { CheckboxGroup, SelectField } from '../components/choice-fields.js';
import { TextField } from '../components/field-errors.js';
import { ManagedList, NewForm, RowActions, type ListChanges, type Reveal } from '../components/managed-list.js';
import type { Column } from '../components/paged-table.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useConsole } from '../context.js';
import { formatInstant, NONE } from '../format.js';
import { apiKeyActions, graceText, keyStatusText, revokeOnly, type KeyAction, type KeyStatus } from '../keys.js';
import { formValues } from '../use-action.js';

interface ApiKey {
  id: string;
  kind: 'WORKSPACE' | 'PRODUCT';
  name: string;
  hint: string;
  scopes: string[];
  subscriptionId: string | null;
  status: KeyStatus;
  expiresAt: string | null;
  createdAt: string;
}

interface RotatedKey {
  id: string;
  fullToken: string | null;
  previousKeyId: string;
  previousKeyExpiresAt: string | null;
}

interface ClientCredential {
  id: string;
  name: string;
  hint: string;
  subscriptionId: string;
  status: KeyStatus;
  createdAt: string;
}

interface StorefrontKey {
  id: string;
  name: string;
  hint: string;
  storefrontId: string | null;
  status: KeyStatus;
  createdAt: string;
}

const SCOPES = ['admin', 'ingest', 'entitlements:read', 'keys:verify', 'keys:write', 'events:read'].map((s) => ({ value: s, label: s }));
const enc = encodeURIComponent;

const ACTION_WORDS: Record<KeyAction, { label: string; question: (name: string) => string; confirm: string }> = {
  rotate: {
    label: 'Rotate',
    question: (n) => `Rotate “${n}”? You get a new key now; the old one keeps working for 5 minutes, then stops.`,
    confirm: 'Rotate key',
  },
  roll: {
    label: 'Roll',
    question: (n) => `Roll “${n}”? The old key stops working at once (for a key that leaked); you get a new one now.`,
    // The developer hub's word for it too: what differs from a rotation is that it is at once.
    confirm: 'Roll now',
  },
  revoke: { label: 'Revoke', question: (n) => `Revoke “${n}”? It stops working at once. This cannot be undone.`, confirm: 'Revoke' },
};

/** Buttons for the actions a row allows; each asks first. */
function actionsOf(name: string, actions: KeyAction[], run: (a: KeyAction) => void) {
  return <RowActions subject={name} actions={actions.map((a) => ({ label: ACTION_WORDS[a].label, onClick: () => run(a) }))} />;
}

function revoke(changes: ListChanges, path: string, name: string) {
  changes.ask(ACTION_WORDS.revoke.question(name), ACTION_WORDS.revoke.confirm, (api) => api.delete(path));
}

function apiKeyColumns(changes: ListChanges): Column<ApiKey>[] {
  const act = (k: ApiKey, a: KeyAction) => {
    const path = `/api/v1/api-keys/${enc(k.id)}`;
    if (a === 'revoke') return revoke(changes, path, k.name);
    changes.ask(
      ACTION_WORDS[a].question(k.name),
      ACTION_WORDS[a].confirm,
      (api) => api.post<RotatedKey>(`${path}/${a}`),
      (r) =>
        r.fullToken === null
          ? null
          : {
              title: `New key for “${k.name}”`,
              label: 'Secret key',
              secret: r.fullToken,
              note: a === 'rotate' ? graceText(r.previousKeyExpiresAt) : 'The old key is revoked: anything still using it gets 401 from now on.',
            },
    );
  };
  return [
    { label: 'Name', cell: (k) => k.name },
    { label: 'Key', cell: (k) => <code>{k.hint}</code> },
    { label: 'Status', cell: (k) => <span class="cell-wrap">{keyStatusText(k)}</span> },
    { label: 'Actions', cell: (k) => actionsOf(k.name, apiKeyActions(k.status), (a) => act(k, a)) },
    { label: 'Kind', cell: (k) => (k.kind === 'WORKSPACE' ? 'Workspace' : 'Product') },
    {
      label: 'Scopes or subscription',
      cell: (k) => <span class="cell-wrap">{k.kind === 'WORKSPACE' ? k.scopes.join(', ') : (k.subscriptionId ?? NONE)}</span>,
    },
    { label: 'Created', cell: (k) => formatInstant(k.createdAt) },
  ];
}

function NewApiKey(props: { changes: ListChanges; close: () => void }) {
  const [kind, setKind] = useState('WORKSPACE');
  const { create } = props.changes;
  async function submit(form: HTMLFormElement) {
    const v = formValues(form);
    const body =
      kind === 'WORKSPACE'
        ? { kind, name: v.name ?? '', scopes: new FormData(form).getAll('scopes') }
        : { kind, name: v.name ?? '', subscriptionId: v.subscriptionId ?? '' };
    const key = await create.run((api) => api.post<ApiKey & { fullToken: string | null }>('/api/v1/api-keys', body));
    if (!key?.fullToken) return;
    props.close();
    props.changes.show({ title: `New key “${key.name}”`, label: 'Secret key', secret: key.fullToken });
  }
  return (
    <NewForm action={create} inputs={['kind', 'name', 'scopes', 'subscriptionId']} submit="Create key" onSubmit={(f) => void submit(f)}>
      {(errors) => (
        <>
          <SelectField
            name="kind"
            label="Kind"
            value={kind}
            onValue={setKind}
            errors={errors}
            choices={[
              { value: 'WORKSPACE', label: 'Workspace key (for your servers)' },
              { value: 'PRODUCT', label: 'Product key (for one of your customers)' },
            ]}
          />
          <TextField name="name" label="Name" hint="To tell keys apart, e.g. “Billing server”." required errors={errors} />
          {kind === 'WORKSPACE' ? (
            <CheckboxGroup name="scopes" legend="Scopes" choices={SCOPES} checked={['ingest']} errors={errors} />
          ) : (
            <TextField name="subscriptionId" label="Subscription id" hint="sub_…: an active subscription to an API product." required errors={errors} />
          )}
        </>
      )}
    </NewForm>
  );
}

const credentialColumns = (changes: ListChanges): Column<ClientCredential>[] => [
  { label: 'Name', cell: (c) => c.name },
  { label: 'Client ID', cell: (c) => <code>{c.id}</code> },
  { label: 'Secret', cell: (c) => <code>{c.hint}</code> },
  { label: 'Subscription', cell: (c) => c.subscriptionId },
  { label: 'Status', cell: (c) => keyStatusText(c) },
  { label: 'Created', cell: (c) => formatInstant(c.createdAt) },
  { label: 'Actions', cell: (c) => actionsOf(c.name, revokeOnly(c.status), () => revoke(changes, `/api/v1/client-credentials/${enc(c.id)}`, c.name)) },
];

/**
 * The create form of a kind made of a name and the id of what it is bound to (a subscription, a
 * storefront), whose answer carries one secret.
 */
function NewBoundKey<T extends { name: string }>(props: {
  changes: ListChanges;
  close: () => void;
  path: string;
  bound: { name: string; label: string; hint: string };
  nameHint?: string;
  submit: string;
  reveal: (answer: T) => Reveal | null;
}) {
  const { create } = props.changes;
  async function submit(form: HTMLFormElement) {
    const v = formValues(form);
    const answer = await create.run((api) => api.post<T>(props.path, { name: v.name ?? '', [props.bound.name]: v[props.bound.name] ?? '' }));
    const reveal = answer && props.reveal(answer);
    if (!reveal) return;
    props.close();
    props.changes.show(reveal);
  }
  return (
    <NewForm action={create} inputs={['name', props.bound.name]} submit={props.submit} onSubmit={(f) => void submit(f)}>
      {(errors) => (
        <>
          <TextField name="name" label="Name" hint={props.nameHint} required errors={errors} />
          <TextField name={props.bound.name} label={props.bound.label} hint={props.bound.hint} required errors={errors} />
        </>
      )}
    </NewForm>
  );
}

const NewClientCredential = (props: { changes: ListChanges; close: () => void }) => (
  <NewBoundKey<ClientCredential & { clientSecret: string | null }>
    {...props}
    path="/api/v1/client-credentials"
    bound={{ name: 'subscriptionId', label: 'Subscription id', hint: 'sub_…: an active subscription to an AI agent or MCP server product.' }}
    submit="Issue credentials"
    reveal={(c) =>
      c.clientSecret === null ? null : { title: `New client credentials “${c.name}”`, label: `Client secret (client ID ${c.id})`, secret: c.clientSecret }
    }
  />
);

const storefrontColumns = (changes: ListChanges): Column<StorefrontKey>[] => [
  { label: 'Name', cell: (k) => k.name },
  { label: 'Key', cell: (k) => <code>{k.hint}</code> },
  { label: 'Storefront', cell: (k) => k.storefrontId ?? NONE },
  { label: 'Status', cell: (k) => keyStatusText(k) },
  { label: 'Created', cell: (k) => formatInstant(k.createdAt) },
  { label: 'Actions', cell: (k) => actionsOf(k.name, revokeOnly(k.status), () => revoke(changes, `/api/v1/storefront-keys/${enc(k.id)}`, k.name)) },
];

const NewStorefrontKey = (props: { changes: ListChanges; close: () => void }) => (
  <NewBoundKey<StorefrontKey & { fullToken: string | null }>
    {...props}
    path="/api/v1/storefront-keys"
    bound={{ name: 'storefrontId', label: 'Storefront id', hint: 'sf_…: the storefront whose published pricing the key reads.' }}
    nameHint="One key per website is typical."
    submit="Create key"
    reveal={(k) => (k.fullToken === null ? null : { title: `New storefront key “${k.name}”`, label: 'Storefront key', secret: k.fullToken })}
  />
);

export function Keys() {
  const { environment } = useConsole();
  return (
    <>
      <ScreenTitle>Keys</ScreenTitle>
      <p class="muted">
        Keys of the {environment === 'live' ? 'live' : 'test'} environment. A secret is shown once, when it is made; the lists show only its last characters.
      </p>
      <ManagedList<ApiKey>
        id="api-keys"
        title="API keys"
        newLabel="New API key"
        form={(changes, close) => <NewApiKey changes={changes} close={close} />}
        path="/api/v1/api-keys"
        caption="API keys, newest first"
        columns={apiKeyColumns}
        empty="No API keys in this environment yet."
        stacked
      />
      <ManagedList<ClientCredential>
        id="client-credentials"
        title="Client credentials"
        intro={<p class="muted">For customers of AI agent and MCP server products: they exchange these at /oauth/token for access tokens.</p>}
        newLabel="New client credentials"
        form={(changes, close) => <NewClientCredential changes={changes} close={close} />}
        path="/api/v1/client-credentials"
        caption="Client credentials, newest first"
        columns={credentialColumns}
        empty="No client credentials in this environment yet."
        stacked
      />
      <ManagedList<StorefrontKey>
        id="storefront-keys"
        title="Storefront keys"
        intro={<p class="muted">For your pricing page: they read the published pricing and nothing else.</p>}
        newLabel="New storefront key"
        form={(changes, close) => <NewStorefrontKey changes={changes} close={close} />}
        path="/api/v1/storefront-keys"
        caption="Storefront keys, newest first"
        columns={storefrontColumns}
        empty="No storefront keys in this environment yet."
        stacked
      />
    </>
  );
}
