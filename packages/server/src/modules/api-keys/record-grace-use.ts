import type { Deps } from '../../deps.js';
import { transaction } from '../../db/transaction.js';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { apiKeyEvent } from './api-key-event.js';
import { findApiKey, markGraceUsed } from './api-key.repository.js';

/**
 * A rotated key was used during its grace: its first use is stamped (`grace_used_at`, a
 * conditional update), and only the call that stamped it writes the WARN audit event and the
 * api_key.grace_used webhook message, in the same transaction: once per key, ever, however many
 * requests and nodes use it. Returns whether this call was that first use.
 */
export async function recordGraceUse(deps: Deps, ctx: OperationContext, keyId: string): Promise<boolean> {
  return transaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    if (!(await markGraceUsed(trx, ctx, keyId, now))) return false;
    const key = (await findApiKey(trx, ctx, keyId))!;
    const payload = { replacedById: key.replacedById, graceEndsAt: toIsoOrNull(key.expiresAt), usedAt: toIso(now) };
    await recordAudit(trx, deps, ctx, { eventType: 'api_key.grace_used', severity: 'WARN', targetType: 'api_key', targetId: keyId, payload });
    await emitWebhookEvent(trx, deps, ctx, apiKeyEvent('api_key.grace_used', key, now, { details: { usedAt: payload.usedAt } }));
    return true;
  });
}
