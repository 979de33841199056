import type { Db } from '../../db/database.js';
import { AppError, type ErrorDetail } from '../../lib/errors.js';
import { checkCurrency } from '../catalog/check-rate-plan-units.js';
import { findExistingMetricNames } from '../metrics/metric.repository.js';
import type { Tenant } from '../../lib/tenant.js';
import type { UsageLimitOverrideInput } from './usage-limits.js';

/**
 * The currency must be one pricing can round to (an ISO 4217 code with a minor unit), or every
 * later rating of the subscription would fail. Limits and prices must name metrics that exist
 * (exactly, as events send them), and a metric may have one limit: a misspelt name would
 * otherwise never match any usage. A limit has an enforcement; a null one (no limit, whatever the
 * rate plan says) has none, so that a stored entry reads one way only.
 */
export async function checkEntitlementConfig(
  db: Db,
  tenant: Tenant,
  input: { currency?: string; usageLimits?: readonly UsageLimitOverrideInput[]; unitPrices?: Record<string, string> },
): Promise<void> {
  const details: ErrorDetail[] = [];
  const badCurrency = input.currency === undefined ? null : checkCurrency(input.currency, 'body.currency');
  if (badCurrency) details.push(badCurrency);
  const named = [...(input.usageLimits ?? []).map((l) => l.metricName), ...Object.keys(input.unitPrices ?? {})];
  const known = new Set(named.length === 0 ? [] : await findExistingMetricNames(db, tenant, [...new Set(named)]));
  const seen = new Set<string>();
  (input.usageLimits ?? []).forEach((l, i) => {
    if (!known.has(l.metricName)) {
      details.push({
        code: 'VALIDATION_FAILED',
        field: `body.usageLimits.${i}.metricName`,
        message: `No metric named '${l.metricName}' exists in this environment.`,
      });
    } else if (seen.has(l.metricName)) {
      details.push({
        code: 'VALIDATION_FAILED',
        field: `body.usageLimits.${i}.metricName`,
        message: `Metric '${l.metricName}' already has a limit; one limit per metric.`,
      });
    }
    seen.add(l.metricName);
    if (l.limit !== null && l.enforcement === undefined) {
      details.push({ code: 'VALIDATION_FAILED', field: `body.usageLimits.${i}.enforcement`, message: 'A limit needs its enforcement: BLOCK or ALERT.' });
    } else if (l.limit === null && l.enforcement !== undefined) {
      details.push({
        code: 'VALIDATION_FAILED',
        field: `body.usageLimits.${i}.enforcement`,
        message: 'A null limit (no limit on this metric, whatever the rate plan says) has no enforcement; leave it out.',
      });
    }
  });
  for (const name of Object.keys(input.unitPrices ?? {})) {
    if (!known.has(name)) {
      details.push({ code: 'VALIDATION_FAILED', field: `body.unitPrices.${name}`, message: `No metric named '${name}' exists in this environment.` });
    }
  }
  if (details.length > 0) throw new AppError('VALIDATION_FAILED', details[0]!.message, { details });
}
