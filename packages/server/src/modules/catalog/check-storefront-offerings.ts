import type { Db } from '../../db/database.js';
import type { ErrorDetail } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import type { StorefrontDisplay } from './storefront.js';
import { failValidation } from './check-rate-plan-units.js';
import { findOfferings } from './offering.repository.js';

/** A storefront lists existing offerings of its environment, each once. */
export async function checkStorefrontOfferings(db: Db, tenant: Tenant, ids: readonly string[]): Promise<void> {
  const found = new Set((await findOfferings(db, tenant, ids)).map((o) => o.id));
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) details.push({ code: 'VALIDATION_FAILED', field: `body.offeringIds.${i}`, message: `Offering ${id} is listed twice.` });
    else if (!found.has(id))
      details.push({ code: 'VALIDATION_FAILED', field: `body.offeringIds.${i}`, message: `No offering with id '${id}' exists in this environment.` });
    seen.add(id);
  });
  if (details.length > 0) failValidation(details);
}

/** The longest https logo URL; data: URLs may be longer (the schema caps them at 32 KiB). */
const MAX_LOGO_URL = 2048;

/**
 * Display settings may name only offerings on the list, each once, and an https logo URL has the
 * usual URL limit. Pure: returns the problems, with the body path of each.
 */
export function storefrontDisplayProblems(display: StorefrontDisplay, offeringIds: readonly string[]): ErrorDetail[] {
  const listed = new Set(offeringIds);
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  display.offerings.forEach((entry, i) => {
    const field = `body.offeringDisplay.${i}.offeringId`;
    if (seen.has(entry.offeringId)) details.push({ code: 'VALIDATION_FAILED', field, message: `Offering ${entry.offeringId} has two display entries.` });
    else if (!listed.has(entry.offeringId))
      details.push({ code: 'VALIDATION_FAILED', field, message: `Offering ${entry.offeringId} is not in the storefront's offeringIds.` });
    seen.add(entry.offeringId);
  });
  const logo = display.theme.logoUrl;
  if (logo !== undefined && logo.startsWith('https:') && logo.length > MAX_LOGO_URL) {
    details.push({ code: 'VALIDATION_FAILED', field: 'body.theme.logoUrl', message: `An https logo URL is at most ${MAX_LOGO_URL} characters.` });
  }
  return details;
}

export function checkStorefrontDisplay(display: StorefrontDisplay, offeringIds: readonly string[]): void {
  const details = storefrontDisplayProblems(display, offeringIds);
  if (details.length > 0) failValidation(details);
}
