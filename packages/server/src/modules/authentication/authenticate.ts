import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { enforceRateLimit } from '../../http/rate-limit.js';
import { credentialState, hasScope } from '../credentials/credential.js';
import type { Credential } from '../../lib/principal.js';
import { findCredentialBySecret } from './find-credential.js';
import { noteGraceUse } from './grace-use.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { ActorType, AuditSource } from '../../lib/operation-context.js';
import type { Environment } from '../../lib/crypto.js';
import { safeEqual } from '../../lib/crypto.js';
import { parseCookies, SAFE_METHODS } from '../../http/cookies.js';
import { CONSOLE_COOKIE, CSRF_HEADER, ENVIRONMENT_HEADER } from '../operators/operator.js';
import { csrfTokenFor } from '../operators/operator-session.js';
import type { AuthRequirement } from '../../http/types.js';
import { corsHeaders } from '../../http/cors.js';
import { parseSecret } from '../credentials/secrets.js';
import { widgetCors } from '../widget-sessions/widget-cors.js';
import { originRefusal } from '../widget-sessions/allowed-origins.js';
import { authenticateHubSession } from '../hub-sessions/authenticate-hub-session.js';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const CORRELATION_ID = /^[\x21-\x7e]{1,128}$/;

const actorTypeOf: Record<Credential['type'], ActorType> = {
  workspace_key: 'WORKSPACE_KEY',
  product_key: 'PRODUCT_KEY',
  access_token: 'CLIENT_CREDENTIAL',
  storefront_key: 'STOREFRONT_KEY',
  widget_session: 'WIDGET_SESSION',
  operator_session: 'OPERATOR',
  hub_session: 'HUB_SESSION',
};

function limitFor(deps: Deps, c: Credential): number {
  return c.rateLimitPerMinute ?? deps.config.rateLimitPerMinute;
}

/**
 * Authentication fails closed: a missing, malformed, unknown, revoked or expired credential gets
 * 401, counts against the caller's IP, and is written to the audit log (never the secret itself).
 */
async function rejectAuthentication(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  reason: string,
  message: string,
  credential: Credential | null,
  code: 'UNAUTHENTICATED' | 'SESSION_EXPIRED' = 'UNAUTHENTICATED',
): Promise<never> {
  await enforceRateLimit(deps, reply, `ip:${request.ip}`, deps.config.rateLimitPerMinute, 'IP address');
  await recordAudit(
    deps.db,
    deps,
    {
      workspaceId: credential?.workspaceId ?? null,
      environment: credential?.environment ?? null,
      actor: credential ? { type: actorTypeOf[credential.type], id: credential.id } : { type: 'ANONYMOUS', id: request.ip },
      correlationId: request.correlationId,
      source: sourceOf(credential),
    },
    {
      eventType: 'auth.failed',
      severity: 'WARN',
      targetType: credential ? credential.type : null,
      targetId: credential?.id ?? null,
      payload: { reason, ip: request.ip, method: request.method, route: request.routeOptions.url ?? request.url },
    },
  );
  throw new AppError(code, message, { headers: { 'www-authenticate': 'Bearer' } });
}

const stateMessages = {
  REVOKED: 'This key has been revoked.',
  EXPIRED: 'This key was rotated and its 300-second grace period has ended; use the new key.',
} as const;

const START_NEW_SESSION = "the seller's page must start a new one (its backend mints it with POST /api/v1/widget_sessions).";
const widgetStateMessages = {
  REVOKED: `This widget session has expired (it was revoked); ${START_NEW_SESSION}`,
  EXPIRED: `This widget session has expired; ${START_NEW_SESSION}`,
} as const;

/**
 * onRequest: who is calling, and whether they may. Callback-style: a route that takes no
 * credential and is not rate limited (health, metrics, the bare benchmark route) is passed
 * synchronously; every other route returns the promise of `authenticate`.
 */
export function authenticationHook(deps: Deps) {
  const authenticate = authenticateRequest(deps);
  return function authenticationGate(request: FastifyRequest, reply: FastifyReply, done: () => void): Promise<void> | void {
    request.credential = null;
    const incoming = request.headers['x-correlation-id'];
    if (typeof incoming === 'string' && CORRELATION_ID.test(incoming)) {
      request.correlationId = incoming;
      reply.header('x-correlation-id', incoming);
    } else {
      // Without one, the request id (already in X-Request-Id) is the correlation id.
      request.correlationId = request.id;
    }
    const config = request.routeOptions.config ?? {};
    if (config.auth === undefined && config.rateLimited === false) return done();
    return authenticate(request, reply, config);
  };
}

