import type { Db } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import type { BillingPeriod } from '../../lib/periods.js';
import { findOffering } from '../catalog/offering.repository.js';
import { findProduct } from '../products/product.repository.js';
import type { Tenant } from '../../lib/tenant.js';
import type { CreateSubscriptionInput } from './subscription.js';

export interface SubscriptionTerms {
  productId: string;
  offeringId: string | null;
  billingPeriod: BillingPeriod;
  currency: string;
  trialDays: number;
}

const invalid = (field: string, message: string) => new AppError('VALIDATION_FAILED', message, { field });

/**
 * What a new subscription is to: an offering (which fixes product, period, currency and trial)
 * or, without one, a product priced by the subscription's own unitPrices.
 */
export async function subscriptionTerms(db: Db, tenant: Tenant, input: CreateSubscriptionInput): Promise<SubscriptionTerms> {
  if (input.offeringId === undefined) {
    if (input.productId === undefined) throw invalid('body.productId', 'Send offeringId (to subscribe to an offering) or productId.');
    if (!(await findProduct(db, tenant, input.productId))) {
      throw new AppError('NOT_FOUND', `No product with id '${input.productId}' exists in this workspace and environment.`, { field: 'body.productId' });
    }
    return { productId: input.productId, offeringId: null, billingPeriod: input.billingPeriod ?? 'MONTHLY', currency: input.currency ?? 'USD', trialDays: 0 };
  }
  const o = await findOffering(db, tenant, input.offeringId);
  if (!o) throw new AppError('NOT_FOUND', `No offering with id '${input.offeringId}' exists in this workspace and environment.`, { field: 'body.offeringId' });
  if (o.billingPeriod === 'ONE_TIME') {
    throw invalid('body.offeringId', `Offering ${o.id} is ONE_TIME: it is bought once, not subscribed to (one-time purchases come with invoicing).`);
  }
  if (input.productId !== undefined && input.productId !== o.productId) {
    throw invalid('body.productId', `Offering ${o.id} is for product ${o.productId}, not ${input.productId}; omit productId.`);
  }
  if (input.billingPeriod !== undefined && input.billingPeriod !== o.billingPeriod) {
    throw invalid('body.billingPeriod', `Offering ${o.id} bills ${o.billingPeriod}; omit billingPeriod.`);
  }
  if (input.currency !== undefined && input.currency !== o.currency) {
    throw invalid('body.currency', `Offering ${o.id} bills in ${o.currency}; omit currency.`);
  }
  if (input.unitPrices !== undefined && Object.keys(input.unitPrices).length > 0) {
    throw invalid('body.unitPrices', "An offering's rate plans price its usage; unitPrices is only for subscriptions without an offering.");
  }
  return { productId: o.productId, offeringId: o.id, billingPeriod: o.billingPeriod, currency: o.currency, trialDays: o.trialDays };
}
