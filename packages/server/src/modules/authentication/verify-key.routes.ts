import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors } from '../../http/schemas.js';
import { verifyKey, VerifyKeyBody, VerifyKeyResult } from './verify-key.js';

/** The gateway's endpoint, listed with the API keys; it answers for product keys and access tokens alike. */
export async function verifyKeyRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/v1/keys/verify', {
    config: { auth: { kind: 'workspace', scope: 'keys:verify' } },
    schema: {
      operationId: 'verifyKey',
      summary: "Verify a customer's product key or access token",
      description:
        'For your gateway: is this key good, and whose is it? Always 200; read `valid`. Answered from an in-process cache (revocations reach every node at once). A rotated key answers valid until its 300-second grace period ends.',
      tags: ['API keys'],
      security: bearerSecurity,
      body: VerifyKeyBody,
      response: { 200: VerifyKeyResult, ...errors(403) },
    },
    handler: async (req) => verifyKey(deps, req.ctx, req.body.key),
  });
}
