import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { newOperatorInvitationToken } from '../credentials/secrets.js';
import { INVITATION_SECONDS, normalizeEmail, type InviteOperatorInput, type OperatorInvitation } from './operator.js';
import { accountOrigin } from './operator-events.js';
import { findOperatorByEmail, insertInvitation } from './operator.repository.js';

/**
 * An invitation for one e-mail and role. The link's token is returned once and kept as its
 * SHA-256; whoever opens the link within 7 days picks a name and password and is signed in.
 */
export async function inviteOperator(
  deps: Deps,
  ctx: OperationContext,
  input: InviteOperatorInput,
): Promise<{ invitation: OperatorInvitation; token: string }> {
  const email = normalizeEmail(input.email);
  const secret = newOperatorInvitationToken();
  const now = deps.clock.now();
  const invitation: OperatorInvitation = {
    id: deps.ids.next('operatorInvitation'),
    workspaceId: ctx.workspaceId,
    email,
    role: input.role,
    invitedBy: ctx.actor.id,
    expiresAt: now + INVITATION_SECONDS * 1000,
    acceptedAt: null,
    revokedAt: null,
    createdAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    const existing = await findOperatorByEmail(trx, ctx.workspaceId, email);
    if (existing) {
      throw new AppError('CONFLICT', `'${email}' is already an operator of this workspace.`, { field: 'body.email' });
    }
    await insertInvitation(trx, invitation, secret.hash);
    await recordAudit(trx, deps, accountOrigin(ctx.workspaceId, ctx.actor, ctx.correlationId, ctx.source), {
      eventType: 'operator.invited',
      targetType: 'operator_invitation',
      targetId: invitation.id,
      payload: { email, role: invitation.role, expiresAt: new Date(invitation.expiresAt).toISOString() },
    });
  });
  return { invitation, token: secret.plaintext };
}
