import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import type { Operator } from './operator.js';
import { accountOrigin } from './operator-events.js';
import { countAdmins, findOperator, removeOperatorRow, revokeSessionsOfOperator } from './operator.repository.js';

/**
 * Removes an operator: they cannot sign in again and their open sessions end at once, on every
 * node. The last admin cannot be removed, so a workspace never locks itself out of its console.
 */
export async function removeOperator(deps: Deps, ctx: OperationContext, id: string): Promise<Operator> {
  return inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    const operator = await findOperator(trx, ctx.workspaceId, id);
    if (!operator || operator.removedAt !== null) throw notFound('operator', id);
    if (operator.role === 'admin' && (await countAdmins(trx, ctx.workspaceId)) <= 1) {
      throw new AppError('CONFLICT', `'${operator.email}' is the workspace's last admin; make another operator admin first.`);
    }
    const now = deps.clock.now();
    await removeOperatorRow(trx, ctx.workspaceId, id, now);
    const sessionsEnded = await revokeSessionsOfOperator(trx, ctx.workspaceId, id, now);
    await recordAudit(trx, deps, accountOrigin(ctx.workspaceId, ctx.actor, ctx.correlationId, ctx.source), {
      eventType: 'operator.removed',
      targetType: 'operator',
      targetId: id,
      payload: { email: operator.email, sessionsEnded },
    });
    await invalidateCredentials(txDeps);
    return { ...operator, removedAt: now };
  });
}
