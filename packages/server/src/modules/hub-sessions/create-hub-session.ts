import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { newHubLinkToken } from '../credentials/secrets.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { DEFAULT_EXPIRES_IN_SECONDS, type CreateHubSessionInput, type HubSession } from './hub-session.js';
import { insertHubSession } from './hub-session.repository.js';

/**
 * Mints a session for one customer of the caller's tenant and its single-use link token, which is
 * returned once and kept only as its SHA-256. The session lives in real time (deps.clock), from now.
 * The customer is named as ingestion names one, by its cus_ id or its externalId (an id match
 * wins); the session keeps the cus_ id.
 */
export async function createHubSession(deps: Deps, ctx: OperationContext, input: CreateHubSessionInput): Promise<{ session: HubSession; linkToken: string }> {
  const customer = await requireCustomerByRef(deps.db, ctx, input.customerId, 'body.customerId');
  const now = deps.clock.now();
  const link = newHubLinkToken(ctx.environment);
  const session: HubSession = {
    id: deps.ids.next('hubSession'),
    environment: ctx.environment,
    customerId: customer.id,
    returnUrl: input.returnUrl ?? null,
    theme: input.theme ?? {},
    linkUsedAt: null,
    expiresAt: now + (input.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS) * 1000,
    revokedAt: null,
    createdAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertHubSession(trx, ctx, session, link.hash);
    await recordAudit(trx, deps, ctx, {
      eventType: 'hub_session.created',
      targetType: 'hub_session',
      targetId: session.id,
      payload: { customerId: session.customerId, expiresAt: new Date(session.expiresAt).toISOString(), returnUrl: session.returnUrl },
    });
  });
  return { session, linkToken: link.plaintext };
}
