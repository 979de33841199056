import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import { sql, type Selectable } from 'kysely';
import type { Db, DialectName } from '../../db/database.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { CreditGrantTable, CreditLedgerEntryTable } from '../../db/tables/credit.table.js';
import { forTenant } from '../../db/tenant-scope.js';
import { AppError } from '../../lib/errors.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Tenant } from '../../lib/tenant.js';
import { entryTypeOf, type CreditGrant, type GrantSource, type LedgerEntry, type LedgerEntryType, type NewGrant } from './credit-grant.js';

/**
 * The credit ledger's storage (migration 0034). Every change to a customer's credits is an
 * appended entry with the balance after it, written with the change to the grant's `remaining`
 * and to the balance row, in the caller's transaction. An append holds the (customer, currency)
 * balance row: created first if missing, then read FOR UPDATE on PostgreSQL (SQLite has one
 * writer), so that two appends never compute their balances from the same one.
 */

export interface LedgerDeps {
  dialect: DialectName;
  ids: IdGenerator;
}

export interface NewLedgerEntry {
  grantId: string;
  type: LedgerEntryType;
  /** Signed decimal text in the currency's minor unit. */
  amount: string;
  subscriptionId?: string | null;
  invoiceId?: string | null;
  occurredAt: number;
}

function toGrant(r: Selectable<CreditGrantTable>): CreditGrant {
  return {
    id: r.id,
    customerId: r.customerId,
    currency: r.currency,
    amount: r.amount,
    remaining: r.remaining,
    priority: Number(r.priority),
    effectiveAt: Number(r.effectiveAt),
    expiresAt: r.expiresAt === null ? null : Number(r.expiresAt),
    source: r.source as GrantSource,
    status: r.status as CreditGrant['status'],
    subscriptionId: r.subscriptionId,
    metricNames: r.metricNames === null ? null : (JSON.parse(r.metricNames) as string[]),
    costAmount: r.costAmount,
    invoiceId: r.invoiceId,
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    voidedAt: r.voidedAt === null ? null : Number(r.voidedAt),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

function toEntry(r: Selectable<CreditLedgerEntryTable>): LedgerEntry {
  return {
    id: r.id,
    customerId: r.customerId,
    currency: r.currency,
    grantId: r.grantId,
    type: r.type as LedgerEntryType,
    amount: r.amount,
    balanceAfter: r.balanceAfter,
    subscriptionId: r.subscriptionId,
    invoiceId: r.invoiceId,
    occurredAt: Number(r.occurredAt),
    createdAt: Number(r.createdAt),
  };
}

/** The customer's credit balance in the currency: the balance after its last entry. */
export async function creditBalance(db: Db, tenant: Tenant, customerId: string, currency: string): Promise<string> {
  const row = await db
    .selectFrom('creditBalances')
    .select('balance')
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row ? row.balance : roundToMinorUnit('0', currency);
}

/**
 * Appends `entries` (in order) to the customer's ledger in `currency`, inside the caller's
 * transaction: each gets the balance after it, and each changes its grant's `remaining` by its
 * amount, except the entry that grants it (grant, top_up, rollover: `remaining` starts at the
 * amount). A grant or a balance that would go below zero is a bug in the caller: it throws.
 */
export async function appendLedgerEntries(
  trx: Db,
  deps: LedgerDeps,
  tenant: Tenant,
  customerId: string,
  currency: string,
  entries: readonly NewLedgerEntry[],
  now: number,
): Promise<LedgerEntry[]> {
  if (entries.length === 0) return [];
  const key = { workspaceId: tenant.workspaceId, environment: tenant.environment, customerId, currency };
  await trx
    .insertInto('creditBalances')
    .values({ ...key, balance: roundToMinorUnit('0', currency), updatedAt: now })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'customerId', 'currency']).doNothing())
    .execute();
  let held = trx.selectFrom('creditBalances').select('balance').$call(forTenant(tenant)).where('customerId', '=', customerId).where('currency', '=', currency);
  if (deps.dialect === 'postgres') held = held.forUpdate();
  let balance = new Decimal((await held.executeTakeFirstOrThrow()).balance);

  const changed = [...new Set(entries.filter((e) => !isGranting(e.type)).map((e) => e.grantId))].sort();
  const remaining = new Map<string, Decimal>();
  if (changed.length > 0) {
    let q = trx
      .selectFrom('creditGrants')
      .select(['id', 'remaining', 'currency'])
      .$call(forTenant(tenant))
      .where('customerId', '=', customerId)
      .where('id', 'in', changed)
      .orderBy('id');
    if (deps.dialect === 'postgres') q = q.forUpdate();
    for (const g of await q.execute()) {
      if (g.currency !== currency) throw new Error(`grant ${g.id} is in ${g.currency}, not ${currency}`);
      remaining.set(g.id, new Decimal(g.remaining));
    }
    for (const id of changed) if (!remaining.has(id)) throw new Error(`grant ${id} is not customer ${customerId}'s`);
  }

  const rows = entries.map((e) => {
    balance = balance.plus(e.amount);
    if (balance.lt(0)) throw new Error(`customer ${customerId}'s ${currency} credit balance would go below zero`);
    if (!isGranting(e.type)) {
      const left = remaining.get(e.grantId)!.plus(e.amount);
      if (left.lt(0)) throw new Error(`grant ${e.grantId} would go below zero`);
      remaining.set(e.grantId, left);
    }
    return {
      id: deps.ids.next('creditLedgerEntry'),
      ...key,
      grantId: e.grantId,
      type: e.type,
      amount: roundToMinorUnit(e.amount, currency),
      balanceAfter: roundToMinorUnit(balance, currency),
      subscriptionId: e.subscriptionId ?? null,
      invoiceId: e.invoiceId ?? null,
      occurredAt: e.occurredAt,
      createdAt: now,
    };
  });
  await trx.insertInto('creditLedgerEntries').values(rows).execute();
  // Every grant's new remaining in one statement: a draw of a period touches dozens of grants.
  if (remaining.size > 0) {
    const cases = sql.join(
      [...remaining].map(([id, left]) => sql`when ${id} then ${roundToMinorUnit(left, currency)}`),
      sql` `,
    );
    await trx
      .updateTable('creditGrants')
      .set({ remaining: sql<string>`case id ${cases} end`, updatedAt: now })
      .$call(forTenant(tenant))
      .where('id', 'in', [...remaining.keys()])
      .execute();
  }
  await trx
    .updateTable('creditBalances')
    .set({ balance: roundToMinorUnit(balance, currency), updatedAt: now })
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('currency', '=', currency)
    .execute();
  return rows.map((r) => ({ ...r, customerId, currency }));
}

