import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PaymentProviderTable } from '../../db/tables/payment-provider.table.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { ConnectableProvider, PaymentProviderConnection } from './payment-provider-connection.js';

function toConnection(r: Selectable<PaymentProviderTable>): PaymentProviderConnection {
  return {
    id: r.id,
    environment: r.environment as Environment,
    provider: r.provider as ConnectableProvider,
    secretKey: { ciphertext: r.secretKeyCiphertext, keyId: r.secretKeyKeyId },
    secretKeyHint: r.secretKeyHint,
    webhookSecret:
      r.webhookSecretCiphertext === null || r.webhookSecretKeyId === null ? null : { ciphertext: r.webhookSecretCiphertext, keyId: r.webhookSecretKeyId },
    webhookSecretHint: r.webhookSecretHint,
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

export async function findPaymentProvider(db: Db, tenant: Tenant, provider: ConnectableProvider): Promise<PaymentProviderConnection | null> {
  const r = await db
    .selectFrom('paymentProviders')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('provider', '=', provider)
    .executeTakeFirst();
  return r ? toConnection(r) : null;
}

/** The connections of this environment, by provider name (at most one each). */
export async function listPaymentProviders(db: Db, tenant: Tenant): Promise<PaymentProviderConnection[]> {
  const rows = await db
    .selectFrom('paymentProviders')
    .selectAll()
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .orderBy('provider')
    .execute();
  return rows.map(toConnection);
}

function columns(c: PaymentProviderConnection) {
  return {
    secretKeyCiphertext: c.secretKey.ciphertext,
    secretKeyKeyId: c.secretKey.keyId,
    secretKeyHint: c.secretKeyHint,
    webhookSecretCiphertext: c.webhookSecret?.ciphertext ?? null,
    webhookSecretKeyId: c.webhookSecret?.keyId ?? null,
    webhookSecretHint: c.webhookSecretHint,
    updatedAt: c.updatedAt,
  };
}

export async function insertPaymentProvider(db: Db, tenant: Tenant, c: PaymentProviderConnection): Promise<void> {
  await db
    .insertInto('paymentProviders')
    .values({ id: c.id, workspaceId: tenant.workspaceId, environment: tenant.environment, provider: c.provider, createdAt: c.createdAt, ...columns(c) })
    .execute();
}

export async function updatePaymentProvider(db: Db, tenant: Tenant, c: PaymentProviderConnection): Promise<void> {
  await db
    .updateTable('paymentProviders')
    .set(columns(c))
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', '=', c.id)
    .execute();
}

export async function deletePaymentProvider(db: Db, tenant: Tenant, id: string): Promise<void> {
  await db
    .deleteFrom('paymentProviders')
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('id', '=', id)
    .execute();
}

/** Every connection's sealed secrets, across tenants: for `tollgate secrets re-encrypt` only. */
export async function listAllPaymentProviders(db: Db): Promise<Array<PaymentProviderConnection & Tenant>> {
  const rows = await db.selectFrom('paymentProviders').selectAll().orderBy('id').execute();
  return rows.map((r) => ({ ...toConnection(r), workspaceId: r.workspaceId }));
}

/** A connection by its id alone, across tenants: the webhook URL names it, and it decides the tenant. */
export async function findPaymentProviderById(db: Db, id: string): Promise<(PaymentProviderConnection & Tenant) | null> {
  const r = await db.selectFrom('paymentProviders').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? { ...toConnection(r), workspaceId: r.workspaceId } : null;
}

/** Stores a verified provider event once per connection; false when it was stored before (a redelivery). */
export async function insertProviderEvent(
  db: Db,
  tenant: Tenant,
  e: { connectionId: string; providerEventId: string; type: string; payload: string; receivedAt: number },
): Promise<boolean> {
  const r = await db
    .insertInto('paymentProviderEvents')
    .values({ ...e, workspaceId: tenant.workspaceId, environment: tenant.environment, appliedAt: null })
    .onConflict((oc) => oc.columns(['connectionId', 'providerEventId']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}
