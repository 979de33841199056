import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { cacheSpec } from '../../lib/caches.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent, type WebhookEventInput } from '../outbound-webhooks/emit-webhook-events.js';
import type { CreditInvoicing } from './credit-invoicing.js';
import { anyAction, creditActions, DEFAULT_STATE, type CreditSettings } from './credit-settings.js';
import { applyCreditActions, ensureCreditSettings, findCreditSettings } from './credit-settings.repository.js';
import { AUTO_TOP_UP, purchaseCredits } from './grant-credits.js';
import { CREDITS_CACHE_TTL_MS, CREDITS_CHANGED, creditsChanged } from './live-credits.js';

/**
 * What a live balance sets off (credit-settings.ts): the low-balance and exhausted alerts and the
 * automatic top-up. Called by the entitlement check with the balance it computed; nothing is
 * written unless a threshold was crossed (the settings are cached per node, like the grants).
 * Decided again in the transaction from the row as it is, and applied by conditional updates, so
 * one crossing fires once however many checks on however many nodes see it.
 */

export const creditSettingsCache = cacheSpec<CreditSettings | null>({
  name: 'credit settings',
  ttlMs: () => CREDITS_CACHE_TTL_MS,
  maxEntries: 100_000,
  channels: [CREDITS_CHANGED],
});

async function cachedSettings(deps: Deps, tenant: Tenant, customerId: string, currency: string): Promise<CreditSettings | null> {
  const key = `${tenant.workspaceId}\u0000${tenant.environment}\u0000${customerId}\u0000${currency}`;
  const cache = deps.caches.of(creditSettingsCache);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const generation = cache.generation;
  const found = await findCreditSettings(deps.db, tenant, customerId, currency);
  cache.set(key, found, generation);
  return found;
}

/** A live balance as the check saw it. */
export interface SeenBalance {
  customerId: string;
  testClockId: string | null;
  subscriptionId: string;
  currency: string;
  /** May be negative: by what no credit can pay. */
  balance: string;
  /** The billing period (its start) that automatic top-ups are counted in. */
  periodKey: string;
  /** The customer's time. */
  at: number;
}

const NONE = { lowBalanceThreshold: null, autoTopUp: null, ...DEFAULT_STATE };

/** `originOf`: who acts when something fires (made only then: the check's path stays as it was). */
export async function evaluateCreditSettings(
  deps: Deps,
  tenant: Tenant,
  originOf: () => OperationContext,
  seen: SeenBalance,
  invoicing: CreditInvoicing,
): Promise<void> {
  const { customerId, currency } = seen;
  const cached = await cachedSettings(deps, tenant, customerId, currency);
  if (!anyAction(creditActions(cached ?? NONE, seen.balance, seen.periodKey))) return;
  const origin = originOf();
  await inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    const now = deps.clock.now();
    await ensureCreditSettings(trx, origin, customerId, currency, now);
    const fresh = (await findCreditSettings(trx, origin, customerId, currency))!;
    const took = await applyCreditActions(trx, origin, fresh, creditActions(fresh, seen.balance, seen.periodKey), seen.periodKey, now);
    const alert = (threshold: string | null) => ({
      object: 'credit_balance_alert',
      customerId,
      currency,
      balance: seen.balance,
      threshold,
      subscriptionId: seen.subscriptionId,
    });
    const send = async (
      eventType: 'credit_balance.low' | 'credit_balance.exhausted',
      type: 'credits.balance_low' | 'credits.exhausted',
      object: ReturnType<typeof alert>,
    ) => {
      await recordAudit(trx, deps, origin, { eventType, targetType: 'customer', targetId: customerId, payload: { ...object } });
      const message: WebhookEventInput = { type, orderingKey: customerId, data: { object: { ...object } } };
      await emitWebhookEvent(trx, deps, origin, message);
    };
    if (took.alertLow) await send('credit_balance.low', 'credits.balance_low', alert(fresh.lowBalanceThreshold));
    if (took.alertExhausted) await send('credit_balance.exhausted', 'credits.exhausted', alert(null));
    if (took.topUp) {
      const t = fresh.autoTopUp!;
      await purchaseCredits(
        txDeps,
        origin,
        seen.testClockId,
        {
          customerId,
          currency,
          amount: t.amount,
          priority: 50,
          effectiveAt: seen.at,
          expiresAt: null,
          source: 'purchased',
          status: 'pending',
          subscriptionId: null,
          metricNames: null,
          costAmount: t.cost,
          invoiceId: null,
          metadata: { [AUTO_TOP_UP.key]: AUTO_TOP_UP.value },
        },
        invoicing,
        seen.at,
      );
    }
    if (anyAction(took)) await creditsChanged(deps, trx);
  });
}
