import { checkPeriodAmount, normaliseOverride, prefixFieldErrors, type BillingPeriod } from '@tollgate/pricing';
import type { Db } from '../../db/database.js';
import type { ErrorDetail } from '../../lib/errors.js';
import { findProduct } from '../products/product.repository.js';
import type { Tenant } from '../../lib/tenant.js';
import { checkCurrency, failValidation } from './check-rate-plan-units.js';
import type { OfferingOverride } from './offering.js';
import { findRatePlans } from './rate-plan.repository.js';

export interface OfferingDraft {
  productId: string;
  currency: string;
  billingPeriod: BillingPeriod;
  entryPrice: string | null;
  ratePlanIds: string[];
  overrides: OfferingOverride[];
}

const fail = (field: string, message: string): ErrorDetail => ({ code: 'VALIDATION_FAILED', field, message });

/**
 * An offering bills in one currency and one period, so its plans must share both; an override
 * must name a unit of one of its plans and obey that unit's pricing rules. Returns the overrides
 * normalised (canonical decimal text).
 */
export async function checkOffering(db: Db, tenant: Tenant, o: OfferingDraft): Promise<OfferingOverride[]> {
  const details: ErrorDetail[] = [];
  if (!(await findProduct(db, tenant, o.productId))) details.push(fail('body.productId', `No product with id '${o.productId}' exists in this environment.`));
  const currencyError = checkCurrency(o.currency, 'body.currency');
  if (currencyError) failValidation([currencyError, ...details]);
  if (o.entryPrice !== null) {
    const e = checkPeriodAmount(o.entryPrice, o.currency, 'body.entryPrice');
    if (e) details.push(fail(e.field, e.message));
  }
  const plans = await findRatePlans(db, tenant, o.ratePlanIds);
  const seen = new Set<string>();
  o.ratePlanIds.forEach((id, i) => {
    const at = `body.ratePlanIds.${i}`;
    const plan = plans.get(id);
    if (seen.has(id)) return details.push(fail(at, `Rate plan ${id} is listed twice.`));
    seen.add(id);
    if (!plan) return details.push(fail(at, `No rate plan with id '${id}' exists in this environment.`));
    if (plan.currency !== o.currency)
      details.push(fail(at, `Rate plan ${id} is priced in ${plan.currency}, but the offering bills in ${o.currency}; an offering's plans share its currency.`));
    if (plan.billingPeriod !== o.billingPeriod)
      details.push(fail(at, `Rate plan ${id} is ${plan.billingPeriod}, but the offering is ${o.billingPeriod}; an offering's plans share its billing period.`));
  });
  // Two plans pricing one unit would charge its usage twice.
  const pricedBy = new Map<string, string>();
  for (const id of new Set(o.ratePlanIds)) {
    for (const u of plans.get(id)?.metrics ?? []) {
      const other = pricedBy.get(u.metricName);
      if (other) details.push(fail('body.ratePlanIds', `Rate plans ${other} and ${id} both price '${u.metricName}'; an offering prices each unit once.`));
      pricedBy.set(u.metricName, id);
    }
  }
  const normalised: OfferingOverride[] = [];
  const overridden = new Set<string>();
  o.overrides.forEach((ov, i) => {
    const at = `body.overrides.${i}`;
    const plan = plans.get(ov.ratePlanId);
    if (!o.ratePlanIds.includes(ov.ratePlanId) || !plan)
      return details.push(fail(`${at}.ratePlanId`, `Rate plan '${ov.ratePlanId}' is not one of this offering's ratePlanIds.`));
    const unit = plan.metrics.find((u) => u.metricName === ov.metricName);
    if (!unit) return details.push(fail(`${at}.metricName`, `Rate plan ${plan.id} has no unit '${ov.metricName}'.`));
    const key = `${ov.ratePlanId}\u0000${ov.metricName}`;
    if (overridden.has(key))
      return details.push(fail(`${at}.metricName`, `'${ov.metricName}' of ${ov.ratePlanId} is already overridden; one override per unit.`));
    overridden.add(key);
    const checked = normaliseOverride({ includedFree: ov.includedFree, rate: ov.rate }, unit, o.currency);
    if (!checked.ok) {
      for (const e of prefixFieldErrors(at, checked.errors)) details.push(fail(e.field, e.message));
      return;
    }
    normalised.push({ ratePlanId: ov.ratePlanId, metricName: ov.metricName, ...checked.value });
  });
  if (details.length > 0) failValidation(details);
  return normalised;
}
