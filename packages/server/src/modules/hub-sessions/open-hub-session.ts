import type { Deps } from '../../deps.js';
import { sha256Hex, type Environment } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { newHubSessionSecret } from '../credentials/secrets.js';
import type { Customer } from '../customers/customer.js';
import { findCustomer } from '../customers/customer.repository.js';
import { csrfTokenOf } from './hub-cookie.js';
import type { HubSession } from './hub-session.js';
import { useHubLink } from './hub-session.repository.js';

const LINK = /^hbl_(test|live)_[0-9a-f]{64}$/;

export const LINK_UNUSABLE =
  'This developer hub link has expired or has already been used. Go back to the site you came from and open the developer hub again: it gives you a new link.';

export interface OpenedHubSession {
  session: HubSession;
  customer: Customer;
  /** The cookie's hst_ secret: set in this response only, kept as its SHA-256. */
  secret: string;
  csrfToken: string;
}

/**
 * Exchanges a link token, once, for the session's cookie secret and CSRF token. An unknown, used,
 * revoked or expired link, or one whose prefix names the other environment, is one answer (401).
 */
export async function openHubSession(deps: Deps, linkToken: string, correlationId: string): Promise<OpenedHubSession> {
  const m = LINK.exec(linkToken);
  if (!m) throw new AppError('UNAUTHENTICATED', LINK_UNUSABLE, { field: 'body.token' });
  const environment = m[1] as Environment;
  const secret = newHubSessionSecret(environment);
  const csrfToken = csrfTokenOf(secret.plaintext);
  const opened = await inTransaction(deps.db, async (trx) => {
    const used = await useHubLink(
      trx,
      { hash: sha256Hex(linkToken), environment },
      { tokenHash: secret.hash, csrfHash: sha256Hex(csrfToken) },
      deps.clock.now(),
    );
    if (!used) return null;
    const ctx = { ...used.tenant, actor: { type: 'HUB_SESSION' as const, id: used.session.id }, correlationId, source: 'hub' as const };
    const customer = await findCustomer(trx, used.tenant, used.session.customerId);
    if (!customer) throw new Error(`Hub session ${used.session.id} names customer ${used.session.customerId}, which is absent.`);
    await recordAudit(trx, deps, ctx, {
      eventType: 'hub_session.opened',
      targetType: 'hub_session',
      targetId: used.session.id,
      payload: { customerId: customer.id },
    });
    return { session: used.session, customer };
  });
  if (!opened) throw new AppError('UNAUTHENTICATED', LINK_UNUSABLE, { field: 'body.token' });
  return { ...opened, secret: secret.plaintext, csrfToken };
}
