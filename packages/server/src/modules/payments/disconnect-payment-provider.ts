import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { ConnectableProvider, PaymentProviderConnection } from './payment-provider-connection.js';
import { deletePaymentProvider, findPaymentProvider } from './payment-provider-connection.repository.js';

/** Disconnects a provider from this environment: its row, and the sealed secrets with it, are deleted. */
export async function disconnectPaymentProvider(deps: Deps, ctx: OperationContext, provider: ConnectableProvider): Promise<PaymentProviderConnection> {
  return inTransaction(deps.db, async (trx) => {
    const existing = await findPaymentProvider(trx, ctx, provider);
    if (!existing) throw new AppError('NOT_FOUND', `No ${provider} connection exists in the ${ctx.environment} environment.`, { field: 'path.provider' });
    await deletePaymentProvider(trx, ctx, existing.id);
    await recordAudit(trx, deps, ctx, {
      eventType: 'payment_provider.disconnected',
      severity: 'NOTICE',
      targetType: 'payment_provider',
      targetId: existing.id,
      payload: { provider, secretKeyHint: existing.secretKeyHint },
    });
    return existing;
  });
}
