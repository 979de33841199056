import type { Db } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { credentialTypeFor, type Product } from '../products/product.js';
import { findProduct } from '../products/product.repository.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Subscription } from './subscription.js';
import { findSubscription } from './subscription.repository.js';

/**
 * A customer's credential exists only bound to an active subscription whose product is called
 * with that kind of credential: product keys for STANDARD_API and AGENTIC_API, client
 * credentials for AI_AGENT and MCP_SERVER.
 */
export async function findBindableSubscription(
  db: Db,
  tenant: Tenant,
  subscriptionId: string | undefined,
  credential: 'api_key' | 'client_credentials',
): Promise<{ subscription: Subscription; product: Product }> {
  const noun = credential === 'api_key' ? 'A product key' : 'A client credential';
  if (!subscriptionId) {
    throw new AppError('VALIDATION_FAILED', `${noun} must be bound to a subscription: body.subscriptionId is required.`, {
      field: 'body.subscriptionId',
    });
  }
  const subscription = await findSubscription(db, tenant, subscriptionId);
  if (!subscription) {
    throw new AppError('NOT_FOUND', `No subscription with id '${subscriptionId}' exists in this workspace and environment.`, {
      field: 'body.subscriptionId',
    });
  }
  if (subscription.status !== 'ACTIVE') {
    throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${subscriptionId}' is ${subscription.status}; credentials need an active one.`, {
      field: 'body.subscriptionId',
    });
  }
  const product = await findProduct(db, tenant, subscription.productId);
  if (!product) throw new AppError('NOT_FOUND', `The subscription's product '${subscription.productId}' no longer exists.`);
  if (credentialTypeFor(product.kind) !== credential) {
    const other = credential === 'api_key' ? 'client credentials (POST /api/v1/client-credentials)' : 'product keys (POST /api/v1/api-keys)';
    throw new AppError('VALIDATION_FAILED', `Product '${product.id}' is of kind ${product.kind}; its customers authenticate with ${other}.`, {
      field: 'body.subscriptionId',
    });
  }
  return { subscription, product };
}