function authenticateRequest(deps: Deps) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply, config: FastifyContextConfig): Promise<void> {
    const auth: AuthRequirement = config.auth ?? { kind: 'none' };
    if (auth.kind === 'none') {
      if (config.rateLimited !== false) {
        await enforceRateLimit(deps, reply, `ip:${request.ip}`, deps.config.rateLimitPerMinute, 'IP address');
      }
      return;
    }

    if (auth.kind === 'storefront') {
      const presented = request.headers['x-storefront-key'];
      if (typeof presented !== 'string' || presented === '') {
        return rejectAuthentication(deps, request, reply, 'missing_storefront_key', 'Send your storefront key in the X-Storefront-Key header.', null);
      }
      const c = await findCredentialBySecret(deps, presented);
      if (!c || c.type !== 'storefront_key') {
        return rejectAuthentication(deps, request, reply, 'unknown_storefront_key', 'The storefront key is not valid.', null);
      }
      const state = credentialState(c, deps.clock.now());
      if (state !== 'VALID') return rejectAuthentication(deps, request, reply, state.toLowerCase(), stateMessages[state], c);
      request.credential = c;
      setContext(request, c);
      return enforceRateLimit(deps, reply, `sfk:${c.id}`, limitFor(deps, c), 'storefront key');
    }

    if (auth.kind === 'widget_session') return authenticateWidgetSession(deps, request, reply);
    if (auth.kind === 'hub_session') {
      return authenticateHubSession(deps, request, reply, {
        find: findCredentialBySecret,
        reject: (reason, message, c) => rejectAuthentication(deps, request, reply, reason, message, c),
      });
    }

    const header = request.headers.authorization;
    // The console's cookie stands in for an API key only when no Authorization header is sent.
    const consoleSecret = header ? undefined : parseCookies(request.headers.cookie).get(CONSOLE_COOKIE);
    if (auth.kind === 'console' || consoleSecret !== undefined) return authenticateConsoleSession(deps, request, reply, consoleSecret);
    if (!header) {
      return rejectAuthentication(deps, request, reply, 'missing_authorization', 'Send your API key as Authorization: Bearer <key>.', null);
    }
    const m = BEARER.exec(header);
    if (!m) {
      return rejectAuthentication(deps, request, reply, 'malformed_authorization', "The Authorization header must read 'Bearer <key>'.", null);
    }
    const c = await findCredentialBySecret(deps, m[1] as string);
    // Access tokens and storefront keys are not API keys; to the caller they are simply unknown.
    if (!c || (c.type !== 'workspace_key' && c.type !== 'product_key')) {
      return rejectAuthentication(deps, request, reply, 'unknown_key', 'The API key is not valid.', null);
    }
    const state = credentialState(c, deps.clock.now());
    if (state !== 'VALID') return rejectAuthentication(deps, request, reply, state.toLowerCase(), stateMessages[state], c);
    request.credential = c;
    setContext(request, c);
    // A rotated key in its grace: its first use is an event (api_key.grace_used). One comparison for every other key.
    if (c.status === 'ROTATED') await noteGraceUse(deps, c, request.correlationId);
    await enforceRateLimit(deps, reply, `ws:${c.workspaceId}`, limitFor(deps, c), 'tenant');
    if (c.type === 'product_key' && auth.kind !== 'workspace_or_product') {
      throw new AppError('INSUFFICIENT_SCOPE', 'A product key may only rotate or revoke itself; this endpoint needs a workspace key.');
    }
    if (c.type === 'workspace_key' && !hasScope(c.scopes, auth.scope)) {
      throw new AppError('INSUFFICIENT_SCOPE', `This key lacks the '${auth.scope}' scope (it has: ${c.scopes.join(', ') || 'none'}).`);
    }
  };
}

/**
 * The widget routes: a widget session token and nothing else (an API key there would sit in a
 * browser). They answer CORS from the start, so that the widget can read a 401 or 429 too; a
 * session that lists origins refuses any other (403, after the rate limit counted it).
 */
async function authenticateWidgetSession(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.headers(corsHeaders(widgetCors, request));
  const m = BEARER.exec(request.headers.authorization ?? '');
  if (!m) {
    return rejectAuthentication(deps, request, reply, 'missing_widget_session', 'Send the widget session token as Authorization: Bearer wst_….', null);
  }
  const presented = m[1] as string;
  const c = await findCredentialBySecret(deps, presented);
  if (parseSecret(presented)?.kind !== 'widget_session') {
    // Told apart by form alone, so the answer says nothing of whether the key is valid; a valid
    // one is still written to its workspace's audit log (a secret key was sent from a browser).
    return rejectAuthentication(
      deps,
      request,
      reply,
      'not_a_widget_session',
      'This route takes a widget session token (wst_test_… or wst_live_…), which your backend mints with POST /api/v1/widget_sessions; API keys are not accepted here.',
      c,
    );
  }
  if (!c || c.type !== 'widget_session') {
    return rejectAuthentication(deps, request, reply, 'unknown_widget_session', 'The widget session token is not valid.', null);
  }
  const state = credentialState(c, deps.clock.now());
  // Only a session that was found says so: the widget then tells the buyer it expired, not that the link is wrong.
  if (state !== 'VALID') return rejectAuthentication(deps, request, reply, state.toLowerCase(), widgetStateMessages[state], c, 'SESSION_EXPIRED');
  request.credential = c;
  setContext(request, c);
  await enforceRateLimit(deps, reply, `wses:${c.id}`, limitFor(deps, c), 'widget session');
  const refusal = originRefusal(c.allowedOrigins, request.headers.origin);
  if (refusal) throw refusal;
}

