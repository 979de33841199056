import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import { accountOrigin } from './operator-events.js';
import { revokeOperatorSessionRow } from './operator.repository.js';

/** Ends the console session at once, on every node; signing out twice changes nothing more. */
export async function signOut(deps: Deps, ctx: OperationContext, sessionId: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    if (!(await revokeOperatorSessionRow(trx, ctx.workspaceId, sessionId, deps.clock.now()))) return;
    await recordAudit(trx, deps, accountOrigin(ctx.workspaceId, ctx.actor, ctx.correlationId, ctx.source), {
      eventType: 'operator.signed_out',
      targetType: 'operator_session',
      targetId: sessionId,
      payload: {},
    });
    await invalidateCredentials(txDeps);
  });
}
