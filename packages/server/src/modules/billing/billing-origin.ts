import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';

/** The service itself, billing on the tenant's behalf (renewals, finalization, expiries). */
export function billingOrigin(deps: Pick<Deps, 'ids'>, tenant: Tenant): OperationContext {
  return {
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    actor: { type: 'SYSTEM', id: 'billing' },
    correlationId: deps.ids.next('request'),
    source: 'system',
  };
}
