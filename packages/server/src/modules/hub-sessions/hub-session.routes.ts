import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, publicSecurity } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { createHubSession } from './create-hub-session.js';
import { revokeHubSession } from './revoke-hub-session.js';
import { openHubSession } from './open-hub-session.js';
import { retrieveHubSession } from './retrieve-hub-session.js';
import { hubSessionOf } from './hub-session-of.js';
import { csrfTokenOf, HUB_COOKIE, hubCookie, parseCookies } from './hub-cookie.js';
import {
  CreatedHubSessionSchema,
  CreateHubSessionBody,
  HubSessionSchema,
  HubSessionViewSchema,
  OpenHubSessionBody,
  presentHubSession,
  presentHubSessionView,
} from './hub-session.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const hub = { auth: { kind: 'hub_session' } } as const;
const tags = ['Hub sessions'];
/** The hub's routes are authenticated by its cookie alone. */
export const hubSecurity = [{ hubSession: [] }];
/** The session answers hold its CSRF token: never cached, by anyone. */
const NO_STORE = 'no-store';

export async function hubSessionRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/hub_sessions', {
    config: admin,
    schema: {
      operationId: 'createHubSession',
      summary: 'Mint a developer hub session for one customer',
      description:
        "Call it from your backend when your customer asks for their developer hub, and send their browser to `url`: a single-use link that signs it in to the hub (`/hub`) for this one customer, until the session expires (default 3,600 s) or you revoke it. The hub shows the customer's keys, usage, quotas, invoices, credit notes and subscriptions, themed with `theme`, with a link back to `returnUrl`. The link is shown once (only its SHA-256 is stored). `customerId` is the customer's cus_ id or your externalId for it, as in usage events. 404 for a customer of another workspace or environment, or an id or externalId that names nobody.",
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateHubSessionBody,
      response: { 200: CreatedHubSessionSchema, ...errors(403, 404, 409, 422) },
    },
    handler: (req, reply) =>
      idempotent<Static<typeof CreatedHubSessionSchema>>(
        deps,
        req,
        reply,
        async (tx) => {
          const { session, linkToken } = await createHubSession(tx, req.ctx, req.body);
          const base = deps.config.publicUrl ?? `${req.protocol}://${req.headers.host ?? req.hostname}`;
          return { ...presentHubSession(session), url: `${base}/hub#${linkToken}` };
        },
        (body) => ({ ...body, url: null }),
      ),
  });

  app.delete('/api/v1/hub_sessions/:id', {
    config: admin,
    schema: {
      operationId: 'revokeHubSession',
      summary: 'Revoke a developer hub session at once',
      description: 'The session (and its link, if unused) stops working on every node at once. Revoking a revoked or expired session returns it unchanged.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: HubSessionSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentHubSession(await revokeHubSession(deps, req.ctx, req.params.id)),
  });

  app.post('/api/v1/hub/session', {
    schema: {
      operationId: 'openHubSession',
      summary: 'Open the developer hub: exchange its link for the session cookie',
      description:
        'Called by the hub page with the link token from its URL fragment. The link works once: the answer sets the `__Host-tollgate_hub` cookie (HttpOnly, Secure, SameSite=Strict, until the session expires) and returns the session with its CSRF token. A used, expired, revoked or unknown link gets 401: the customer must open the hub again from the seller’s site. Limited per IP address.',
      tags,
      security: publicSecurity,
      body: OpenHubSessionBody,
      response: { 200: HubSessionViewSchema, ...errors() },
    },
    handler: async (req, reply) => {
      const opened = await openHubSession(deps, req.body.token, req.correlationId);
      reply.header('set-cookie', hubCookie(opened.secret, (opened.session.expiresAt - deps.clock.now()) / 1000));
      reply.header('cache-control', NO_STORE);
      return presentHubSessionView(opened.session, opened.customer, opened.csrfToken);
    },
  });

  app.get('/api/v1/hub/session', {
    config: hub,
    schema: {
      operationId: 'retrieveHubSession',
      summary: 'The developer hub session the browser holds',
      description:
        'For the hub page: its customer, theme, return URL, expiry and CSRF token (the same for the whole session). Authenticated by the hub cookie only; an expired or revoked session gets 401.',
      tags,
      security: hubSecurity,
      response: { 200: HubSessionViewSchema, ...errors() },
    },
    handler: async (req, reply) => {
      const { session, customer } = await retrieveHubSession(deps, req.ctx, hubSessionOf(req).id);
      reply.header('cache-control', NO_STORE);
      return presentHubSessionView(session, customer, csrfTokenOf(parseCookies(req.headers.cookie).get(HUB_COOKIE) ?? ''));
    },
  });

  app.delete('/api/v1/hub/session', {
    config: hub,
    schema: {
      operationId: 'deleteHubSession',
      summary: 'Sign out of the developer hub',
      description:
        'Revokes the session at once, on every node, clears its cookie and returns the session as revoked. Needs X-CSRF-Token (403 CSRF_FAILED without).',
      tags,
      security: hubSecurity,
      response: { 200: HubSessionSchema, ...errors(403) },
    },
    handler: async (req, reply) => {
      const session = await revokeHubSession(deps, req.ctx, hubSessionOf(req).id);
      reply.header('set-cookie', hubCookie('', 0));
      return presentHubSession(session);
    },
  });
}
