import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { Credential } from '../../lib/principal.js';
import { enforceRateLimit } from '../../http/rate-limit.js';
import { credentialState } from '../credentials/credential.js';
import { parseSecret } from '../credentials/secrets.js';
import { csrfMatches, HUB_COOKIE, parseCookies } from './hub-cookie.js';

/**
 * What authentication lends the hub: its secret lookup (behind the credential cache) and its
 * rejection (401, counted against the IP, written to the audit log as auth.failed).
 */
export interface HubAuthentication {
  find(deps: Deps, secret: string): Promise<Credential | null>;
  reject(reason: string, message: string, credential: Credential | null): Promise<never>;
}

const OPEN_AGAIN = "go back to the seller's site and open the developer hub again.";
const stateMessages = {
  REVOKED: `This developer hub session has ended (it was revoked); ${OPEN_AGAIN}`,
  EXPIRED: `This developer hub session has expired; ${OPEN_AGAIN}`,
} as const;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The hub routes: the hub's cookie and nothing else (an API key there: 401; a hub secret sent
 * anywhere else reads as unknown, since only this function looks for it in a cookie). Fails
 * closed; rate-limited per session; unsafe methods need the session's X-CSRF-Token (403 CSRF_FAILED).
 */
export async function authenticateHubSession(deps: Deps, request: FastifyRequest, reply: FastifyReply, auth: HubAuthentication): Promise<void> {
  const secret = parseCookies(request.headers.cookie).get(HUB_COOKIE);
  if (secret === undefined || secret === '') {
    const message = request.headers.authorization
      ? 'The developer hub routes take the hub’s session cookie only; API keys are not accepted here.'
      : `No developer hub session: ${OPEN_AGAIN}`;
    return auth.reject('missing_hub_session', message, null);
  }
  const c = parseSecret(secret)?.kind === 'hub_session' ? await auth.find(deps, secret) : null;
  if (!c || c.type !== 'hub_session') return auth.reject('unknown_hub_session', `This developer hub session is not valid; ${OPEN_AGAIN}`, null);
  const state = credentialState(c, deps.clock.now());
  if (state !== 'VALID') return auth.reject(state.toLowerCase(), stateMessages[state], c);
  request.credential = c;
  request.ctx = {
    workspaceId: c.workspaceId,
    environment: c.environment,
    actor: { type: 'HUB_SESSION', id: c.id },
    correlationId: request.correlationId,
    source: 'hub',
  };
  await enforceRateLimit(deps, reply, `hses:${c.id}`, c.rateLimitPerMinute ?? deps.config.rateLimitPerMinute, 'hub session');
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(request.headers['x-csrf-token'], c.csrfHash)) {
    throw new AppError('CSRF_FAILED', 'Send the session’s csrfToken (from GET /api/v1/hub/session) as the X-CSRF-Token header.', {
      field: 'headers.x-csrf-token',
    });
  }
}
