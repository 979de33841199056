import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors } from '../../http/schemas.js';
import { entitlementAnswerCache, lastUsageCommit, nextSequence, type CachedAnswer } from './entitlement-answer-cache.js';
import { explainEntitlement, EntitlementResultSchema, type EntitlementResult } from './check-entitlement.js';

export async function entitlementRoutes(app: App, deps: Deps): Promise<void> {
  const deciding = new Map<string, Promise<CachedAnswer>>();
  const answers = deps.caches.of(entitlementAnswerCache);
  app.get('/v1/entitlements/check', {
    config: { auth: { kind: 'workspace', scope: 'entitlements:read' } },
    schema: {
      operationId: 'checkEntitlement',
      summary: 'May this customer use this product now?',
      description:
        'Read-only: never decrements or writes anything. Answers may be reused for up to ENTITLEMENT_CACHE_TTL_MS (250 ms by default), except that usage this node has acknowledged (a batch, an event, an upload) counts in its next check at once. accessorId is the customer (its cus_ id or your externalId). Decided by the customer’s active subscription to the product: allowed is false without one, when a BLOCK usage limit is used up, or when a BLOCK spend budget is spent. quotaRemaining is the tightest usage limit’s remainder in the current period; budgetRemaining is the spend budget minus the period’s charges so far (usage times the subscription’s unitPrices until the pricing catalog rates usage). No limit or no budget reads as 9007199254740991 with quotaUnlimited or budgetUnlimited true.',
      tags: ['Entitlements'],
      security: bearerSecurity,
      querystring: Type.Object(
        {
          accessorId: Type.String({ minLength: 1, maxLength: 255, description: 'The customer: cus_ id or externalId.' }),
          productId: Type.String({ minLength: 1, maxLength: 100 }),
        },
        { additionalProperties: false },
      ),
      response: { 200: EntitlementResultSchema, ...errors(403, 404, 409) },
    },
    handler: async (req, reply) => {
      // A few hundred milliseconds of reuse at most: a gateway asks the same question many times a
      // second, and usage moves the answer slowly. Limits therefore bite up to that much late on
      // other nodes; on this one, usage it committed for the customer makes its answers stale at once.
      // The answer is kept as its JSON text, so a repeat costs a map look-up and no serializing.
      const askedAt = nextSequence();
      const key = `${req.ctx.workspaceId}\u0000${req.ctx.environment}\u0000${req.query.accessorId}\u0000${req.query.productId}`;
      const cached = answers.get(key);
      let answer = cached !== undefined && lastUsageCommit(deps, req.ctx, cached.customerId) < cached.decidedFrom ? cached : undefined;
      if (answer === undefined) {
        // Requests that miss together share one decision instead of each running the queries;
        // only while nothing changed since it started (the generation), so none reads stale data.
        const generation = answers.generation;
        const flight = `${generation}\u0000${key}`;
        const decide = () => {
          const decidedFrom = nextSequence();
          return explainEntitlement(deps, req.ctx, req.query.accessorId, req.query.productId).then(({ quotaMetricName: _m, customerId, ...result }) => {
            const fresh: CachedAnswer = { json: JSON.stringify(result), customerId, decidedFrom };
            // Usage committed while it was decided may be missing from it: not kept.
            if (lastUsageCommit(deps, req.ctx, customerId) < decidedFrom) answers.set(key, fresh, generation);
            return fresh;
          });
        };
        let pending = deciding.get(flight);
        if (!pending) {
          pending = decide().finally(() => deciding.delete(flight));
          deciding.set(flight, pending);
        }
        answer = await pending;
        // A shared decision that began before usage this request already saw acknowledged: decide again.
        const commit = lastUsageCommit(deps, req.ctx, answer.customerId);
        if (commit > answer.decidedFrom && commit < askedAt) answer = await decide();
      }
      // A string with a JSON content type is sent as it is; the schema above still documents it.
      return reply.type('application/json; charset=utf-8').send(answer.json as unknown as EntitlementResult);
    },
  });
}
