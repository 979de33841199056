import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { findBindableSubscription } from '../subscriptions/bindable-subscription.js';
import { newClientSecret } from '../credentials/secrets.js';
import type { ClientCredential, CreateClientCredentialInput } from './client-credential.js';
import { insertClientCredential } from './client-credential.repository.js';

export async function createClientCredential(
  deps: Deps,
  ctx: OperationContext,
  input: CreateClientCredentialInput,
): Promise<{ credential: ClientCredential; clientSecret: string }> {
  return inTransaction(deps.db, async (trx) => {
    const { subscription } = await findBindableSubscription(trx, ctx, input.subscriptionId, 'client_credentials');
    const now = deps.clock.now();
    const secret = newClientSecret();
    const credential: ClientCredential = {
      id: deps.ids.next('clientCredential'),
      environment: ctx.environment,
      name: input.name,
      hint: secret.hint,
      subscriptionId: subscription.id,
      customerId: subscription.customerId,
      productId: subscription.productId,
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    };
    await insertClientCredential(trx, ctx, credential, secret.hash);
    await recordAudit(trx, deps, ctx, {
      eventType: 'client_credential.created',
      targetType: 'client_credential',
      targetId: credential.id,
      payload: { name: credential.name, subscriptionId: subscription.id },
    });
    return { credential, clientSecret: secret.plaintext };
  });
}
