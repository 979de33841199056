/**
 * The console: the session decides between the sign-in form and the signed-in shell; the path
 * (routes.ts) decides the screen, whose code is fetched on its first visit (lazy-screens.ts); the environment (test unless the operator switches, kept for
 * this tab) goes with every request.
 */
import { Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createApi, type Environment } from './api.js';
import { Shell } from './components/shell.js';
import { Console, type ConsoleContext } from './context.js';
import { navigate, useLocation } from './navigation.js';
import { hrefOf, matchRoute, NAV, type Route } from './routes.js';
import { catalogScreen } from './screens/catalog.js';
import {
  Audit,
  CustomerDetail,
  Customers,
  Home,
  InvoiceDetail,
  Keys,
  Operators,
  OutboundDelivery,
  OutboundEndpoint,
  OutboundEndpoints,
  PaymentSettings,
  TestClocks,
  WebhookEntry,
  WebhookSourceDetail,
  WebhookSources,
} from './lazy-screens.js';
import { NotFound, Placeholder } from './screens/placeholder.js';
import { SignIn } from './screens/sign-in.js';
import { AcceptInvitation } from './screens/accept-invitation.js';
import { readCurrentSession, signOut, type OperatorSession } from './session.js';

const ENV_KEY = 'tollgate.console.environment';

function storedEnvironment(): Environment {
  try {
    return window.sessionStorage.getItem(ENV_KEY) === 'live' ? 'live' : 'test';
  } catch {
    return 'test';
  }
}

function screenOf(route: Route | null) {
  if (!route) return { title: 'No such page', body: <NotFound /> };
  if (route.name === 'home') return { title: 'Home', body: <Home /> };
  if (route.name === 'customers') return { title: 'Customers', body: <Customers /> };
  if (route.name === 'customer') return { title: 'Customer', body: <CustomerDetail id={route.params.id ?? ''} /> };
  if (route.name === 'keys') return { title: 'Keys', body: <Keys /> };
  if (route.name === 'operators') return { title: 'Operators', body: <Operators /> };
  if (route.name === 'payment-settings') return { title: 'Payments', body: <PaymentSettings /> };
  if (route.name === 'test-clocks') return { title: 'Test clocks', body: <TestClocks /> };
  if (route.name === 'audit') return { title: 'Audit log', body: <Audit /> };
  const p = route.params;
  if (route.name === 'webhooks') return { title: 'Webhooks', body: <WebhookSources /> };
  if (route.name === 'webhook-source') return { title: 'Webhook source', body: <WebhookSourceDetail id={p.id ?? ''} /> };
  if (route.name === 'webhook-entry') return { title: 'Received webhook', body: <WebhookEntry id={p.id ?? ''} entryId={p.entryId ?? ''} /> };
  if (route.name === 'outbound') return { title: 'Outbound webhooks', body: <OutboundEndpoints /> };
  if (route.name === 'outbound-endpoint') return { title: 'Webhook endpoint', body: <OutboundEndpoint id={p.id ?? ''} /> };
  if (route.name === 'outbound-delivery') return { title: 'Delivery', body: <OutboundDelivery id={p.id ?? ''} messageId={p.messageId ?? ''} /> };
  if (route.name.startsWith('catalog')) return catalogScreen(route);
  if (route.name === 'invoice') return { title: 'Invoice', body: <InvoiceDetail id={route.params.id ?? ''} /> };
  const title = NAV.find((n) => n.name === route.name)?.label ?? 'Console';
  return { title, body: <Placeholder title={title} /> };
}

export function App() {
  const location = useLocation();
  const [environment, setEnvironment] = useState<Environment>(storedEnvironment);
  const [session, setSession] = useState<OperatorSession | null | 'loading'>('loading');
  const [notice, setNotice] = useState<string | null>(null);
  const current = useRef({ environment, session });
  current.current = { environment, session };
  const api = useMemo(
    () =>
      createApi({
        environment: () => current.current.environment,
        csrfToken: () => (typeof current.current.session === 'object' && current.current.session ? current.current.session.csrfToken : null),
      }),
    [],
  );

  useEffect(() => {
    readCurrentSession(api).then(setSession, () => setSession(null));
  }, [api]);

  const route = matchRoute(location.pathname);
  const signedIn = session !== null && session !== 'loading';

  // Signed in at /console/sign-in (a bookmark, Back): Home instead.
  useEffect(() => {
    if (signedIn && route?.name === 'sign-in') navigate(hrefOf('home'), { replace: true });
    if (route?.name === 'accept') document.title = 'Join a workspace · Tollgate console';
    else if (!signedIn) document.title = 'Sign in · Tollgate console';
  }, [signedIn, route?.name]);

  // While the sign-in form is shown, fetch Home's code: the screen that follows it.
  useEffect(() => {
    if (session === null) Home.preload().catch(() => undefined);
  }, [session]);

  if (session === 'loading') {
    return (
      <main id="main">
        <p role="status">Loading the console…</p>
      </main>
    );
  }

  // An invitation link opens the accept form whoever is signed in here: accepting signs in as the newcomer.
  if (route?.name === 'accept') {
    return (
      <AcceptInvitation
        api={api}
        token={window.location.hash.slice(1)}
        onSignedIn={(s) => {
          setNotice(null);
          setSession(s);
          // Home, and the token out of the address bar and the history.
          navigate(hrefOf('home'), { replace: true });
        }}
      />
    );
  }

  if (session === null || route?.name === 'sign-in') {
    const workspace = new URLSearchParams(location.search).get('workspace') ?? '';
    return (
      <SignIn
        api={api}
        workspace={workspace}
        notice={notice}
        onSignedIn={(s) => {
          setNotice(null);
          setSession(s);
        }}
      />
    );
  }

  const context: ConsoleContext = {
    api,
    environment,
    session,
    signedOut: () => {
      setNotice('Your session has ended. Sign in again.');
      setSession(null);
    },
  };
  const screen = screenOf(route);
  return (
    <Console.Provider value={context}>
      <Shell
        session={session}
        environment={environment}
        route={route}
        title={screen.title}
        onEnvironment={(env) => {
          setEnvironment(env);
          try {
            window.sessionStorage.setItem(ENV_KEY, env);
          } catch {
            // Private mode: the choice lasts until the page is reloaded.
          }
        }}
        onSignOut={() => {
          void signOut(api).finally(() => {
            setNotice('You are signed out.');
            setSession(null);
          });
        }}
      >
        {/* Keyed by the environment: a switch starts the screen afresh (a cursor or a form of the other environment means nothing here). */}
        <Fragment key={environment}>{screen.body}</Fragment>
      </Shell>
    </Console.Provider>
  );
}
