import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { safeEqual, sha256Hex } from '../../lib/crypto.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { newAccessToken } from '../credentials/secrets.js';
import type { Tenant } from '../../lib/tenant.js';
import { findClientForTokenGrant, insertAccessToken } from './client-credential.repository.js';

export interface TokenGrant {
  accessToken: string;
  expiresIn: number;
}

export type TokenGrantResult = { ok: true; grant: TokenGrant } | { ok: false; reason: 'unknown_client' | 'bad_secret' | 'revoked'; tenant: Tenant | null };

/**
 * RFC 6749 section 4.4: exchanges a client ID and secret for a short-lived bearer token that
 * verification accepts like a product key. The secret's hash is compared in constant time; an
 * unknown client costs the same hash, so timing does not reveal which client IDs exist.
 */
export async function issueAccessToken(deps: Deps, clientId: string, clientSecret: string, correlationId: string): Promise<TokenGrantResult> {
  const presentedHash = sha256Hex(clientSecret);
  const found = /^cid_[0-9a-z]{26}$/.test(clientId) ? await findClientForTokenGrant(deps.db, clientId) : null;
  const secretMatches = safeEqual(presentedHash, found?.secretHash ?? '0'.repeat(64));
  if (!found) return { ok: false, reason: 'unknown_client', tenant: null };
  if (!secretMatches) return { ok: false, reason: 'bad_secret', tenant: found.tenant };
  if (found.credential.status !== 'ACTIVE') return { ok: false, reason: 'revoked', tenant: found.tenant };
  const now = deps.clock.now();
  const ttl = deps.config.accessTokenTtlSeconds;
  const token = newAccessToken(found.tenant.environment);
  await inTransaction(deps.db, async (trx) => {
    await insertAccessToken(trx, found.tenant, {
      tokenHash: token.hash,
      clientCredentialId: clientId,
      expiresAt: now + ttl * 1000,
      createdAt: now,
    });
    await recordAudit(
      trx,
      deps,
      { ...found.tenant, actor: { type: 'CLIENT_CREDENTIAL', id: clientId }, correlationId, source: 'oauth' },
      { eventType: 'oauth.token_issued', targetType: 'client_credential', targetId: clientId, payload: { expiresIn: ttl } },
    );
  });
  return { ok: true, grant: { accessToken: token.plaintext, expiresIn: ttl } };
}