/**
 * The operator console: its session cookie, on the workspace routes (in place of an API key)
 * and on the console's own session routes. The environment is the request's choice
 * (X-Tollgate-Environment, default test); a POST, PATCH, PUT or DELETE must carry the session's
 * CSRF token; an admin holds every scope, a viewer may only read. All of it is enforced here,
 * whatever the page does.
 */
async function authenticateConsoleSession(deps: Deps, request: FastifyRequest, reply: FastifyReply, secret: string | undefined): Promise<void> {
  if (secret === undefined) {
    return rejectAuthentication(deps, request, reply, 'missing_console_session', NO_CONSOLE_SESSION, null);
  }
  const c = await findCredentialBySecret(deps, secret);
  if (!c || c.type !== 'operator_session') return rejectAuthentication(deps, request, reply, 'unknown_console_session', NO_CONSOLE_SESSION, null);
  const state = credentialState(c, deps.clock.now());
  if (state !== 'VALID') return rejectAuthentication(deps, request, reply, state.toLowerCase(), CONSOLE_SESSION_ENDED, c);
  const environment = environmentOf(request);
  request.credential = { ...c, environment };
  setContext(request, request.credential);
  await enforceRateLimit(deps, reply, `ws:${c.workspaceId}`, limitFor(deps, c), 'tenant');
  if (SAFE_METHODS.has(request.method)) return;
  const presented = request.headers[CSRF_HEADER];
  if (typeof presented !== 'string' || !safeEqual(presented, csrfTokenFor(secret))) {
    throw new AppError(
      'CSRF_FAILED',
      `A ${request.method} made with the console's session cookie must carry the session's csrfToken in the X-CSRF-Token header (GET /api/v1/operator_sessions/current returns it).`,
    );
  }
  const routeAuth = request.routeOptions.config?.auth;
  if (c.role === 'viewer' && routeAuth?.kind !== 'console') {
    throw new AppError('INSUFFICIENT_SCOPE', `Your role is viewer, which may only read; ${request.method} needs an admin of this workspace.`);
  }
}

const NO_CONSOLE_SESSION = 'Sign in to the console first (POST /api/v1/operator_sessions), or send an API key as Authorization: Bearer <key>.';
const CONSOLE_SESSION_ENDED = 'Your console session has ended (it expired, you signed out, or your account was removed); sign in again.';

function environmentOf(request: FastifyRequest): Environment {
  const v = request.headers[ENVIRONMENT_HEADER];
  if (v === undefined) return 'test';
  if (v === 'test' || v === 'live') return v;
  throw new AppError('VALIDATION_FAILED', "X-Tollgate-Environment must be 'test' or 'live'.", { field: 'headers.x-tollgate-environment' });
}

function sourceOf(c: Credential | null): AuditSource {
  if (c?.type === 'widget_session') return 'widget';
  if (c?.type === 'operator_session') return 'console';
  if (c?.type === 'hub_session') return 'hub';
  return 'api';
}

function setContext(request: FastifyRequest, c: Credential): void {
  request.ctx = {
    workspaceId: c.workspaceId,
    environment: c.environment,
    // An operator acts as themselves, not as their session.
    actor: { type: actorTypeOf[c.type], id: c.type === 'operator_session' ? c.operatorId : c.id },
    correlationId: request.correlationId,
    source: sourceOf(c),
  };
}

/**
 * A second credential on a route authenticated otherwise: the headless configuration's
 * preview=true needs, besides the storefront key, operator access to the same workspace and
 * environment (a workspace key with the admin scope). Fails closed like the hook.
 */
export async function requireOperatorAccess(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = request.headers.authorization;
  const m = header ? BEARER.exec(header) : null;
  if (!m) {
    return rejectAuthentication(
      deps,
      request,
      reply,
      'missing_operator_key',
      'preview=true shows unpublished pricing: also send a workspace key with the admin scope as Authorization: Bearer <key>.',
      null,
    );
  }
  const c = await findCredentialBySecret(deps, m[1] as string);
  if (!c || c.type !== 'workspace_key') {
    return rejectAuthentication(deps, request, reply, 'unknown_operator_key', 'The Authorization key is not a valid workspace key.', null);
  }
  const state = credentialState(c, deps.clock.now());
  if (state !== 'VALID') return rejectAuthentication(deps, request, reply, state.toLowerCase(), stateMessages[state], c);
  const sf = request.credential;
  if (!sf || sf.workspaceId !== c.workspaceId || sf.environment !== c.environment) {
    throw new AppError('INSUFFICIENT_SCOPE', 'The workspace key belongs to another workspace or environment than the storefront key.');
  }
  if (!hasScope(c.scopes, 'admin'))
    throw new AppError('INSUFFICIENT_SCOPE', `preview=true needs the 'admin' scope (this key has: ${c.scopes.join(', ') || 'none'}).`);
  request.ctx = { ...request.ctx, actor: { type: 'WORKSPACE_KEY', id: c.id } };
}
