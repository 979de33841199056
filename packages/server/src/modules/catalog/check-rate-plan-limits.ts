import type { CatalogUnitPricing } from '@tollgate/pricing';
import type { ErrorDetail } from '../../lib/errors.js';
import type { UsageLimit } from './usage-limit.js';

/**
 * Pure: a rate plan's default limits name units the plan prices (so an offering, which prices each
 * unit once, never has two defaults for a metric), at most one each. Every problem is named by
 * its path, e.g. body.usageLimits.1.metricName.
 */
export function checkRatePlanLimits(limits: readonly UsageLimit[], units: readonly Pick<CatalogUnitPricing, 'metricName'>[]): ErrorDetail[] {
  const priced = new Set(units.map((u) => u.metricName));
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  limits.forEach((l, i) => {
    const field = `body.usageLimits.${i}.metricName`;
    if (!priced.has(l.metricName)) {
      details.push({ code: 'VALIDATION_FAILED', field, message: `'${l.metricName}' is not a unit of this plan; a plan limits only the units it prices.` });
    } else if (seen.has(l.metricName)) {
      details.push({ code: 'VALIDATION_FAILED', field, message: `Metric '${l.metricName}' already has a limit on this plan; one limit per metric.` });
    }
    seen.add(l.metricName);
  });
  return details;
}