const isGranting = (type: LedgerEntryType) => type === 'grant' || type === 'top_up' || type === 'rollover';

/**
 * Stores a grant checked by checkNewGrant. An active one is entered in the ledger at once (its
 * granting entry, at its creation); a pending one (a purchase not yet paid) only when it is paid.
 */
export async function insertGrant(
  trx: Db,
  deps: LedgerDeps,
  tenant: Tenant,
  grant: NewGrant,
  now: number,
): Promise<{ grant: CreditGrant; entry: LedgerEntry | null }> {
  const row = {
    id: grant.id ?? deps.ids.next('creditGrant'),
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    customerId: grant.customerId,
    currency: grant.currency,
    amount: grant.amount,
    remaining: grant.amount,
    priority: grant.priority,
    effectiveAt: grant.effectiveAt,
    expiresAt: grant.expiresAt,
    source: grant.source,
    status: grant.status,
    subscriptionId: grant.subscriptionId,
    metricNames: grant.metricNames === null ? null : JSON.stringify(grant.metricNames),
    costAmount: grant.costAmount,
    invoiceId: grant.invoiceId,
    metadata: JSON.stringify(grant.metadata),
    voidedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await trx.insertInto('creditGrants').values(row).execute();
  const entry =
    grant.status === 'active'
      ? (
          await appendLedgerEntries(
            trx,
            deps,
            tenant,
            grant.customerId,
            grant.currency,
            [{ grantId: row.id, type: entryTypeOf(grant.source), amount: grant.amount, occurredAt: now }],
            now,
          )
        )[0]!
      : null;
  return { grant: toGrant(row), entry };
}

/** One grant, held until the commit on PostgreSQL with `lock`. */
export async function findGrant(
  db: Db,
  deps: Pick<LedgerDeps, 'dialect'>,
  tenant: Tenant,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<CreditGrant | null> {
  let q = db.selectFrom('creditGrants').selectAll().$call(forTenant(tenant)).where('id', '=', id);
  if (opts.lock && deps.dialect === 'postgres') q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? toGrant(r) : null;
}

/**
 * Voids what is left of an active grant (never what was drawn): a void entry for its remaining
 * amount. 409 when it is not active or nothing is left.
 */
export async function voidGrant(
  trx: Db,
  deps: LedgerDeps,
  tenant: Tenant,
  id: string,
  now: number,
): Promise<{ before: CreditGrant; grant: CreditGrant; entry: LedgerEntry }> {
  const grant = await findGrant(trx, deps, tenant, id, { lock: true });
  if (!grant) throw new AppError('NOT_FOUND', `No credit grant with id '${id}' exists in this environment.`);
  if (grant.status !== 'active') throw new AppError('CONFLICT', `Credit grant '${id}' is ${grant.status}: only an active grant can be voided.`);
  if (new Decimal(grant.remaining).isZero()) throw new AppError('CONFLICT', `Credit grant '${id}' is fully drawn: nothing is left to void.`);
  const [entry] = await appendLedgerEntries(
    trx,
    deps,
    tenant,
    grant.customerId,
    grant.currency,
    [{ grantId: id, type: 'void', amount: new Decimal(grant.remaining).negated().toFixed(), occurredAt: now }],
    now,
  );
  await trx.updateTable('creditGrants').set({ status: 'voided', voidedAt: now, updatedAt: now }).$call(forTenant(tenant)).where('id', '=', id).execute();
  return {
    before: grant,
    grant: { ...grant, remaining: roundToMinorUnit('0', grant.currency), status: 'voided', voidedAt: now, updatedAt: now },
    entry: entry!,
  };
}

/**
 * Holds the customer's balance row in the currency until the commit (FOR UPDATE on PostgreSQL;
 * SQLite has one writer), so that what is read of the grants next is what this transaction alone
 * draws from. false when there is no row: the customer has never had credits in the currency.
 */
export async function holdCreditBalance(trx: Db, deps: Pick<LedgerDeps, 'dialect'>, tenant: Tenant, customerId: string, currency: string): Promise<boolean> {
  let q = trx.selectFrom('creditBalances').select('balance').$call(forTenant(tenant)).where('customerId', '=', customerId).where('currency', '=', currency);
  if (deps.dialect === 'postgres') q = q.forUpdate();
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * The grants a burn-down may draw from: the customer's active ones in the currency (status
 * 'active' is a bounded set: expired, voided and pending grants are not), plus `alsoIds` whatever
 * their status (grants an invoice drew from before, which a second burn of it starts from), oldest first.
 */
export async function drawableGrants(db: Db, tenant: Tenant, customerId: string, currency: string, alsoIds: readonly string[]): Promise<CreditGrant[]> {
  const rows = await db
    .selectFrom('creditGrants')
    .selectAll()
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('currency', '=', currency)
    .where((eb) => (alsoIds.length === 0 ? eb('status', '=', 'active') : eb.or([eb('status', '=', 'active'), eb('id', 'in', alsoIds)])))
    .orderBy('id')
    .execute();
  return rows.map(toGrant);
}

/**
 * Active grants whose expiry is at or before `at` (of one tenant, or of every tenant), by expiry
 * then id, after the cursor: what the billing job's sweep considers (expire-credit-grants.ts).
 */
export async function grantsExpiredBy(
  db: Db,
  tenant: Tenant | null,
  at: number,
  after: { expiresAt: number; id: string } | null,
  limit: number,
): Promise<Array<{ tenant: Tenant; grant: CreditGrant }>> {
  let q = db.selectFrom('creditGrants').selectAll().where('status', '=', 'active').where('expiresAt', '<=', at);
  if (tenant) q = q.$call(forTenant(tenant));
  // The range on expires_at keeps to the index (status, expires_at, id); the id breaks the tie.
  if (after) q = q.where('expiresAt', '>=', after.expiresAt).where((eb) => eb.or([eb('expiresAt', '>', after.expiresAt), eb('id', '>', after.id)]));
  const rows = await q.orderBy('expiresAt').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ tenant: { workspaceId: r.workspaceId, environment: r.environment as Tenant['environment'] }, grant: toGrant(r) }));
}

