/**
 * Payments settings of the environment shown: connect Stripe (a secret key of the environment's
 * mode and the signing secret of the Stripe webhook endpoint), replace its keys, disconnect. The
 * secrets go in password inputs and never come back: the page shows their last four characters
 * (the API's hints) and the webhook URL to give Stripe, with a Copy button. The server decides
 * what a key may be (a live key on test data is its 400, shown at the key's input).
 */
import { useRef, useState } from 'preact/hooks';
import { ConfirmPanel, type Confirmation } from '../components/confirm-panel.js';
import { CopyButton } from '../components/copy-button.js';
import { TextField } from '../components/field-errors.js';
import { NewForm } from '../components/managed-list.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useConsole } from '../context.js';
import { formatInstant } from '../format.js';
import { webhookAddress } from '../payments.js';
import { formValues, useAction, useKept } from '../use-action.js';
import { useApi } from '../use-api.js';

interface PaymentProvider {
  id: string;
  provider: string;
  secretKeyHint: string;
  webhookSecretHint: string | null;
  webhookUrl: string;
  createdAt: string;
  updatedAt: string;
}

const STRIPE_PATH = '/api/v1/payment_providers/stripe';
const INPUTS = ['secretKey', 'webhookSecret'] as const;

/** The connect form, also the "Replace keys" form: both secrets, each error at its input. */
function KeysForm(props: { replacing: boolean; onSaved: () => void; onCancel?: () => void }) {
  const { environment } = useConsole();
  const action = useAction<PaymentProvider>();
  async function submit(form: HTMLFormElement) {
    const v = formValues(form);
    // The signing secret comes once Stripe's endpoint points at this connection's URL.
    const body = { secretKey: v.secretKey ?? '', ...(v.webhookSecret ? { webhookSecret: v.webhookSecret } : {}) };
    const saved = await action.run((api) => api.put<PaymentProvider>(STRIPE_PATH, body));
    if (saved) props.onSaved();
  }
  return (
    <div class="new-form">
      <NewForm action={action} inputs={INPUTS} submit={props.replacing ? 'Save the new keys' : 'Connect Stripe'} onSubmit={(f) => void submit(f)}>
        {(errors) => (
          <>
            <TextField
              name="secretKey"
              label="Secret key"
              hint={`From Stripe’s API keys page, in ${environment} mode: ${environment === 'live' ? 'sk_live_… or a restricted rk_live_…' : 'sk_test_… or a restricted rk_test_…'} key.`}
              type="password"
              autoComplete="off"
              spellcheck={false}
              required
              errors={errors}
            />
            <TextField
              name="webhookSecret"
              label="Webhook signing secret (optional)"
              hint="whsec_…: add it once Stripe sends to the webhook URL below; empty keeps the stored one."
              type="password"
              autoComplete="off"
              spellcheck={false}
              errors={errors}
            />
          </>
        )}
      </NewForm>
      {props.onCancel && (
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

function Connection(props: { connection: PaymentProvider }) {
  const c = props.connection;
  const url = webhookAddress(window.location.origin, c.webhookUrl);
  return (
    <>
      <dl class="facts">
        <dt>Secret key</dt>
        <dd>
          <code>{c.secretKeyHint}</code>
        </dd>
        <dt>Webhook signing secret</dt>
        <dd>{c.webhookSecretHint === null ? <span>not given yet: Stripe’s webhooks are refused until it is</span> : <code>{c.webhookSecretHint}</code>}</dd>
        <dt>Connected</dt>
        <dd>{formatInstant(c.createdAt)}</dd>
        {c.updatedAt !== c.createdAt && <dt>Keys replaced</dt>}
        {c.updatedAt !== c.createdAt && <dd>{formatInstant(c.updatedAt)}</dd>}
      </dl>
      <h3 id="webhook-url-label">Webhook URL</h3>
      <p>
        In Stripe, add a webhook endpoint with this URL, and give its signing secret here. It is this server’s address as your browser reaches it: if Stripe
        reaches the server at another, put that before <code>{c.webhookUrl}</code>.
      </p>
      <code class="secret-value" aria-labelledby="webhook-url-label">
        {url}
      </code>
      <CopyButton text={url} label="Copy the webhook URL" />
    </>
  );
}

function Stripe() {
  const { environment } = useConsole();
  const loaded = useApi((api) => api.get<{ data: PaymentProvider[] }>('/api/v1/payment_providers'), []);
  const kept = useKept(loaded);
  const connection = kept?.data.find((p) => p.provider === 'stripe') ?? null;
  const [replacing, setReplacing] = useState(false);
  // State, not a new object each render: the panel moves focus to Cancel when its confirmation changes.
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const [done, setDone] = useState('');
  const disconnect = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  const data = environment === 'live' ? 'live data' : 'test data';

  /** After a change: its words in the status, the panel closed, focus on the heading (the button that had it may be gone). */
  function settle(words: string) {
    setDone(words);
    setReplacing(false);
    setConfirmation(null);
    heading.current?.focus();
    loaded.reload();
  }

  return (
    <section class="detail-section payment-provider" aria-labelledby="stripe-title">
      <h2 id="stripe-title" tabIndex={-1} ref={heading}>
        Stripe
      </h2>
      <p role="status" class={done ? 'notice' : undefined}>
        {done}
      </p>
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {kept === null && loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {kept !== null && connection === null && (
        <>
          <p>Stripe is not connected to {data}.</p>
          <KeysForm replacing={false} onSaved={() => settle('Connected. Give Stripe the webhook URL below.')} />
        </>
      )}
      {connection !== null && (
        <>
          <p>Stripe is connected to {data}.</p>
          <Connection connection={connection} />
          <div class="actions">
            <button
              type="button"
              aria-expanded={replacing}
              aria-controls="replace-keys"
              onClick={() => {
                setConfirmation(null);
                setReplacing(!replacing);
              }}
            >
              Replace keys
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => {
                disconnect.reset();
                setReplacing(false);
                setConfirmation({
                  question: `Disconnect Stripe from ${data}? Tollgate deletes its keys. Connecting again gives a new webhook URL, to give Stripe again.`,
                  confirmLabel: 'Disconnect Stripe',
                  run: async () => {
                    if (await disconnect.run((api) => api.delete(STRIPE_PATH))) settle(`Stripe is disconnected from ${data}.`);
                  },
                });
              }}
            >
              Disconnect
            </button>
          </div>
          <div id="replace-keys" hidden={!replacing}>
            {replacing && (
              <KeysForm
                replacing
                onSaved={() => settle('The keys are replaced. The webhook URL stays the same.')}
                onCancel={() => {
                  setReplacing(false);
                  heading.current?.focus();
                }}
              />
            )}
          </div>
          {confirmation && (
            <ConfirmPanel
              confirmation={confirmation}
              busy={disconnect.busy}
              onCancel={() => {
                setConfirmation(null);
                heading.current?.focus();
              }}
            />
          )}
          {disconnect.problem && <ProblemMessage problem={disconnect.problem} />}
        </>
      )}
    </section>
  );
}

export function PaymentSettings() {
  const { environment } = useConsole();
  return (
    <>
      <ScreenTitle>Payments</ScreenTitle>
      <p class="muted">
        How the {environment} environment collects invoices. Test and live each connect their own Stripe mode: test data takes a test-mode key, live data a live
        one. A payment made outside Tollgate (a bank transfer, a cheque) is recorded on its invoice, with no connection.
      </p>
      <Stripe />
    </>
  );
}
