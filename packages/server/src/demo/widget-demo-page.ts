import type { FastifyReply } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../lib/errors.js';
import type { App } from '../http/types.js';
import { createWidgetSession } from '../modules/widget-sessions/create-widget-session.js';
import { WIDGET_SCRIPT_PATH } from '../modules/widget-assets/widget-script.routes.js';
import type { DemoWorkspace } from './create-demo-workspace.js';

export const WIDGET_DEMO_PATH = '/demo/account';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The demo customer's account page, as a seller would build it: its backend mints a widget
 * session for the subscription on every page load (POST /api/v1/widget_sessions, here the
 * domain call itself) and hands the token to two widgets, one per mode: the upgrade flow in a
 * modal, the cancel flow inline (PERIOD_END first, as docs/subscriptions-and-billing.md recommends). The browser events
 * are listed as they fire. Development profile only, and only for the demo workspace created at
 * this start (main.ts).
 */
export async function widgetDemoRoutes(app: App, deps: Deps, demo: DemoWorkspace): Promise<void> {
  const env = demo.environments.test;
  app.get(WIDGET_DEMO_PATH, {
    config: { auth: { kind: 'none' } },
    schema: { hide: true },
    handler: async (_req, reply) => {
      const ctx = {
        workspaceId: demo.workspaceId,
        environment: 'test' as const,
        actor: { type: 'SYSTEM' as const, id: 'widget-demo' },
        correlationId: deps.ids.next('request'),
        source: 'system' as const,
      };
      try {
        const { token } = await createWidgetSession(deps, ctx, { subscriptionId: env.subscriptionId });
        return send(reply, 200, page(token));
      } catch (err) {
        if (err instanceof AppError && err.code === 'SUBSCRIPTION_NOT_ACTIVE')
          return send(
            reply,
            409,
            shell(
              `<p>The demo subscription was cancelled. Start again with an empty data directory, or create another demo workspace: <code>npx tollgate demo</code>.</p>`,
            ),
          );
        throw err;
      }
    },
  });
}

function send(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
    .send(html);
}

function shell(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Corp: your account (Tollgate widget demo)</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5}section{margin:2rem 0}pre{background:#f3f4f6;padding:.75rem;overflow:auto;font-size:.85em;max-height:16rem}</style>
</head><body><main><h1>Acme Corp: your account</h1>${body}</main></body></html>`;
}

function page(token: string): string {
  const t = escape(token);
  return shell(`<p>The seller's page: its backend minted a widget session for this subscription when the page loaded, and handed its token to the widgets below.</p>
<section><h2>Change plan (modal)</h2>
<tollgate-upgrade-cancel mode="upgrade" token="${t}"></tollgate-upgrade-cancel></section>
<section><h2>Cancel (inline)</h2>
<tollgate-upgrade-cancel mode="cancel" render-mode="inline" default-apply-at="PERIOD_END" token="${t}"></tollgate-upgrade-cancel></section>
<section><h2>Browser events</h2><p>Advisory only: entitlements change through the server's webhooks.</p><pre id="events" aria-live="polite"></pre></section>
<script>
for (const name of ['opened','selected','previewed','confirmed','completed','deflection_offer_accepted','dismissed','failed']) {
  document.addEventListener('svc.upgrade-cancel.' + name, (e) => {
    document.getElementById('events').textContent += 'svc.upgrade-cancel.' + name + ' ' + JSON.stringify(e.detail) + '\\n';
  });
}
</script>
<script src="${WIDGET_SCRIPT_PATH}"></script>`);
}