/**
 * Expires a customer's active grants (in one currency) at their expiry: an expiry entry for what
 * each has left (none when nothing is), dated at its `expiresAt`, in one append, and status
 * expired. Returns those it expired, before and after; a grant no longer active is left out.
 */
export async function expireGrants(
  trx: Db,
  deps: LedgerDeps,
  tenant: Tenant,
  customerId: string,
  currency: string,
  ids: readonly string[],
  now: number,
): Promise<Array<{ before: CreditGrant; grant: CreditGrant }>> {
  if (ids.length === 0) return [];
  let q = trx
    .selectFrom('creditGrants')
    .selectAll()
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('id', 'in', [...ids])
    .where('status', '=', 'active')
    .orderBy('id');
  if (deps.dialect === 'postgres') q = q.forUpdate();
  const found = (await q.execute()).map(toGrant).filter((g) => g.currency === currency && g.expiresAt !== null);
  if (found.length === 0) return [];
  const entries: NewLedgerEntry[] = found
    .filter((g) => !new Decimal(g.remaining).isZero())
    .sort((a, b) => a.expiresAt! - b.expiresAt! || (a.id < b.id ? -1 : 1))
    .map((g) => ({ grantId: g.id, type: 'expiry', amount: new Decimal(g.remaining).negated().toFixed(), occurredAt: g.expiresAt! }));
  await appendLedgerEntries(trx, deps, tenant, customerId, currency, entries, now);
  await trx
    .updateTable('creditGrants')
    .set({ status: 'expired', updatedAt: now })
    .$call(forTenant(tenant))
    .where(
      'id',
      'in',
      found.map((g) => g.id),
    )
    .execute();
  const zero = roundToMinorUnit('0', currency);
  return found.map((before) => ({ before, grant: { ...before, remaining: zero, status: 'expired' as const, updatedAt: now } }));
}

