import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CreditSettingsTable } from '../../db/tables/credit.table.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';
import { DEFAULT_STATE, type CreditActions, type CreditSettings } from './credit-settings.js';

/**
 * Credit settings' storage (migration 0036). Every state change is a conditional update that
 * takes effect only from the state it was decided on: of two nodes (or a retry) deciding the same
 * alert or top-up, one changes the row and fires; the other changes nothing and fires nothing.
 */

function toSettings(r: Selectable<CreditSettingsTable>): CreditSettings {
  return {
    customerId: r.customerId,
    currency: r.currency,
    lowBalanceThreshold: r.lowBalanceThreshold,
    autoTopUp:
      r.topUpThreshold === null ? null : { threshold: r.topUpThreshold, amount: r.topUpAmount!, cost: r.topUpCost!, maxPerPeriod: Number(r.topUpMaxPerPeriod) },
    lowArmed: Number(r.lowArmed) === 1,
    exhaustedArmed: Number(r.exhaustedArmed) === 1,
    topUpArmed: Number(r.topUpArmed) === 1,
    topUpGeneration: Number(r.topUpGeneration),
    topUpPeriodKey: r.topUpPeriodKey,
    topUpsInPeriod: Number(r.topUpsInPeriod),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

export async function findCreditSettings(db: Db, tenant: Tenant, customerId: string, currency: string): Promise<CreditSettings | null> {
  const r = await db
    .selectFrom('creditSettings')
    .selectAll()
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return r ? toSettings(r) : null;
}

/** A customer's settings in every currency it has them in, by currency. */
export async function listCreditSettings(db: Db, tenant: Tenant, customerId: string): Promise<CreditSettings[]> {
  const rows = await db.selectFrom('creditSettings').selectAll().$call(forTenant(tenant)).where('customerId', '=', customerId).orderBy('currency').execute();
  return rows.map(toSettings);
}

/**
 * Sets the thresholds (created with every alert armed when missing). A changed low-balance
 * threshold is armed again; the top-up's state stays, so a top-up waiting for its payment is not
 * bought twice.
 */
export async function putCreditSettings(
  db: Db,
  tenant: Tenant,
  customerId: string,
  currency: string,
  s: Pick<CreditSettings, 'lowBalanceThreshold' | 'autoTopUp'>,
  now: number,
): Promise<CreditSettings> {
  const fields = {
    lowBalanceThreshold: s.lowBalanceThreshold,
    topUpThreshold: s.autoTopUp?.threshold ?? null,
    topUpAmount: s.autoTopUp?.amount ?? null,
    topUpCost: s.autoTopUp?.cost ?? null,
    topUpMaxPerPeriod: s.autoTopUp?.maxPerPeriod ?? null,
  };
  await ensureCreditSettings(db, tenant, customerId, currency, now);
  await db
    .updateTable('creditSettings')
    .set({ ...fields, lowArmed: 1, updatedAt: now })
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('currency', '=', currency)
    .execute();
  return (await findCreditSettings(db, tenant, customerId, currency))!;
}

/** The row, created with nothing set and every alert armed when missing. */
export async function ensureCreditSettings(db: Db, tenant: Tenant, customerId: string, currency: string, now: number): Promise<void> {
  await db
    .insertInto('creditSettings')
    .values({
      workspaceId: tenant.workspaceId,
      environment: tenant.environment,
      customerId,
      currency,
      lowBalanceThreshold: null,
      topUpThreshold: null,
      topUpAmount: null,
      topUpCost: null,
      topUpMaxPerPeriod: null,
      lowArmed: DEFAULT_STATE.lowArmed ? 1 : 0,
      exhaustedArmed: DEFAULT_STATE.exhaustedArmed ? 1 : 0,
      topUpArmed: DEFAULT_STATE.topUpArmed ? 1 : 0,
      topUpGeneration: DEFAULT_STATE.topUpGeneration,
      topUpPeriodKey: null,
      topUpsInPeriod: 0,
      createdAt: now,
      updatedAt: now,
    })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'customerId', 'currency']).doNothing())
    .execute();
}

/** One flag from `from` to `to`; whether this call changed it. */
async function flip(
  db: Db,
  tenant: Tenant,
  customerId: string,
  currency: string,
  flag: 'lowArmed' | 'exhaustedArmed' | 'topUpArmed',
  to: boolean,
  now: number,
) {
  const r = await db
    .updateTable('creditSettings')
    .set({ [flag]: to ? 1 : 0, updatedAt: now })
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('currency', '=', currency)
    .where(flag, '=', to ? 0 : 1)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Applies what was decided from `read` (creditActions), in the caller's transaction; returns what
 * took effect. A top-up takes effect only from the generation it was decided on, and counts in
 * `periodKey` (restarting the count in a new period).
 */
export async function applyCreditActions(
  db: Db,
  tenant: Tenant,
  read: Pick<CreditSettings, 'customerId' | 'currency' | 'topUpGeneration'>,
  actions: CreditActions,
  periodKey: string,
  now: number,
): Promise<CreditActions> {
  const { customerId, currency } = read;
  const took: CreditActions = {
    alertLow: actions.alertLow && (await flip(db, tenant, customerId, currency, 'lowArmed', false, now)),
    rearmLow: actions.rearmLow && (await flip(db, tenant, customerId, currency, 'lowArmed', true, now)),
    alertExhausted: actions.alertExhausted && (await flip(db, tenant, customerId, currency, 'exhaustedArmed', false, now)),
    rearmExhausted: actions.rearmExhausted && (await flip(db, tenant, customerId, currency, 'exhaustedArmed', true, now)),
    topUp: false,
  };
  if (actions.topUp) {
    const r = await db
      .updateTable('creditSettings')
      .set({
        topUpArmed: 0,
        topUpGeneration: read.topUpGeneration + 1,
        topUpsInPeriod: sql<number>`case when top_up_period_key = ${periodKey} then top_ups_in_period + 1 else 1 end`,
        topUpPeriodKey: periodKey,
        updatedAt: now,
      })
      .$call(forTenant(tenant))
      .where('customerId', '=', customerId)
      .where('currency', '=', currency)
      .where('topUpArmed', '=', 1)
      .where('topUpGeneration', '=', read.topUpGeneration)
      .executeTakeFirst();
    took.topUp = Number(r.numUpdatedRows) === 1;
  }
  return took;
}

/** The credits an automatic top-up bought were paid (or their invoice voided): the next crossing may buy again. */
export async function rearmTopUp(db: Db, tenant: Tenant, customerId: string, currency: string, now: number): Promise<void> {
  await flip(db, tenant, customerId, currency, 'topUpArmed', true, now);
}
