import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import type { Actor, AuditSource } from '../lib/operation-context.js';
import { createOperator } from '../modules/operators/create-operator.js';

/** The demo workspace's console sign-in: an admin with a password made now and shown once. */
export interface DemoOperator {
  email: string;
  password: string;
}

export const DEMO_OPERATOR_EMAIL = 'admin@example.com';

/**
 * Kept apart from createDemoWorkspace: hashing a password takes tens of milliseconds on purpose,
 * and the tests and benchmarks that build demo workspaces by the hundred never sign in.
 */
export async function createDemoOperator(
  deps: Deps,
  workspaceId: string,
  origin: { actor: Actor; source: AuditSource; correlationId: string },
): Promise<DemoOperator> {
  const password = randomBytes(12).toString('base64url');
  await createOperator(deps, { workspaceId, email: DEMO_OPERATOR_EMAIL, name: 'Demo admin', role: 'admin', password }, origin);
  return { email: DEMO_OPERATOR_EMAIL, password };
}