/** The pending grants a purchase's invoice pays for, held until the commit on PostgreSQL. */
async function pendingGrantsOf(trx: Db, deps: Pick<LedgerDeps, 'dialect'>, tenant: Tenant, invoiceId: string): Promise<CreditGrant[]> {
  let q = trx.selectFrom('creditGrants').selectAll().$call(forTenant(tenant)).where('invoiceId', '=', invoiceId).where('status', '=', 'pending');
  if (deps.dialect === 'postgres') q = q.forUpdate();
  return (await q.orderBy('id').execute()).map(toGrant);
}

/**
 * The purchase's invoice is paid at `at` (the customer's time): each pending grant becomes
 * active, effective from `at` at the earliest, and is entered in the ledger (top_up). One whose
 * expiry has passed by then is expired at once (its top_up and an expiry entry). Nothing for an
 * invoice that bought nothing.
 */
export async function activatePendingGrants(
  trx: Db,
  deps: LedgerDeps,
  tenant: Tenant,
  invoiceId: string,
  at: number,
  now: number,
): Promise<Array<{ before: CreditGrant; grant: CreditGrant }>> {
  const out: Array<{ before: CreditGrant; grant: CreditGrant }> = [];
  for (const before of await pendingGrantsOf(trx, deps, tenant, invoiceId)) {
    const effectiveAt = Math.max(before.effectiveAt, at);
    const lapsed = before.expiresAt !== null && before.expiresAt <= effectiveAt;
    const status = lapsed ? 'expired' : 'active';
    await trx.updateTable('creditGrants').set({ status, effectiveAt, updatedAt: now }).$call(forTenant(tenant)).where('id', '=', before.id).execute();
    const entries: NewLedgerEntry[] = [{ grantId: before.id, type: 'top_up', amount: before.amount, invoiceId, occurredAt: at }];
    if (lapsed) entries.push({ grantId: before.id, type: 'expiry', amount: new Decimal(before.amount).negated().toFixed(), occurredAt: at });
    await appendLedgerEntries(trx, deps, tenant, before.customerId, before.currency, entries, now);
    out.push({ before, grant: { ...before, status, effectiveAt, remaining: lapsed ? roundToMinorUnit('0', before.currency) : before.amount, updatedAt: now } });
  }
  return out;
}

