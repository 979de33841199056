import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import { toIso } from '../../lib/clock.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, Environment, errors, Timestamp } from '../../http/schemas.js';
import { findWorkspace } from './workspace.repository.js';

const WorkspaceSchema = Type.Object({
  id: Type.String({ description: 'ws_…' }),
  object: Type.Literal('workspace'),
  name: Type.String(),
  environment: Environment,
  rateLimitPerMinute: Type.Integer({ description: 'Requests per minute this workspace may make (its own limit, or the default).' }),
  createdAt: Timestamp,
});

export async function workspaceRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/workspace', {
    config: { auth: { kind: 'workspace', scope: 'admin' } },
    schema: {
      operationId: 'retrieveWorkspace',
      summary: 'The workspace and environment of the calling key',
      description: "The workspace and environment the calling key belongs to, with the workspace's rate limit: a quick check that a key is the one you meant.",
      tags: ['Workspace'],
      security: bearerSecurity,
      response: { 200: WorkspaceSchema, ...errors(403) },
    },
    handler: async (req) => {
      const w = await findWorkspace(deps.db, req.ctx.workspaceId);
      if (!w) throw notFound('workspace', req.ctx.workspaceId);
      return {
        id: w.id,
        object: 'workspace' as const,
        name: w.name,
        environment: req.ctx.environment,
        rateLimitPerMinute: w.rateLimitPerMinute ?? deps.config.rateLimitPerMinute,
        createdAt: toIso(w.createdAt),
      };
    },
  });
}
