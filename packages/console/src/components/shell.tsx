/**
 * The signed-in frame: skip link, header (workspace, operator, environment, sign out), navigation
 * (a menu button below 720 px), and the screen in <main>. On a screen change the title changes
 * and focus moves to the new screen's heading, as a page load would announce it (to <main> while a
 * lazily loaded screen has none yet; lazy-screen.tsx moves it on to the heading when it comes).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Environment } from '../api.js';
import { hrefOf, NAV, navSectionOf, type Route } from '../routes.js';
import type { OperatorSession } from '../session.js';
import { EnvironmentSwitch } from './environment-switch.js';
import { Link } from './link.js';

export function Shell(props: {
  session: OperatorSession;
  environment: Environment;
  onEnvironment: (env: Environment) => void;
  onSignOut: () => void;
  route: Route | null;
  title: string;
  children: ComponentChildren;
}) {
  const { session, route } = props;
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const section = navSectionOf(route);
  const routeKey = route ? `${route.name}:${JSON.stringify(route.params)}` : 'none';

  useEffect(() => {
    document.title = `${props.title} · Tollgate console`;
    if (first.current) {
      first.current = false;
      return;
    }
    setMenuOpen(false);
    (main.current?.querySelector<HTMLElement>('h1') ?? main.current)?.focus();
  }, [routeKey, props.title]);

  return (
    <div class={`shell env-is-${props.environment}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <span class="product">Tollgate</span>
          <span class="workspace" title={session.workspace.id}>
            {session.workspace.name}
          </span>
        </div>
        <EnvironmentSwitch value={props.environment} onChange={props.onEnvironment} />
        <div class="operator">
          <span class="email">{session.operator.email}</span> <span class="role">{session.operator.role}</span>
        </div>
        <button type="button" class="sign-out" onClick={props.onSignOut}>
          Sign out
        </button>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
      </header>
      {props.environment === 'live' && (
        <p class="live-banner" role="status">
          Live data: what you change here affects real customers and real money.
        </p>
      )}
      <div class="body">
        <nav id="main-nav" aria-label="Main" class={menuOpen ? 'open' : undefined}>
          <ul>
            {NAV.map((n) => (
              <li key={n.name}>
                <Link href={hrefOf(n.name)} current={section === n.name}>
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" ref={main} tabIndex={-1}>
          {props.children}
        </main>
      </div>
    </div>
  );
}
