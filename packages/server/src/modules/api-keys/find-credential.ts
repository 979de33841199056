import { sha256Hex, type Environment } from '../../lib/crypto.js';
import type { Db } from '../../db/database.js';
import type { Deps } from '../../deps.js';
import { credentialCache } from './credential-cache.js';
import { parseSecret, type Credential, type Scope, type SecretKind } from './credential.js';

async function loadCredential(db: Db, kind: SecretKind, hash: string): Promise<Credential | null> {
  if (kind === 'secret_key') {
    const row = await db
      .selectFrom('apiKeys as k')
      .innerJoin('workspaces as w', 'w.id', 'k.workspaceId')
      .select([
        'k.id',
        'k.workspaceId',
        'k.environment',
        'k.kind',
        'k.scopes',
        'k.status',
        'k.expiresAt',
        'k.customerId',
        'k.subscriptionId',
        'k.productId',
        'w.rateLimitPerMinute',
      ])
      .where('k.keyHash', '=', hash)
      .executeTakeFirst();
    if (!row) return null;
    const base = {
      id: row.id,
      workspaceId: row.workspaceId,
      environment: row.environment as Environment,
      status: row.status,
      expiresAt: row.expiresAt,
      rateLimitPerMinute: row.rateLimitPerMinute,
    };
    if (row.kind === 'WORKSPACE') {
      return { ...base, type: 'workspace_key', scopes: row.scopes.split(' ').filter(Boolean) as Scope[] };
    }
    return {
      ...base,
      type: 'product_key',
      customerId: row.customerId ?? '',
      subscriptionId: row.subscriptionId ?? '',
      productId: row.productId ?? '',
    };
  }
  if (kind === 'access_token') {
    const row = await db
      .selectFrom('accessTokens as t')
      .innerJoin('clientCredentials as c', 'c.id', 't.clientCredentialId')
      .innerJoin('workspaces as w', 'w.id', 't.workspaceId')
      .select(['c.id', 't.workspaceId', 't.environment', 'c.status', 't.expiresAt', 'c.customerId', 'c.subscriptionId', 'c.productId', 'w.rateLimitPerMinute'])
      .where('t.tokenHash', '=', hash)
      .executeTakeFirst();
    return row ? { ...row, environment: row.environment as Environment, type: 'access_token' } : null;
  }
  const row = await db
    .selectFrom('storefrontKeys as s')
    .innerJoin('workspaces as w', 'w.id', 's.workspaceId')
    .select(['s.id', 's.workspaceId', 's.environment', 's.status', 's.storefrontId', 'w.rateLimitPerMinute'])
    .where('s.keyHash', '=', hash)
    .executeTakeFirst();
  return row ? { ...row, environment: row.environment as Environment, expiresAt: null, type: 'storefront_key' } : null;
}

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
  const found = await loadCredential(deps.db, parsed.kind, hash);
  // The prefix names the environment; a row that disagrees is treated as absent.
  const result = found && found.environment === parsed.environment ? found : null;
  cache.set(hash, result, generation);
  return result;
}
