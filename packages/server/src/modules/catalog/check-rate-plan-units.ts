import type { Static } from '@sinclair/typebox';
import { isCurrencyCode, normaliseUnitPricing, prefixFieldErrors, type CatalogUnitPricing } from '@tollgate/pricing';
import type { Db } from '../../db/database.js';
import { findMetricsByIdOrName } from '../metrics/metric.repository.js';
import { AppError, capDetails, type ErrorDetail } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import type { UnitPricingBody } from './catalog-schemas.js';

type UnitInput = Static<typeof UnitPricingBody>;

/** Throws one VALIDATION_FAILED naming every offending field, the first one in the message. */
export function failValidation(details: ErrorDetail[]): never {
  throw new AppError('VALIDATION_FAILED', `${details[0]!.field}: ${details[0]!.message}`, { field: details[0]!.field, details: capDetails(details, 'body') });
}

export function checkCurrency(currency: string, field: string): ErrorDetail | null {
  return isCurrencyCode(currency) ? null : { code: 'VALIDATION_FAILED', field, message: `'${currency}' is not an ISO 4217 currency code with a minor unit.` };
}

/**
 * Resolves each unit's metric (by id or exact name, in this environment) and applies the pricing
 * rules of @tollgate/pricing. Every problem is reported with its path, e.g.
 * body.metrics.1.tiers.0.tierEnd.
 */
export async function checkRatePlanUnits(db: Db, tenant: Tenant, units: readonly UnitInput[], currency: string): Promise<CatalogUnitPricing[]> {
  const details: ErrorDetail[] = [];
  const ids = units.flatMap((u) => (u.metricId ? [u.metricId] : []));
  const names = units.flatMap((u) => (u.metricName ? [u.metricName] : []));
  const rows = ids.length + names.length === 0 ? [] : await findMetricsByIdOrName(db, tenant, ids, names);
  const byId = new Map(rows.map((r) => [r.id, r.name]));
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  const seen = new Set<string>();
  const out: CatalogUnitPricing[] = [];
  units.forEach((u, i) => {
    const at = `body.metrics.${i}`;
    let metricId: string | undefined;
    let metricName: string | undefined;
    if (u.metricId) {
      metricId = u.metricId;
      metricName = byId.get(u.metricId);
      if (!metricName)
        return details.push({ code: 'VALIDATION_FAILED', field: `${at}.metricId`, message: `No metric with id '${u.metricId}' exists in this environment.` });
      if (u.metricName && u.metricName !== metricName) {
        return details.push({
          code: 'VALIDATION_FAILED',
          field: `${at}.metricName`,
          message: `Metric ${metricId} is named '${metricName}', not '${u.metricName}'; send one of the two.`,
        });
      }
    } else if (u.metricName) {
      metricName = u.metricName;
      metricId = byName.get(u.metricName);
      if (!metricId)
        return details.push({
          code: 'VALIDATION_FAILED',
          field: `${at}.metricName`,
          message: `No metric named '${u.metricName}' exists in this environment (names match exactly).`,
        });
    } else {
      return details.push({ code: 'VALIDATION_FAILED', field: `${at}.metricId`, message: 'Name the billable unit with metricId or metricName.' });
    }
    if (seen.has(metricId)) {
      return details.push({
        code: 'VALIDATION_FAILED',
        field: `${at}.metricId`,
        message: `Metric '${metricName}' is already priced on this plan; each unit appears once.`,
      });
    }
    seen.add(metricId);
    const checked = normaliseUnitPricing({ ...u, metricId, metricName }, currency);
    if (!checked.ok) {
      for (const e of prefixFieldErrors(at, checked.errors)) details.push({ code: 'VALIDATION_FAILED', field: e.field, message: e.message });
      return;
    }
    out.push(checked.value);
  });
  if (details.length > 0) failValidation(details);
  return out;
}
