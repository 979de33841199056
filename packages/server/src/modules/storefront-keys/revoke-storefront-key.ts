import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { revokeCredential } from '../credentials/revoke-credential.js';
import type { StorefrontKey } from './storefront-key.js';
import { findStorefrontKey, revokeStorefrontKeyRow } from './storefront-key.repository.js';

export function revokeStorefrontKey(deps: Deps, ctx: OperationContext, id: string): Promise<StorefrontKey> {
  return revokeCredential(deps, ctx, {
    find: async (trx) => {
      const key = await findStorefrontKey(trx, ctx, id);
      if (!key) throw notFound('storefront key', id);
      return key;
    },
    revoke: (trx, now) => revokeStorefrontKeyRow(trx, ctx, id, now),
    event: { eventType: 'storefront_key.revoked', targetType: 'storefront_key', targetId: id },
  });
}
