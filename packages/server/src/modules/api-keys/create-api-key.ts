import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { findBindableSubscription } from '../subscriptions/bindable-subscription.js';
import type { ApiKey, CreateApiKeyInput } from './api-key.js';
import { insertApiKey } from './api-key.repository.js';
import { hasScope } from '../credentials/credential.js';
import type { Credential, Scope } from '../../lib/principal.js';
import { newBearerKey } from '../credentials/secrets.js';

export interface IssuedApiKey {
  key: ApiKey;
  /** The plaintext, for this one response only. */
  fullToken: string;
}

/**
 * A workspace key may only hand out (create, rotate, roll) or take away (revoke) scopes it holds
 * itself: otherwise keys:write would be a way to mint, or to lock out, an admin key.
 */
export function assertHoldsScopes(caller: Credential | null, wanted: readonly Scope[], action: 'grant' | 'rotate' | 'roll' | 'revoke'): void {
  if (!caller || caller.type !== 'workspace_key') return;
  const missing = wanted.filter((s) => !hasScope(caller.scopes, s));
  if (missing.length === 0) return;
  const what = action === 'grant' ? 'grant scopes' : `${action} a key with scopes`;
  throw new AppError(
    'INSUFFICIENT_SCOPE',
    `This key cannot ${what} it does not hold: ${missing.join(', ')}.`,
    action === 'grant' ? { field: 'body.scopes' } : {},
  );
}

export async function createApiKey(deps: Deps, ctx: OperationContext, input: CreateApiKeyInput, caller: Credential | null): Promise<IssuedApiKey> {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (trx) => {
    let binding: Pick<ApiKey, 'subscriptionId' | 'customerId' | 'productId' | 'scopes'>;
    if (input.kind === 'WORKSPACE') {
      if (!input.scopes) {
        throw new AppError('VALIDATION_FAILED', 'A workspace key needs body.scopes (for example ["admin"]).', { field: 'body.scopes' });
      }
      if (input.subscriptionId !== undefined) {
        throw new AppError('VALIDATION_FAILED', 'Workspace keys are not bound to a subscription; remove body.subscriptionId.', {
          field: 'body.subscriptionId',
        });
      }
      assertHoldsScopes(caller, input.scopes, 'grant');
      binding = { subscriptionId: null, customerId: null, productId: null, scopes: input.scopes };
    } else {
      if (input.scopes !== undefined) {
        throw new AppError('VALIDATION_FAILED', 'Product keys have no scopes; remove body.scopes.', { field: 'body.scopes' });
      }
      const { subscription } = await findBindableSubscription(trx, ctx, input.subscriptionId, 'api_key');
      binding = {
        subscriptionId: subscription.id,
        customerId: subscription.customerId,
        productId: subscription.productId,
        scopes: [],
      };
    }
    const secret = newBearerKey(ctx.environment);
    const key: ApiKey = {
      id: deps.ids.next('apiKey'),
      environment: ctx.environment,
      kind: input.kind,
      name: input.name,
      hint: secret.hint,
      ...binding,
      status: 'ACTIVE',
      expiresAt: null,
      replacedById: null,
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    };
    await insertApiKey(trx, ctx, key, secret.hash);
    await recordAudit(trx, deps, ctx, {
      eventType: 'api_key.created',
      targetType: 'api_key',
      targetId: key.id,
      payload: { kind: key.kind, name: key.name, scopes: key.scopes, subscriptionId: key.subscriptionId },
    });
    return { key, fullToken: secret.plaintext };
  });
}
