import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Tenant } from '../../lib/tenant.js';
import type { TestClockTable } from '../../db/tables/test-clock.table.js';
import type { Selectable } from 'kysely';
import type { TestClock } from './test-clock.js';

const toClock = (r: Selectable<TestClockTable>): TestClock => ({
  id: r.id,
  name: r.name,
  frozenTime: Number(r.frozenTime),
  status: r.status as TestClock['status'],
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export async function insertTestClock(db: Db, tenant: Tenant, c: TestClock): Promise<void> {
  await db
    .insertInto('testClocks')
    .values({ ...c, workspaceId: tenant.workspaceId, environment: tenant.environment, advanceStartedAt: null })
    .execute();
}

export async function findTestClock(db: Db, tenant: Tenant, id: string): Promise<TestClock | null> {
  const r = await db.selectFrom('testClocks').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toClock(r) : null;
}

export async function listTestClocks(db: Db, tenant: Tenant, page: PageParams): Promise<Page<TestClock>> {
  const { items, hasMore } = await pageById(db.selectFrom('testClocks').selectAll().$call(forTenant(tenant)), 'test_clocks', page);
  return { items: items.map(toClock), hasMore };
}

/** Moves the clock forward (never back: a stale advance loses to a later one) and marks it advancing. */
export async function moveTestClock(db: Db, tenant: Tenant, id: string, to: number, now: number): Promise<void> {
  await db
    .updateTable('testClocks')
    .set({ frozenTime: to, status: 'advancing', advanceStartedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('frozenTime', '<=', to)
    .execute();
}

export async function markTestClockReady(db: Db, tenant: Tenant, id: string, now: number): Promise<void> {
  await db.updateTable('testClocks').set({ status: 'ready', advanceStartedAt: null, updatedAt: now }).$call(forTenant(tenant)).where('id', '=', id).execute();
}

export async function deleteTestClock(db: Db, tenant: Tenant, id: string): Promise<boolean> {
  const r = await db.deleteFrom('testClocks').$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** The frozen times of some clocks, by id. */
export async function findTestClockTimes(db: Db, tenant: Tenant, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('testClocks')
    .select(['id', 'frozenTime'])
    .$call(forTenant(tenant))
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, Number(r.frozenTime)]));
}
