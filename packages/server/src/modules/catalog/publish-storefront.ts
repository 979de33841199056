import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { checkStorefrontOfferings } from './check-storefront-offerings.js';
import type { Storefront } from './storefront.js';
import { findStorefront, updateStorefrontRow } from './storefront.repository.js';

/**
 * Makes the draft what storefront keys and the hosted page read. Every publish increases the
 * version, so the configuration's etag changes even when the list is the same.
 */
export async function publishStorefront(deps: Deps, ctx: OperationContext, id: string): Promise<Storefront> {
  return inTransaction(deps.db, async (trx) => {
    const current = await findStorefront(trx, ctx, id);
    if (!current) throw notFound('storefront', id);
    // An offering cannot be deleted today, but the check keeps a publish from ever naming one that is gone.
    await checkStorefrontOfferings(trx, ctx, current.draftOfferingIds);
    const now = deps.clock.now();
    const next: Storefront = {
      ...current,
      publishedOfferingIds: [...current.draftOfferingIds],
      publishedDisplay: current.draftDisplay,
      publishedVersion: current.publishedVersion + 1,
      publishedAt: now,
      updatedAt: now,
    };
    await updateStorefrontRow(trx, ctx, next);
    await recordAudit(trx, deps, ctx, {
      eventType: 'storefront.published',
      targetType: 'storefront',
      targetId: id,
      payload: { version: next.publishedVersion, offeringIds: next.publishedOfferingIds },
    });
    return next;
  });
}
