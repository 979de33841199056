import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors } from '../../http/schemas.js';
import { checkEntitlement, EntitlementResultSchema } from './check-entitlement.js';

export async function entitlementRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/v1/entitlements/check', {
    config: { auth: { kind: 'workspace', scope: 'entitlements:read' } },
    schema: {
      summary: 'May this customer use this product now?',
      description:
        'Read-only: never decrements or writes anything. Answers may be reused for up to ENTITLEMENT_CACHE_TTL_MS (250 ms by default). accessorId is the customer (its cus_ id or your externalId). Decided by the customer’s active subscription to the product: allowed is false without one, when a BLOCK usage limit is used up, or when a BLOCK spend budget is spent. quotaRemaining is the tightest usage limit’s remainder in the current period; budgetRemaining is the spend budget minus the period’s charges so far (usage times the subscription’s unitPrices until the pricing catalog rates usage). No limit or no budget reads as 9007199254740991 with quotaUnlimited or budgetUnlimited true.',
      tags: ['Entitlements'],
      security: bearerSecurity,
      querystring: Type.Object(
        {
          accessorId: Type.String({ minLength: 1, maxLength: 255, description: 'The customer: cus_ id or externalId.' }),
          productId: Type.String({ minLength: 1, maxLength: 100 }),
        },
        { additionalProperties: false },
      ),
      response: { 200: EntitlementResultSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      // A few hundred milliseconds of reuse at most: a gateway asks the same question many times a
      // second, and usage moves the answer slowly. Limits therefore bite up to that much late.
      const key = `${req.ctx.workspaceId}\u0000${req.ctx.environment}\u0000${req.query.accessorId}\u0000${req.query.productId}`;
      const cached = deps.entitlements.get(key);
      if (cached) return cached;
      const generation = deps.entitlements.generation;
      const result = await checkEntitlement(deps, req.ctx, req.query.accessorId, req.query.productId);
      deps.entitlements.set(key, result, generation);
      return result;
    },
  });
}
