import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { checkStorefrontDisplay, checkStorefrontOfferings } from './check-storefront-offerings.js';
import { displayFromInput, type CreateStorefrontInput, type Storefront } from './storefront.js';
import { insertStorefront } from './storefront.repository.js';

/** A new storefront is a draft: storefront keys read nothing until it is published. */
export async function createStorefront(deps: Deps, ctx: OperationContext, input: CreateStorefrontInput): Promise<Storefront> {
  const offeringIds = input.offeringIds ?? [];
  const display = displayFromInput(input.offeringDisplay ?? [], input.theme ?? {});
  checkStorefrontDisplay(display, offeringIds);
  await checkStorefrontOfferings(deps.db, ctx, offeringIds);
  const now = deps.clock.now();
  const storefront: Storefront = {
    id: deps.ids.next('storefront'),
    environment: ctx.environment,
    name: input.name,
    draftOfferingIds: offeringIds,
    publishedOfferingIds: null,
    draftDisplay: display,
    publishedDisplay: null,
    publishedVersion: 0,
    publishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertStorefront(trx, ctx, storefront);
    await recordAudit(trx, deps, ctx, {
      eventType: 'storefront.created',
      targetType: 'storefront',
      targetId: storefront.id,
      payload: { name: storefront.name, offeringIds },
    });
  });
  return storefront;
}
