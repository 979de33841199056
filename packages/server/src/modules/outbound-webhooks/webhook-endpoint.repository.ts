import type { Selectable } from 'kysely';
import type { Db, DialectName } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { WebhookEndpointTable } from '../../db/tables/outbound-webhook.table.js';
import type { Environment } from '../../lib/crypto.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { DisabledReason } from './endpoint-health.js';
import { paddedRows, runStatement, statementText } from '../../db/statement-text.js';
import type { SealedSecret, WebhookEndpoint } from './webhook-endpoint.js';

function toEndpoint(r: Selectable<WebhookEndpointTable>): WebhookEndpoint {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    environment: r.environment as Environment,
    url: r.url,
    description: r.description,
    metadata: parseMetadata(r.metadata),
    eventTypes: JSON.parse(r.eventTypes) as string[],
    status: r.status as WebhookEndpoint['status'],
    disabledReason: r.disabledReason as DisabledReason | null,
    disabledAt: r.disabledAt === null ? null : Number(r.disabledAt),
    failingSince: r.failingSince === null ? null : Number(r.failingSince),
    maxConcurrency: Number(r.maxConcurrency),
    secret: { ciphertext: r.secretCiphertext, keyId: r.secretKeyId, hint: r.secretHint },
    previousSecret:
      r.previousSecretCiphertext === null || r.previousSecretKeyId === null || r.previousSecretExpiresAt === null
        ? null
        : { ciphertext: r.previousSecretCiphertext, keyId: r.previousSecretKeyId, expiresAt: Number(r.previousSecretExpiresAt) },
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

function toRow(e: WebhookEndpoint): Omit<Selectable<WebhookEndpointTable>, 'deletedAt'> {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    environment: e.environment,
    url: e.url,
    description: e.description,
    metadata: JSON.stringify(e.metadata),
    eventTypes: JSON.stringify(e.eventTypes),
    status: e.status,
    disabledReason: e.disabledReason,
    disabledAt: e.disabledAt,
    failingSince: e.failingSince,
    maxConcurrency: e.maxConcurrency,
    secretCiphertext: e.secret.ciphertext,
    secretKeyId: e.secret.keyId,
    secretHint: e.secret.hint,
    previousSecretCiphertext: e.previousSecret?.ciphertext ?? null,
    previousSecretKeyId: e.previousSecret?.keyId ?? null,
    previousSecretExpiresAt: e.previousSecret?.expiresAt ?? null,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export async function insertWebhookEndpoint(db: Db, e: WebhookEndpoint): Promise<void> {
  await db
    .insertInto('webhookEndpoints')
    .values({ ...toRow(e), deletedAt: null })
    .execute();
}

export async function findWebhookEndpoint(db: Db, tenant: Tenant, id: string): Promise<WebhookEndpoint | null> {
  const r = await db.selectFrom('webhookEndpoints').selectAll().$call(forTenant(tenant)).where('id', '=', id).where('deletedAt', 'is', null).executeTakeFirst();
  return r ? toEndpoint(r) : null;
}

/** Several endpoints, each of its own tenant, in one statement (the sender's lanes): by id, those not deleted. */
/**
 * The endpoints of the sender's lanes, read every pass: its text is made once per padded count
 * (the last key repeated: the same OR), not built each time (sender-statements.ts).
 */
export async function findWebhookEndpointsOf(
  db: Db,
  dialect: DialectName,
  keys: ReadonlyArray<Tenant & { endpointId: string }>,
): Promise<Map<string, WebhookEndpoint>> {
  if (keys.length === 0) return new Map();
  const groups = paddedRows(dialect, keys.length);
  const text = statementText(
    `endpoints-of ${groups}`,
    () =>
      `select * from webhook_endpoints where (${Array.from({ length: groups }, () => '(workspace_id = ? and environment = ? and id = ?)').join(' or ')}) and deleted_at is null`,
  );
  const params: unknown[] = [];
  for (let i = 0; i < groups; i++) {
    const k = keys[Math.min(i, keys.length - 1)]!;
    params.push(k.workspaceId, k.environment, k.endpointId);
  }
  const rows = await runStatement<Selectable<WebhookEndpointTable>>(db, text, params);
  return new Map(rows.map((r) => [r.id, toEndpoint(r)]));
}

export async function listWebhookEndpoints(
  db: Db,
  tenant: Tenant,
  filter: { status?: WebhookEndpoint['status'] },
  page: PageParams,
): Promise<Page<WebhookEndpoint>> {
  let q = db.selectFrom('webhookEndpoints').selectAll().$call(forTenant(tenant)).where('deletedAt', 'is', null);
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  const { items, hasMore } = await pageById(q, 'webhookEndpoints', page);
  return { items: items.map(toEndpoint), hasMore };
}

export async function countWebhookEndpoints(db: Db, tenant: Tenant): Promise<number> {
  const r = await db
    .selectFrom('webhookEndpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .$call(forTenant(tenant))
    .where('deletedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function updateWebhookEndpointRow(db: Db, e: WebhookEndpoint): Promise<void> {
  const { id, workspaceId: _w, environment: _e, createdAt: _c, ...changes } = toRow(e);
  await db.updateTable('webhookEndpoints').set(changes).$call(forTenant(e)).where('id', '=', id).where('deletedAt', 'is', null).execute();
}

export async function markWebhookEndpointDeleted(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('webhookEndpoints')
    .set({ deletedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** What the outbox write needs of a tenant's endpoints: which exist, whether enabled, what they subscribe to. */
export interface EndpointSubscription {
  id: string;
  enabled: boolean;
  eventTypes: string[];
}

export async function listEndpointSubscriptions(db: Db, tenant: Tenant): Promise<EndpointSubscription[]> {
  const rows = await db
    .selectFrom('webhookEndpoints')
    .select(['id', 'status', 'eventTypes'])
    .$call(forTenant(tenant))
    .where('deletedAt', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, enabled: r.status === 'enabled', eventTypes: JSON.parse(r.eventTypes) as string[] }));
}

export interface SealedEndpointSecrets {
  id: string;
  workspaceId: string;
  environment: Environment;
  secret: SealedSecret;
  previousSecret: SealedSecret | null;
}

/** Every endpoint's sealed secrets, across tenants (deleted ones too: their rows keep ciphertext): for `tollgate secrets re-encrypt` only. */
export async function listSealedEndpointSecrets(db: Db): Promise<SealedEndpointSecrets[]> {
  const rows = await db
    .selectFrom('webhookEndpoints')
    .select(['id', 'workspaceId', 'environment', 'secretCiphertext', 'secretKeyId', 'previousSecretCiphertext', 'previousSecretKeyId'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspaceId,
    environment: r.environment as Environment,
    secret: { ciphertext: r.secretCiphertext, keyId: r.secretKeyId },
    previousSecret:
      r.previousSecretCiphertext === null || r.previousSecretKeyId === null ? null : { ciphertext: r.previousSecretCiphertext, keyId: r.previousSecretKeyId },
  }));
}

export async function replaceSealedEndpointSecrets(
  db: Db,
  tenant: Tenant,
  id: string,
  secret: SealedSecret,
  previousSecret: SealedSecret | null,
): Promise<void> {
  await db
    .updateTable('webhookEndpoints')
    .set({
      secretCiphertext: secret.ciphertext,
      secretKeyId: secret.keyId,
      ...(previousSecret ? { previousSecretCiphertext: previousSecret.ciphertext, previousSecretKeyId: previousSecret.keyId } : {}),
    })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .execute();
}
