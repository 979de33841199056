import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { revokeCredential } from '../credentials/revoke-credential.js';
import type { HubSession } from './hub-session.js';
import { findHubSession, revokeHubSessionRow } from './hub-session.repository.js';

/** Ends a session (and its unused link) at once on every node; revoking a revoked or expired one changes nothing else. */
export function revokeHubSession(deps: Deps, ctx: OperationContext, id: string): Promise<HubSession> {
  return revokeCredential(deps, ctx, {
    find: async (trx) => {
      const session = await findHubSession(trx, ctx, id);
      if (!session) throw notFound('hub session', id);
      return session;
    },
    revoke: (trx, now) => revokeHubSessionRow(trx, ctx, id, now),
    event: { eventType: 'hub_session.revoked', targetType: 'hub_session', targetId: id },
  });
}
