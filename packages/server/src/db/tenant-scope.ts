import type { Tenant } from '../lib/tenant.js';

/**
 * The filter every tenant query carries: the workspace and the environment of the credential.
 * Use with Kysely's $call: `db.selectFrom('customers').selectAll().$call(forTenant(ctx))`.
 * The builder's own type is kept; Kysely's where() typing is too table-specific to state here.
 */
export function forTenant(tenant: Tenant) {
  return <QB extends { where: unknown }>(qb: QB): QB =>
    (qb as unknown as TenantFilterable).where('workspaceId', '=', tenant.workspaceId).where('environment', '=', tenant.environment) as unknown as QB;
}

/** The one where() call forTenant makes, on any builder of a tenant table. */
interface TenantFilterable {
  where(column: 'workspaceId' | 'environment', op: '=', value: string): TenantFilterable;
}
