import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { runStatement, statementText, valuesList } from '../../db/statement-text.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Provider } from './provider-templates.js';
import type { WebhookSource } from './webhook-source.js';
import type { WebhookSourceTable } from '../../db/tables/webhook-source.table.js';

function toSource(r: Selectable<WebhookSourceTable>): WebhookSource {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    environment: r.environment as Environment,
    provider: r.provider as Provider,
    displayName: r.displayName,
    metricId: r.metricId,
    signatureOptions: JSON.parse(r.signature) as WebhookSource['signatureOptions'],
    eventTypeFrom: r.eventTypeFrom === null ? '$.type' : (JSON.parse(r.eventTypeFrom) as WebhookSource['eventTypeFrom']),
    eventFilter: JSON.parse(r.eventFilter) as WebhookSource['eventFilter'],
    fieldMappings: JSON.parse(r.fieldMappings) as WebhookSource['fieldMappings'],
    dedupWindowHours: Number(r.dedupWindowHours),
    secret: r.secretCiphertext === null || r.secretKeyId === null ? null : { ciphertext: r.secretCiphertext, keyId: r.secretKeyId, hint: r.secretHint ?? '' },
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

function toRow(s: WebhookSource): Omit<Selectable<WebhookSourceTable>, 'deletedAt'> {
  return {
    id: s.id,
    workspaceId: s.workspaceId,
    environment: s.environment,
    provider: s.provider,
    displayName: s.displayName,
    metricId: s.metricId,
    signature: JSON.stringify(s.signatureOptions),
    eventTypeFrom: JSON.stringify(s.eventTypeFrom),
    eventFilter: JSON.stringify(s.eventFilter),
    fieldMappings: JSON.stringify(s.fieldMappings),
    dedupWindowHours: s.dedupWindowHours,
    secretCiphertext: s.secret?.ciphertext ?? null,
    secretKeyId: s.secret?.keyId ?? null,
    secretHint: s.secret?.hint ?? null,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export async function insertWebhookSource(db: Db, s: WebhookSource): Promise<void> {
  await db
    .insertInto('webhookSources')
    .values({ ...toRow(s), deletedAt: null })
    .execute();
}

export async function findWebhookSource(db: Db, tenant: Tenant, id: string): Promise<WebhookSource | null> {
  const r = await db.selectFrom('webhookSources').selectAll().$call(forTenant(tenant)).where('id', '=', id).where('deletedAt', 'is', null).executeTakeFirst();
  return r ? toSource(r) : null;
}

/**
 * The webhook URL carries only the source id, and it alone decides the workspace and the
 * environment (as the spec asks: no workspace id or key is in the URL). This is the one read
 * without a tenant filter; everything after it uses the source's tenant.
 */
export async function findWebhookSourceForDelivery(db: Db, id: string): Promise<WebhookSource | null> {
  const r = await db.selectFrom('webhookSources').selectAll().where('id', '=', id).where('deletedAt', 'is', null).executeTakeFirst();
  return r ? toSource(r) : null;
}

export async function listWebhookSources(db: Db, tenant: Tenant, page: PageParams): Promise<Page<WebhookSource>> {
  const q = db.selectFrom('webhookSources').selectAll().$call(forTenant(tenant)).where('deletedAt', 'is', null);
  const { items, hasMore } = await pageById(q, 'webhookSources', page);
  return { items: items.map(toSource), hasMore };
}

export async function updateWebhookSourceRow(db: Db, s: WebhookSource): Promise<void> {
  const { id, workspaceId: _w, environment: _e, createdAt: _c, provider: _p, ...changes } = toRow(s);
  await db.updateTable('webhookSources').set(changes).$call(forTenant(s)).where('id', '=', id).execute();
}

export async function markWebhookSourceDeleted(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('webhookSources')
    .set({ deletedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Every sealed secret, across tenants: for `tollgate secrets re-encrypt` only. */
export async function listSealedSecrets(
  db: Db,
): Promise<Array<{ id: string; workspaceId: string; environment: string; secretCiphertext: string; secretKeyId: string }>> {
  const rows = await db
    .selectFrom('webhookSources')
    .select(['id', 'workspaceId', 'environment', 'secretCiphertext', 'secretKeyId'])
    .where('secretCiphertext', 'is not', null)
    .execute();
  return rows as Array<{ id: string; workspaceId: string; environment: string; secretCiphertext: string; secretKeyId: string }>;
}

export async function replaceSealedSecret(db: Db, tenant: Tenant, id: string, sealed: { ciphertext: string; keyId: string }): Promise<void> {
  await db
    .updateTable('webhookSources')
    .set({ secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .execute();
}

export interface ProviderEventClaim {
  workspaceId: string;
  environment: string;
  sourceId: string;
  providerEventId: string;
  expiresAt: number;
}

export const claimKey = (workspaceId: string, environment: string, sourceId: string, providerEventId: string) =>
  `${workspaceId}\u0000${environment}\u0000${sourceId}\u0000${providerEventId}`;

/**
 * Claims provider event ids (of any sources and tenants: a group of webhook requests) in as few
 * statements as the parameter limits allow. Returns the claimKeys claimed now; the others were
 * seen within their window (duplicates). A row past its expiry is taken over, so the window holds
 * even before the expiry job has run. Each row carries its tenant, which is part of the key.
 */
export async function claimProviderEventIds(db: Db, claims: readonly ProviderEventClaim[], now: number): Promise<Set<string>> {
  const claimed = new Set<string>();
  if (claims.length === 0) return claimed;
  const unique = new Map(claims.map((c) => [claimKey(c.workspaceId, c.environment, c.sourceId, c.providerEventId), c]));
  // One lock order for every writer.
  const sorted = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
  for (let i = 0; i < sorted.length; i += CLAIMS_PER_STATEMENT) {
    const chunk = sorted.slice(i, i + CLAIMS_PER_STATEMENT);
    const values: unknown[] = [];
    for (const c of chunk) values.push(c.workspaceId, c.environment, c.sourceId, c.providerEventId, c.expiresAt);
    values.push(now);
    const rows = await runStatement<{ workspaceId: string; environment: string; sourceId: string; providerEventId: string }>(
      db,
      claimText(chunk.length),
      values,
    );
    for (const r of rows) claimed.add(claimKey(r.workspaceId, r.environment, r.sourceId, r.providerEventId));
  }
  return claimed;
}

const CLAIMS_PER_STATEMENT = 500;

/**
 * The claim of `rows` ids: statement text made once per row count (db/statement-text.ts), as
 * Kysely would compile it, without building it for every group the webhook writer commits.
 */
const claimText = (rows: number) =>
  statementText(
    `webhook-event-ids.claim ${rows}`,
    () =>
      `insert into webhook_event_ids (workspace_id, environment, source_id, provider_event_id, expires_at) values ${valuesList('(?, ?, ?, ?, ?)', rows)} ` +
      'on conflict (workspace_id, environment, source_id, provider_event_id) do update set expires_at = excluded.expires_at where webhook_event_ids.expires_at <= ? ' +
      'returning workspace_id, environment, source_id, provider_event_id',
  );

export async function deleteExpiredProviderEventIds(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('webhookEventIds').where('expiresAt', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
