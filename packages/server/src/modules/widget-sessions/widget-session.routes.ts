import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { preflight } from '../../http/cors.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams } from '../../http/schemas.js';
import { toIso } from '../../lib/clock.js';
import { idempotent } from '../idempotency/idempotent.js';
import { createWidgetSession } from './create-widget-session.js';
import { revokeWidgetSession } from './revoke-widget-session.js';
import { WIDGET_BASE_PATH, widgetCors } from './widget-cors.js';
import { widgetSessionOf } from './widget-session-of.js';
import { CreatedWidgetSessionSchema, CreateWidgetSessionBody, presentWidgetSession, WidgetSessionSchema, WidgetSessionViewSchema } from './widget-session.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Widget sessions'];

export async function widgetSessionRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/widget_sessions', {
    config: admin,
    schema: {
      operationId: 'createWidgetSession',
      summary: 'Mint a widget session for one subscription',
      description:
        "Call it from your backend when your page opens the upgrade/cancel widget, and hand the token to the widget: the buyer's browser then calls `/v1/widget/*` with `Authorization: Bearer wst_…`, on this one subscription only, until the session expires (default 900 s) or is revoked. The token is shown once (only its SHA-256 is stored) and works on the widget routes only. 404 for a subscription of another workspace or environment; 409 SUBSCRIPTION_NOT_ACTIVE for a cancelled one.",
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateWidgetSessionBody,
      response: { 200: CreatedWidgetSessionSchema, ...errors(403, 404, 409, 422) },
    },
    handler: (req, reply) =>
      idempotent<Static<typeof CreatedWidgetSessionSchema>>(
        deps,
        req,
        reply,
        async (tx) => {
          const { session, token } = await createWidgetSession(tx, req.ctx, req.body);
          return { ...presentWidgetSession(session), token };
        },
        (body) => ({ ...body, token: null }),
      ),
  });

  app.delete('/api/v1/widget_sessions/:id', {
    config: admin,
    schema: {
      operationId: 'revokeWidgetSession',
      summary: 'Revoke a widget session at once',
      description: 'The token stops working on every node at once. Revoking a revoked or expired session returns it unchanged.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: WidgetSessionSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentWidgetSession(await revokeWidgetSession(deps, req.ctx, req.params.id)),
  });

  // Preflights carry no credentials: answered for every widget route, unauthenticated.
  app.options(`${WIDGET_BASE_PATH}/*`, { schema: { hide: true }, handler: preflight(widgetCors) });

  app.get(`${WIDGET_BASE_PATH}/session`, {
    config: { auth: { kind: 'widget_session' } },
    schema: {
      operationId: 'retrieveWidgetSession',
      summary: 'The widget session the browser holds',
      description:
        'For the widget: which subscription and customer its session names and when it expires. Authenticated with `Authorization: Bearer wst_…` only (an API key gets 401). An expired or revoked session gets 401: the seller’s page must start a new one. Answers CORS for the session’s allowed origins; another origin gets 403 ORIGIN_NOT_ALLOWED.',
      tags,
      security: [{ widgetSession: [] }],
      response: { 200: WidgetSessionViewSchema, ...errors(403) },
    },
    handler: async (req) => {
      const s = widgetSessionOf(req);
      return { id: s.id, object: 'widget_session' as const, subscriptionId: s.subscriptionId, customerId: s.customerId, expiresAt: toIso(s.expiresAt) };
    },
  });
}
