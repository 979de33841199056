import type { Db } from '../../db/database.js';
import type { ErrorDetail } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
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
