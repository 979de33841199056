import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { checkStorefrontDisplay, checkStorefrontOfferings } from './check-storefront-offerings.js';
import { displayForList, displayFromInput, type Storefront, type UpdateStorefrontInput } from './storefront.js';
import { findStorefront, updateStorefrontRow } from './storefront.repository.js';

/**
 * Changes the draft only; what storefront keys read changes on publish. offeringDisplay and theme
 * are replaced whole when sent; a list edit drops the display entries of offerings it removes.
 */
export async function updateStorefront(deps: Deps, ctx: OperationContext, id: string, input: UpdateStorefrontInput): Promise<Storefront> {
  if (input.offeringIds) await checkStorefrontOfferings(deps.db, ctx, input.offeringIds);
  return inTransaction(deps.db, async (trx) => {
    const current = await findStorefront(trx, ctx, id);
    if (!current) throw notFound('storefront', id);
    const offeringIds = input.offeringIds ?? current.draftOfferingIds;
    const sent = displayFromInput(input.offeringDisplay ?? current.draftDisplay.offerings, input.theme ?? current.draftDisplay.theme);
    // Entries the body names must be on the list; kept ones of removed offerings just go.
    const display = input.offeringDisplay ? sent : displayForList(sent, offeringIds);
    checkStorefrontDisplay(display, offeringIds);
    const next: Storefront = {
      ...current,
      name: input.name ?? current.name,
      draftOfferingIds: offeringIds,
      draftDisplay: display,
      updatedAt: deps.clock.now(),
    };
    await updateStorefrontRow(trx, ctx, next);
    await recordAudit(trx, deps, ctx, { eventType: 'storefront.updated', targetType: 'storefront', targetId: id, payload: { changed: Object.keys(input) } });
    return next;
  });
}
