import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Customer } from '../customers/customer.js';
import { findCustomer } from '../customers/customer.repository.js';
import type { HubSession } from './hub-session.js';
import { findHubSession } from './hub-session.repository.js';

/** The session a hub request authenticated with, and its customer, for the hub to show. */
export async function retrieveHubSession(deps: Deps, tenant: Tenant, id: string): Promise<{ session: HubSession; customer: Customer }> {
  const session = await findHubSession(deps.db, tenant, id);
  const customer = session && (await findCustomer(deps.db, tenant, session.customerId));
  // Authentication found this session a moment ago: its absence is a bug, not a client error.
  if (!session || !customer) throw new Error(`Hub session ${id} or its customer is absent.`);
  return { session, customer };
}
