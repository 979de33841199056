import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import {
  hintOf,
  sealedFor,
  stripeSecretKeyProblem,
  stripeWebhookSecretProblem,
  type ConnectStripeInput,
  type PaymentProviderConnection,
} from './payment-provider-connection.js';
import { findPaymentProvider, insertPaymentProvider, updatePaymentProvider } from './payment-provider-connection.repository.js';

/**
 * Connects Stripe to this environment, or replaces its keys: both are checked for shape and mode
 * first (a live key never reaches the test environment), then sealed, bound to the connection's
 * id, and audited by their hints only.
 */
export async function connectStripe(
  deps: Deps,
  ctx: OperationContext,
  input: ConnectStripeInput,
): Promise<{ connection: PaymentProviderConnection; created: boolean }> {
  const problems = [
    { field: 'body.secretKey', message: stripeSecretKeyProblem(input.secretKey, ctx.environment) },
    { field: 'body.webhookSecret', message: input.webhookSecret === undefined ? null : stripeWebhookSecretProblem(input.webhookSecret) },
  ].filter((p): p is { field: string; message: string } => p.message !== null);
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', problems[0]!.message, { details: problems.map((p) => ({ code: 'VALIDATION_FAILED', ...p })) });
  }
  return inTransaction(deps.db, async (trx) => {
    const existing = await findPaymentProvider(trx, ctx, 'stripe');
    const now = deps.clock.now();
    const id = existing?.id ?? deps.ids.next('paymentProvider');
    const connection: PaymentProviderConnection = {
      id,
      environment: ctx.environment,
      provider: 'stripe',
      secretKey: deps.secrets.seal(input.secretKey, sealedFor(id, 'secretKey')),
      secretKeyHint: hintOf(input.secretKey),
      // Left out: the stored one stays (none on a new connection).
      webhookSecret:
        input.webhookSecret === undefined ? (existing?.webhookSecret ?? null) : deps.secrets.seal(input.webhookSecret, sealedFor(id, 'webhookSecret')),
      webhookSecretHint: input.webhookSecret === undefined ? (existing?.webhookSecretHint ?? null) : hintOf(input.webhookSecret),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    if (existing) await updatePaymentProvider(trx, ctx, connection);
    else await insertPaymentProvider(trx, ctx, connection);
    await recordAudit(trx, deps, ctx, {
      eventType: existing ? 'payment_provider.updated' : 'payment_provider.connected',
      severity: 'NOTICE',
      targetType: 'payment_provider',
      targetId: id,
      payload: { provider: 'stripe', secretKeyHint: connection.secretKeyHint, webhookSecretHint: connection.webhookSecretHint },
    });
    return { connection, created: existing === null };
  });
}
