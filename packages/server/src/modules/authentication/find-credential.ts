import { sha256Hex } from '../../lib/crypto.js';
import { within } from '../../lib/within.js';
import type { Deps } from '../../deps.js';
import type { Credential } from '../../lib/principal.js';
import { credentialCache } from '../credentials/credential-cache.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';
import { parseSecret, type SecretKind } from '../credentials/secrets.js';
import { findApiKeyCredential } from '../api-keys/api-key.repository.js';
import { findAccessTokenCredential } from '../client-credentials/client-credential.repository.js';
import { findStorefrontKeyCredential } from '../storefront-keys/storefront-key.repository.js';
import { findWidgetSessionCredential } from '../widget-sessions/widget-session.repository.js';
import { findOperatorSessionCredential } from '../operators/operator.repository.js';
import { findHubSessionCredential } from '../hub-sessions/hub-session.repository.js';
import { workspaceRateLimitOf } from '../tenancy/workspace.repository.js';

/** The secret's prefix names the one table to ask, owned by that kind's module. */
const lookups: Record<SecretKind, FindCredentialByHash> = {
  secret_key: findApiKeyCredential,
  access_token: findAccessTokenCredential,
  storefront_key: findStorefrontKeyCredential,
  widget_session: findWidgetSessionCredential,
  operator_session: findOperatorSessionCredential,
  hub_session: findHubSessionCredential,
};

/**
 * Resolves a presented secret: its form is checked first (malformed input costs no query), then
 * its SHA-256 is looked up behind the in-process cache. Returns the credential whatever its
 * state; callers decide with credentialState() against the clock.
 */
export async function findCredentialBySecret(deps: Deps, secret: string): Promise<Credential | null> {
  const parsed = parseSecret(secret);
  if (!parsed) return null;
  const hash = sha256Hex(secret);
  const cache = deps.caches.of(credentialCache);
  const cached = cache.get(hash);
  if (cached !== undefined) return cached;
  const generation = cache.generation;
  // One indexed read: bounded like the wait for a connection, not by the (longer) statement
  // timeout, so a frozen network to PostgreSQL gets this request its 503 as soon as any other.
  const bound = deps.config.databaseConnectTimeoutMs;
  const found = await within(bound, lookups[parsed.kind](deps.db, hash, workspaceRateLimitOf), () =>
    Object.assign(new Error(`credential lookup: no answer from the database within ${bound} ms (DATABASE_CONNECT_TIMEOUT_MS)`), { code: 'ETIMEDOUT' }),
  );
  // The prefix names the environment; a row that disagrees is treated as absent.
  const result = found && (parsed.environment === null || found.environment === parsed.environment) ? found : null;
  cache.set(hash, result, generation);
  return result;
}
