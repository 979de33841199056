/**
 * The developer hub (/hub): a seller's customer opens the single-use link (`/hub#hbl_…`) their
 * seller's backend minted; the page exchanges it for the hub cookie, takes the token out of the
 * address (so a reload, a bookmark or Back reuses the cookie, never the spent link), and shows
 * that customer's keys, usage, subscription and invoices. A used or expired link, or a session
 * that ends (any 401), shows the "link has expired" page; /hub opened with no link, in a tab that
 * never had a session, says where links come from instead.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createApi } from '../api.js';
import { ProblemMessage } from '../components/problem-message.js';
import { HubScope, type ApiScope } from '../context.js';
import { problemFrom, type ApiProblem } from '../errors.js';
import { useLocation } from '../navigation.js';
import { HubShell } from './shell.js';
import {
  endedKindOf,
  expiredText,
  HUB_VIEWS,
  hubViewOf,
  linkTokenOf,
  NO_LINK_TEXT,
  NO_LINK_TITLE,
  sellerName,
  type HubViewName,
  type Seller,
} from './model.js';
import { HubCsrf, openHubSession, readHubSession, signOutOfHub, type HubSession } from './session.js';
import { Keys } from './keys.js';
import { Usage } from './usage.js';
import { Subscription } from './subscription.js';
import { Billing } from './billing.js';
import { PaymentMethod } from './payment-method.js';
import { Credits } from './credits.js';

const SELLER_KEY = 'tollgate.hub.seller';

type State =
  | { state: 'loading' }
  | { state: 'ok'; session: HubSession }
  | { state: 'expired' }
  | { state: 'no-link' }
  | { state: 'signed-out' }
  | { state: 'error'; problem: ApiProblem };

function remembered(): Seller | null {
  try {
    return JSON.parse(window.sessionStorage.getItem(SELLER_KEY) ?? 'null') as Seller | null;
  } catch {
    return null;
  }
}

function remember(s: HubSession): void {
  try {
    window.sessionStorage.setItem(SELLER_KEY, JSON.stringify({ title: s.theme.title ?? null, returnUrl: s.returnUrl }));
  } catch {
    // Private mode: an expired page then says "the site that sent you here".
  }
}

const VIEWS: Record<HubViewName, () => preact.JSX.Element> = {
  keys: Keys,
  usage: Usage,
  subscription: Subscription,
  billing: Billing,
  credits: Credits,
  'payment-method': PaymentMethod,
};

export function HubApp() {
  const location = useLocation();
  const [state, setState] = useState<State>({ state: 'loading' });
  const csrf = useRef<string | null>(null);
  const csrfToken = useMemo(() => () => csrf.current, []);
  const api = useMemo(() => createApi({ csrfToken }), [csrfToken]);

  useEffect(() => {
    const token = linkTokenOf(window.location.hash);
    // Out of the address at once: the link works once, the cookie is what a reload must use.
    if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
    (token ? openHubSession(api, token) : readHubSession(api)).then(
      (session) => {
        if (!session) return setState({ state: endedKindOf(token !== null, remembered()) });
        csrf.current = session.csrfToken;
        remember(session);
        setState({ state: 'ok', session });
      },
      (err: unknown) => setState({ state: 'error', problem: err instanceof Error && 'problem' in err ? (err.problem as ApiProblem) : problemFrom(0, null) }),
    );
  }, [api]);

  if (state.state === 'loading') return <Message title="Developer hub" text="Opening your developer hub…" status />;
  if (state.state === 'error') {
    return (
      <main id="main" class="hub-message">
        <h1>Developer hub</h1>
        <ProblemMessage problem={state.problem} />
      </main>
    );
  }
  if (state.state === 'no-link') return <NoLink />;
  if (state.state === 'expired' || state.state === 'signed-out') return <Ended signedOut={state.state === 'signed-out'} />;

  const scope: ApiScope = { api, environment: 'test', signedOut: () => setState({ state: 'expired' }) };
  const view = hubViewOf(location.pathname);
  const View = view ? VIEWS[view] : null;
  return (
    <HubScope.Provider value={scope}>
      <HubCsrf.Provider value={csrfToken}>
        <HubShell session={state.session} view={view} onSignOut={() => void signOutOfHub(api).finally(() => setState({ state: 'signed-out' }))}>
          {View ? <View /> : <NoSuchView />}
        </HubShell>
      </HubCsrf.Provider>
    </HubScope.Provider>
  );
}

function Message(props: { title: string; text: string; status?: boolean }) {
  return (
    <main id="main" class="hub-message">
      <h1>{props.title}</h1>
      <p role={props.status ? 'status' : undefined}>{props.text}</p>
    </main>
  );
}

/** The end of a session: an expired or used link, an expired or revoked session, or the customer's own sign-out. */
function Ended(props: { signedOut: boolean }) {
  const seller = remembered();
  useEffect(() => {
    document.title = props.signedOut ? 'Signed out · Developer hub' : 'Link expired · Developer hub';
  }, [props.signedOut]);
  const name = sellerName(seller);
  return (
    <main id="main" class="hub-message">
      <h1>{props.signedOut ? 'You are signed out' : 'This link has expired'}</h1>
      <p role="alert">{props.signedOut ? `To come back, open the developer hub again from ${name ?? 'the site that sent you here'}.` : expiredText(seller)}</p>
      {seller?.returnUrl && (
        <p>
          <a href={seller.returnUrl}>Back to {name}</a>
        </p>
      )}
    </main>
  );
}

/** /hub without a link, in a tab that never had a session: not an expired link, so say where links come from. */
function NoLink() {
  useEffect(() => {
    document.title = 'Open from your account · Developer hub';
  }, []);
  return (
    <main id="main" class="hub-message">
      <h1>{NO_LINK_TITLE}</h1>
      <p role="alert">{NO_LINK_TEXT}</p>
    </main>
  );
}

function NoSuchView() {
  return (
    <>
      <h1 tabIndex={-1}>No such page</h1>
      <p>
        The developer hub has no page here. Go to <a href={HUB_VIEWS[0]!.path}>your API keys</a>.
      </p>
    </>
  );
}
