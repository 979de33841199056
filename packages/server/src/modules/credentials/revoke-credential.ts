import type { Deps } from '../../deps.js';
import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { AuditEventInput } from '../audit/audit-event.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { invalidateCredentials } from './credential-cache.js';

export interface Revocation<T> {
  /** The credential as the caller may see it; throws when absent (404). */
  find(trx: Db): Promise<T>;
  /** Throws when it is not the caller's to revoke (403). */
  authorize?(found: T): void;
  /** Marks it REVOKED unless it already is; true when this call changed it. */
  revoke(trx: Db, now: number): Promise<boolean>;
  /** Written only when this call revoked it. */
  event: AuditEventInput;
  /**
   * Runs in the same transaction right after the audit event, only when this call revoked it:
   * the kind's webhook message (api-keys), from the credential before and after.
   */
  revoked?(trx: Db, before: T, after: T): Promise<unknown>;
}

/**
 * Every kind's revocation: at once, with no grace period, on every node (cached credentials are
 * dropped everywhere after the commit). Revoking a revoked credential changes nothing, writes no
 * event and returns it as it stands: DELETE is idempotent.
 */
export async function revokeCredential<T>(deps: Deps, ctx: OperationContext, r: Revocation<T>): Promise<T> {
  const revoked = await inTransaction(deps.db, async (trx) => {
    const before = await r.find(trx);
    r.authorize?.(before);
    if (!(await r.revoke(trx, deps.clock.now()))) return r.find(trx);
    await recordAudit(trx, deps, ctx, r.event);
    const after = await r.find(trx);
    await r.revoked?.(trx, before, after);
    return after;
  });
  await invalidateCredentials(deps);
  return revoked;
}
