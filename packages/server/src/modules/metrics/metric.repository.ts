import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import { DEFAULT_DIMENSION_PATHS, type DimensionPaths, type Metric, type MetricLabel } from './metric.js';
import type { MetricTable } from '../../db/tables/metric.table.js';

/** Stored paths: null for the defaults, so metrics that use them (most) cost nothing to read. */
const pathsOf = (text: string | null): DimensionPaths => (text === null ? DEFAULT_DIMENSION_PATHS : (JSON.parse(text) as DimensionPaths));
const storedPaths = (p: DimensionPaths): string | null =>
  p.executionStatus === DEFAULT_DIMENSION_PATHS.executionStatus && p.tool === DEFAULT_DIMENSION_PATHS.tool && p.endpoint === DEFAULT_DIMENSION_PATHS.endpoint
    ? null
    : JSON.stringify({ executionStatus: p.executionStatus, tool: p.tool, endpoint: p.endpoint });

function toMetric(r: Selectable<MetricTable>): Metric {
  return {
    id: r.id,
    environment: r.environment as Environment,
    name: r.name,
    displayName: r.displayName,
    description: r.description,
    unit: r.unit,
    dimensionPaths: pathsOf(r.dimensionPaths),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export async function insertMetric(db: Db, tenant: Tenant, m: Metric): Promise<void> {
  await db
    .insertInto('metrics')
    .values({ ...m, dimensionPaths: storedPaths(m.dimensionPaths), workspaceId: tenant.workspaceId, environment: tenant.environment })
    .execute();
}

export async function findMetric(db: Db, tenant: Tenant, id: string): Promise<Metric | null> {
  const r = await db.selectFrom('metrics').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toMetric(r) : null;
}

export async function listMetrics(db: Db, tenant: Tenant, page: PageParams & { name?: string }): Promise<Page<Metric>> {
  let q = db.selectFrom('metrics').selectAll().$call(forTenant(tenant));
  if (page.name !== undefined) q = q.where('name', '=', page.name);
  const { items, hasMore } = await pageById(q, 'metrics', page);
  return { items: items.map(toMetric), hasMore };
}

export async function updateMetricRow(db: Db, tenant: Tenant, m: Metric): Promise<void> {
  await db
    .updateTable('metrics')
    .set({ displayName: m.displayName, description: m.description, unit: m.unit, updatedAt: m.updatedAt })
    .$call(forTenant(tenant))
    .where('id', '=', m.id)
    .execute();
}

// Lookups by other modules: plugs (delivery-source.ts, save-webhook-source.ts), subscriptions
// (check-entitlement-config.ts) and catalog (check-rate-plan-units.ts) name metrics by id or name.

/** The metric's name; null when no such metric exists in the tenant. */
export async function findMetricName(db: Db, tenant: Tenant, id: string): Promise<string | null> {
  const m = await db.selectFrom('metrics').select('name').$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return m?.name ?? null;
}

/** One metric by its id or by its exact name. */
export async function findMetricRef(db: Db, tenant: Tenant, column: 'id' | 'name', value: string): Promise<{ id: string; name: string } | null> {
  const m = await db.selectFrom('metrics').select(['id', 'name']).$call(forTenant(tenant)).where(column, '=', value).executeTakeFirst();
  return m ?? null;
}

/** Which of these exact names are metrics of the tenant. */
export async function findExistingMetricNames(db: Db, tenant: Tenant, names: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('metrics')
    .select('name')
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('name', 'in', [...names])
    .execute();
  return rows.map((r) => r.name);
}

/** The tenant's metrics having one of these ids or one of these names; at least one list must be non-empty. */
export async function findMetricsByIdOrName(
  db: Db,
  tenant: Tenant,
  ids: readonly string[],
  names: readonly string[],
): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom('metrics')
    .select(['id', 'name'])
    .$call(forTenant(tenant))
    .where((eb) => eb.or([...(ids.length ? [eb('id', 'in', ids)] : []), ...(names.length ? [eb('name', 'in', names)] : [])]))
    .execute();
}

/** What pricing surfaces call these metrics: display name and unit by metric id (unknown ids are absent). */
export async function findMetricLabels(db: Db, tenant: Tenant, ids: readonly string[]): Promise<Map<string, MetricLabel>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('metrics')
    .select(['id', 'displayName', 'unit'])
    .$call(forTenant(tenant))
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, { displayName: r.displayName, unit: r.unit }]));
}

/**
 * Which of these exact names are metrics of the tenant, each with where rating reads its
 * dimensions: ingestion checks a batch's names with one query, period usage reads the paths of
 * the metrics it splits by dimension.
 */
export async function findMetricNames(db: Db, tenant: Tenant, names: readonly string[]): Promise<Map<string, DimensionPaths>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom('metrics')
    .select(['name', 'dimensionPaths'])
    .$call(forTenant(tenant))
    .where('name', 'in', [...names])
    .execute();
  return new Map(rows.map((r) => [r.name, pathsOf(r.dimensionPaths)]));
}

export async function listMetricNames(db: Db, tenant: Tenant): Promise<string[]> {
  return (await db.selectFrom('metrics').select('name').$call(forTenant(tenant)).execute()).map((r) => r.name);
}
