/**
 * The hub's frame: the seller's logo and title (their accent colour made legible, model.ts),
 * whose hub it is and until when, a way back to the seller's site, sign out, the views, and the
 * view in <main>. On a view change the title changes and focus moves to its heading.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { Link } from '../components/link.js';
import { formatInstant } from '../format.js';
import { accentColors, HUB_VIEWS, sellerName, type HubViewName } from './model.js';
import type { HubSession } from './session.js';

export function HubShell(props: { session: HubSession; view: HubViewName | null; onSignOut: () => void; children: ComponentChildren }) {
  const { session, view } = props;
  const { theme } = session;
  const title = theme.title ?? 'Developer hub';
  const colors = accentColors(theme.accentColor);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const label = HUB_VIEWS.find((v) => v.name === view)?.label ?? 'No such page';

  useEffect(() => {
    document.title = `${label} · ${title}`;
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [label, title]);

  // Custom properties set through the CSSOM (not a style attribute, which the CSP refuses).
  const style = colors ? { '--accent': colors.accent, '--accent-text': colors.accentText, '--link': colors.link } : undefined;
  const customer = session.customer.name ?? session.customer.email ?? session.customer.id;
  return (
    <div class="hub" style={style}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top hub-top">
        <div class="brand">
          {theme.logoUrl && <img class="hub-logo" src={theme.logoUrl} alt="" />}
          <span class="product">{title}</span>
          <span class="workspace">
            {customer} · signed in until {formatInstant(session.expiresAt)}
          </span>
        </div>
        {session.returnUrl && <a href={session.returnUrl}>Back to {sellerName({ title: null, returnUrl: session.returnUrl })}</a>}
        <button type="button" class="sign-out" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Developer hub" class="hub-nav">
        <ul>
          {HUB_VIEWS.map((v) => (
            <li key={v.name}>
              <Link href={v.path} current={view === v.name}>
                {v.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
