import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { findStorefront } from '../catalog/storefront.repository.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { newStorefrontKey } from '../credentials/secrets.js';
import type { CreateStorefrontKeyInput, StorefrontKey } from './storefront-key.js';
import { insertStorefrontKey } from './storefront-key.repository.js';

export async function createStorefrontKey(
  deps: Deps,
  ctx: OperationContext,
  input: CreateStorefrontKeyInput,
): Promise<{ key: StorefrontKey; fullToken: string }> {
  if (!(await findStorefront(deps.db, ctx, input.storefrontId))) {
    throw new AppError('VALIDATION_FAILED', `No storefront with id '${input.storefrontId}' exists in this environment.`, { field: 'body.storefrontId' });
  }
  const now = deps.clock.now();
  const secret = newStorefrontKey(ctx.environment);
  const key: StorefrontKey = {
    id: deps.ids.next('storefrontKey'),
    environment: ctx.environment,
    name: input.name,
    storefrontId: input.storefrontId,
    hint: secret.hint,
    status: 'ACTIVE',
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertStorefrontKey(trx, ctx, key, secret.hash);
    await recordAudit(trx, deps, ctx, {
      eventType: 'storefront_key.created',
      targetType: 'storefront_key',
      targetId: key.id,
      payload: { name: key.name, storefrontId: key.storefrontId },
    });
  });
  return { key, fullToken: secret.plaintext };
}