/** The purchase's invoice is void: its pending grants are voided (they never entered the ledger). */
export async function voidPendingGrants(
  trx: Db,
  deps: Pick<LedgerDeps, 'dialect'>,
  tenant: Tenant,
  invoiceId: string,
  now: number,
): Promise<Array<{ before: CreditGrant; grant: CreditGrant }>> {
  const out: Array<{ before: CreditGrant; grant: CreditGrant }> = [];
  for (const before of await pendingGrantsOf(trx, deps, tenant, invoiceId)) {
    const zero = roundToMinorUnit('0', before.currency);
    await trx
      .updateTable('creditGrants')
      .set({ status: 'voided', remaining: zero, voidedAt: now, updatedAt: now })
      .$call(forTenant(tenant))
      .where('id', '=', before.id)
      .execute();
    out.push({ before, grant: { ...before, status: 'voided', remaining: zero, voidedAt: now, updatedAt: now } });
  }
  return out;
}

/** A customer's grants in a currency (every one when `currency` is omitted), oldest first. */
export async function grantsOf(db: Db, tenant: Tenant, customerId: string, currency?: string): Promise<CreditGrant[]> {
  let q = db.selectFrom('creditGrants').selectAll().$call(forTenant(tenant)).where('customerId', '=', customerId);
  if (currency !== undefined) q = q.where('currency', '=', currency);
  return (await q.orderBy('id').execute()).map(toGrant);
}

/** A page of a customer's ledger (in one currency, or in every one), newest first (pagination.ts). */
export async function ledgerPage(db: Db, tenant: Tenant, customerId: string, currency: string | undefined, page: PageParams): Promise<Page<LedgerEntry>> {
  let q = db.selectFrom('creditLedgerEntries').selectAll().$call(forTenant(tenant)).where('customerId', '=', customerId);
  if (currency !== undefined) q = q.where('currency', '=', currency);
  const { items, hasMore } = await pageById(q, 'creditLedgerEntries', page);
  return { items: items.map(toEntry), hasMore };
}

/** A page of the environment's grants, newest first, of one customer and currency when given. */
export async function grantsPage(db: Db, tenant: Tenant, f: PageParams & { customerId?: string; currency?: string }): Promise<Page<CreditGrant>> {
  let q = db.selectFrom('creditGrants').selectAll().$call(forTenant(tenant));
  if (f.customerId !== undefined) q = q.where('customerId', '=', f.customerId);
  if (f.currency !== undefined) q = q.where('currency', '=', f.currency);
  const { items, hasMore } = await pageById(q, 'creditGrants', f);
  return { items: items.map(toGrant), hasMore };
}

/** A customer's credit balance in every currency it has credits in, by currency. */
export async function creditBalances(db: Db, tenant: Tenant, customerId: string): Promise<Array<{ currency: string; balance: string; updatedAt: number }>> {
  const rows = await db
    .selectFrom('creditBalances')
    .select(['currency', 'balance', 'updatedAt'])
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, balance: r.balance, updatedAt: Number(r.updatedAt) }));
}
