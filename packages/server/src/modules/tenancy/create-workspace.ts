import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { environments, type Environment } from '../../lib/crypto.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { Actor, AuditSource, OperationContext } from '../../lib/operation-context.js';
import { createApiKey } from '../api-keys/create-api-key.js';
import { scopes } from '../../lib/principal.js';
import { insertWorkspace, type Workspace } from './workspace.repository.js';

export interface CreatedWorkspace {
  workspace: Workspace;
  /** A workspace key with every scope, per environment; plaintext shown once. */
  keys: Record<Environment, { id: string; secretKey: string }>;
}

export interface CreateWorkspaceOptions {
  name: string;
  actor: Actor;
  source: AuditSource;
  correlationId: string;
}

/** A new tenant with its two environments, each with a first workspace key holding every scope. */
export async function createWorkspace(deps: Deps, opts: CreateWorkspaceOptions): Promise<CreatedWorkspace> {
  const now = deps.clock.now();
  const workspace: Workspace = { id: deps.ids.next('workspace'), name: opts.name, rateLimitPerMinute: null, createdAt: now, updatedAt: now };
  return inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    await insertWorkspace(trx, workspace);
    const keys = {} as CreatedWorkspace['keys'];
    for (const environment of environments) {
      const ctx: OperationContext = { workspaceId: workspace.id, environment, actor: opts.actor, correlationId: opts.correlationId, source: opts.source };
      if (environment === 'test') {
        await recordAudit(trx, deps, ctx, { eventType: 'workspace.created', targetType: 'workspace', targetId: workspace.id, payload: { name: opts.name } });
      }
      const { key, fullToken } = await createApiKey(txDeps, ctx, { kind: 'WORKSPACE', name: 'Default secret key', scopes: [...scopes] }, null);
      keys[environment] = { id: key.id, secretKey: fullToken };
    }
    return { workspace, keys };
  });
}
