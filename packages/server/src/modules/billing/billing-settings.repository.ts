import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';
import { DEFAULT_BILLING_SETTINGS, type BillingSettings, type CollectionMethod, type PastDueFinalAction } from './billing-settings.js';

export async function findBillingSettings(db: Db, tenant: Tenant): Promise<BillingSettings | null> {
  const r = await db
    .selectFrom('billingSettings')
    .select([
      'invoiceGraceMs',
      'invoicePrefix',
      'creditNotePrefix',
      'supportUrl',
      'collectionMethod',
      'daysUntilDue',
      'paymentRetryDays',
      'pastDueGraceDays',
      'pastDueFinalAction',
      'updatedAt',
    ])
    .$call(forTenant(tenant))
    .executeTakeFirst();
  return r
    ? {
        invoiceGraceMs: Number(r.invoiceGraceMs),
        invoicePrefix: r.invoicePrefix,
        creditNotePrefix: r.creditNotePrefix,
        supportUrl: r.supportUrl,
        collectionMethod: r.collectionMethod as CollectionMethod,
        daysUntilDue: Number(r.daysUntilDue),
        paymentRetryDays: JSON.parse(r.paymentRetryDays) as number[],
        pastDueGraceDays: Number(r.pastDueGraceDays),
        pastDueFinalAction: r.pastDueFinalAction as PastDueFinalAction,
        updatedAt: Number(r.updatedAt),
      }
    : null;
}

/** The tenant's settings, or the defaults when it never changed them. */
export async function billingSettingsOf(db: Db, tenant: Tenant): Promise<BillingSettings> {
  return (await findBillingSettings(db, tenant)) ?? DEFAULT_BILLING_SETTINGS;
}

export async function saveBillingSettings(db: Db, tenant: Tenant, s: BillingSettings): Promise<void> {
  await db
    .insertInto('billingSettings')
    .values({ ...s, paymentRetryDays: JSON.stringify(s.paymentRetryDays), workspaceId: tenant.workspaceId, environment: tenant.environment })
    .onConflict((oc) =>
      oc.columns(['workspaceId', 'environment']).doUpdateSet({
        invoiceGraceMs: s.invoiceGraceMs,
        invoicePrefix: s.invoicePrefix,
        creditNotePrefix: s.creditNotePrefix,
        supportUrl: s.supportUrl,
        collectionMethod: s.collectionMethod,
        daysUntilDue: s.daysUntilDue,
        paymentRetryDays: JSON.stringify(s.paymentRetryDays),
        pastDueGraceDays: s.pastDueGraceDays,
        pastDueFinalAction: s.pastDueFinalAction,
        updatedAt: s.updatedAt,
      }),
    )
    .execute();
}

/**
 * Takes the next `count` numbers of a tenant's sequence (invoice or credit_note) in the caller's
 * transaction and returns the first: the row stays locked until the commit, so numbers are
 * gapless and never repeat, and a rolled-back finalization gives its numbers back.
 */
export async function takeDocumentNumbers(db: Db, tenant: Tenant, kind: 'invoice' | 'credit_note', count: number): Promise<number> {
  const r = await db
    .insertInto('documentSequences')
    .values({ workspaceId: tenant.workspaceId, environment: tenant.environment, kind, nextValue: count + 1 })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'kind']).doUpdateSet((eb) => ({ nextValue: eb('documentSequences.nextValue', '+', count) })))
    .returning('nextValue')
    .executeTakeFirstOrThrow();
  return Number(r.nextValue) - count;
}

/** Takes the next number of a tenant's sequence (see takeDocumentNumbers). */
export function takeDocumentNumber(db: Db, tenant: Tenant, kind: 'invoice' | 'credit_note'): Promise<number> {
  return takeDocumentNumbers(db, tenant, kind, 1);
}
