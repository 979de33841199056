import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { addOperator, prepareOperator } from './create-operator.js';
import { passwordCost } from './password.js';
import type { AcceptInvitationInput } from './operator.js';
import { accountOrigin } from './operator-events.js';
import type { OperatorSessionView } from './operator-session.js';
import { findInvitationByTokenHash, markInvitationAccepted } from './operator.repository.js';
import { openSession, type SignInRequest } from './sign-in.js';

const UNUSABLE = 'This invitation link is not valid: it was used already, has expired, or was never issued. Ask an admin of the workspace for a new one.';

/**
 * Turns an invitation into an account and signs its new operator in. The link works once: the
 * invitation is marked accepted in the same transaction that creates the account, and only the
 * call whose conditional update changed it goes on.
 */
export async function acceptInvitation(
  deps: Deps,
  input: AcceptInvitationInput,
  req: SignInRequest,
): Promise<{ session: OperatorSessionView; secret: string }> {
  const invitation = /^tgi_[0-9a-f]{64}$/.test(input.token) ? await findInvitationByTokenHash(deps.db, sha256Hex(input.token)) : null;
  if (!invitation || invitation.acceptedAt !== null || invitation.revokedAt !== null || deps.clock.now() >= invitation.expiresAt) {
    throw new AppError('UNAUTHENTICATED', UNUSABLE, { field: 'body.token' });
  }
  // Before anything is written, so a weak password does not use up the link.
  const prepared = await prepareOperator(
    {
      workspaceId: invitation.workspaceId,
      email: invitation.email,
      name: input.name,
      role: invitation.role,
      password: input.password,
    },
    passwordCost(deps.config.profile),
  );
  const operator = await inTransaction(deps.db, async (trx) => {
    const tx = { ...deps, db: trx };
    if (!(await markInvitationAccepted(trx, invitation.workspaceId, invitation.id, deps.clock.now()))) {
      throw new AppError('UNAUTHENTICATED', UNUSABLE, { field: 'body.token' });
    }
    const created = await addOperator(tx, prepared, { actor: 'self', correlationId: req.correlationId, source: 'console' });
    await recordAudit(trx, deps, accountOrigin(invitation.workspaceId, { type: 'OPERATOR', id: created.id }, req.correlationId, 'console'), {
      eventType: 'operator.invitation_accepted',
      targetType: 'operator_invitation',
      targetId: invitation.id,
      payload: { email: invitation.email, role: invitation.role, operatorId: created.id },
    });
    return created;
  });
  return openSession(deps, operator, req);
}
