import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { newWidgetSessionToken } from '../credentials/secrets.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { checkAllowedOrigins } from './allowed-origins.js';
import { DEFAULT_EXPIRES_IN_SECONDS, type CreateWidgetSessionInput, type WidgetSession } from './widget-session.js';
import { insertWidgetSession } from './widget-session.repository.js';

/**
 * Mints a session for one subscription of the caller's tenant (of `customerId` only, when given:
 * the developer hub's customer; another's reads as absent). The token is returned once and kept
 * only as its SHA-256. A session lives in real time (deps.clock): a subscription on a test clock
 * does not stretch or shorten it.
 */
export async function createWidgetSession(
  deps: Deps,
  ctx: OperationContext,
  input: CreateWidgetSessionInput,
  customerId?: string,
): Promise<{ session: WidgetSession; token: string }> {
  const allowedOrigins = checkAllowedOrigins(input.allowedOrigins ?? []);
  const subscription = await findSubscription(deps.db, ctx, input.subscriptionId);
  if (!subscription || (customerId !== undefined && subscription.customerId !== customerId)) {
    throw new AppError('NOT_FOUND', `No subscription with id '${input.subscriptionId}' exists in this workspace and environment.`, {
      field: 'body.subscriptionId',
    });
  }
  if (subscription.status === 'CANCELLED') {
    throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${subscription.id}' is CANCELLED; there is nothing left to upgrade or cancel.`, {
      field: 'body.subscriptionId',
    });
  }
  const now = deps.clock.now();
  const secret = newWidgetSessionToken(ctx.environment);
  const session: WidgetSession = {
    id: deps.ids.next('widgetSession'),
    environment: ctx.environment,
    subscriptionId: subscription.id,
    customerId: subscription.customerId,
    allowedOrigins,
    expiresAt: now + (input.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS) * 1000,
    revokedAt: null,
    createdAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertWidgetSession(trx, ctx, session, secret.hash);
    await recordAudit(trx, deps, ctx, {
      eventType: 'widget_session.created',
      targetType: 'widget_session',
      targetId: session.id,
      payload: {
        subscriptionId: session.subscriptionId,
        customerId: session.customerId,
        expiresAt: new Date(session.expiresAt).toISOString(),
        allowedOrigins: session.allowedOrigins,
      },
    });
  });
  return { session, token: secret.plaintext };
}
