import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { revokeCredential } from '../credentials/revoke-credential.js';
import type { WidgetSession } from './widget-session.js';
import { findWidgetSession, revokeWidgetSessionRow } from './widget-session.repository.js';

/** Ends a session at once on every node; revoking a revoked (or expired) one changes nothing else. */
export function revokeWidgetSession(deps: Deps, ctx: OperationContext, id: string): Promise<WidgetSession> {
  return revokeCredential(deps, ctx, {
    find: async (trx) => {
      const session = await findWidgetSession(trx, ctx, id);
      if (!session) throw notFound('widget session', id);
      return session;
    },
    revoke: (trx, now) => revokeWidgetSessionRow(trx, ctx, id, now),
    event: { eventType: 'widget_session.revoked', targetType: 'widget_session', targetId: id },
  });
}
