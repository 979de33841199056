import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';

/** An item of due work (a subscription to renew, a draft, an invoice to collect) and its tenant. */
export type Due = { id: string; workspaceId: string; environment: Environment };

/**
 * Due items in groups of one tenant each, at most `size` long, in the order given: the billing
 * run's jobs write a group in one transaction, and every statement carries one tenant.
 */
export function tenantGroups(due: readonly Due[], size: number): Array<{ tenant: Tenant; ids: string[] }> {
  const groups: Array<{ tenant: Tenant; ids: string[] }> = [];
  const open = new Map<string, { tenant: Tenant; ids: string[] }>();
  for (const d of due) {
    const key = `${d.workspaceId}:${d.environment}`;
    let g = open.get(key);
    if (!g || g.ids.length >= size) {
      g = { tenant: { workspaceId: d.workspaceId, environment: d.environment }, ids: [] };
      open.set(key, g);
      groups.push(g);
    }
    g.ids.push(d.id);
  }
  return groups;
}
