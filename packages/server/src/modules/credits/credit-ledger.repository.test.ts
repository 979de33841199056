import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from '@tollgate/pricing';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { transaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { checkNewGrant, type GrantSource, type NewGrant } from './credit-grant.js';
import { appendLedgerEntries, creditBalance, grantsOf, insertGrant, ledgerPage, voidGrant } from './credit-ledger.repository.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const T0 = Date.UTC(2026, 11, 1);
const tenant: Tenant = { workspaceId: 'ws_credits', environment: 'test' };
let customers = 0;
const newCustomer = () => `cus_credits_${++customers}`;

function grantInput(customerId: string, amount: string, over: Partial<NewGrant> = {}): NewGrant {
  return {
    customerId,
    currency: 'USD',
    amount,
    priority: 0,
    effectiveAt: T0,
    expiresAt: null,
    source: 'promotional',
    status: 'active',
    subscriptionId: null,
    metricNames: null,
    costAmount: null,
    invoiceId: null,
    metadata: {},
    ...over,
  };
}

const inTx = <T>(fn: (trx: TestApp['deps']['db']) => Promise<T>) => transaction(t.deps.db, fn);
const grant = (customerId: string, amount: string, over: Partial<NewGrant> = {}) =>
  inTx((trx) => insertGrant(trx, t.deps, tenant, checkNewGrant(grantInput(customerId, amount, over)), T0));
const draw = (customerId: string, grantId: string, amount: string) =>
  inTx((trx) => appendLedgerEntries(trx, t.deps, tenant, customerId, 'USD', [{ grantId, type: 'draw', amount: `-${amount}`, occurredAt: T0 }], T0));

/** Every entry of the customer's ledger, oldest first, through the API's paging. */
async function wholeLedger(customerId: string, currency = 'USD') {
  const out = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await ledgerPage(t.deps.db, tenant, customerId, currency, { limit: 3, ...(startingAfter ? { startingAfter } : {}) });
    out.push(...page.items);
    if (!page.hasMore) return out.reverse();
    startingAfter = page.items.at(-1)!.id;
  }
}

describe('the credit ledger (storage)', () => {
  it('grants, draws and a void, each entry with the balance after it', async () => {
    const c = newCustomer();
    const promo = await grant(c, '50');
    const bought = await grant(c, '20.00', { source: 'purchased', costAmount: '18' });
    assert.equal(promo.grant.amount, '50.00');
    assert.equal(bought.grant.costAmount, '18.00');
    await draw(c, promo.grant.id, '12.00');
    await draw(c, bought.grant.id, '3.50');
    const voided = await inTx((trx) => voidGrant(trx, t.deps, tenant, promo.grant.id, T0));
    assert.equal(voided.entry.amount, '-38.00');
    assert.equal(voided.grant.status, 'voided');

    const ledger = await wholeLedger(c);
    assert.deepEqual(
      ledger.map((e) => [e.type, e.grantId === promo.grant.id ? 'promo' : 'bought', e.amount, e.balanceAfter]),
      [
        ['grant', 'promo', '50.00', '50.00'],
        ['top_up', 'bought', '20.00', '70.00'],
        ['draw', 'promo', '-12.00', '58.00'],
        ['draw', 'bought', '-3.50', '54.50'],
        ['void', 'promo', '-38.00', '16.50'],
      ],
    );
    assert.equal(await creditBalance(t.deps.db, tenant, c, 'USD'), '16.50');
    const grants = await grantsOf(t.deps.db, tenant, c);
    assert.deepEqual(
      grants.map((g) => [g.status, g.remaining]),
      [
        ['voided', '0.00'],
        ['active', '16.50'],
      ],
    );
  });

  it('a void of a fully drawn grant, or of one voided already, is a conflict that names it', async () => {
    const c = newCustomer();
    const { grant: g } = await grant(c, '5.00');
    await draw(c, g.id, '5.00');
    await assert.rejects(
      inTx((trx) => voidGrant(trx, t.deps, tenant, g.id, T0)),
      (e: unknown) => e instanceof AppError && e.code === 'CONFLICT' && e.message.includes('fully drawn'),
    );
    const { grant: h } = await grant(c, '5.00');
    await inTx((trx) => voidGrant(trx, t.deps, tenant, h.id, T0));
    await assert.rejects(
      inTx((trx) => voidGrant(trx, t.deps, tenant, h.id, T0)),
      (e: unknown) => e instanceof AppError && e.code === 'CONFLICT' && e.message.includes('voided'),
    );
    await assert.rejects(
      inTx((trx) => voidGrant(trx, t.deps, tenant, 'cgr_nope', T0)),
      (e: unknown) => e instanceof AppError && e.code === 'NOT_FOUND',
    );
  });

  it('a pending grant (a purchase not yet paid) is not in the ledger or the balance', async () => {
    const c = newCustomer();
    const pending = await grant(c, '30.00', { source: 'purchased', status: 'pending' });
    assert.equal(pending.entry, null);
    assert.equal(await creditBalance(t.deps.db, tenant, c, 'USD'), '0.00');
    assert.deepEqual(await wholeLedger(c), []);
  });

  it('another environment of the workspace sees none of it', async () => {
    const c = newCustomer();
    await grant(c, '7.00');
    const live: Tenant = { ...tenant, environment: 'live' };
    assert.equal(await creditBalance(t.deps.db, live, c, 'USD'), '0.00');
    assert.deepEqual(await grantsOf(t.deps.db, live, c), []);
    assert.deepEqual((await ledgerPage(t.deps.db, live, c, 'USD', {})).items, []);
  });

  it('a draw past what a grant has left is refused and changes nothing', async () => {
    const c = newCustomer();
    const { grant: g } = await grant(c, '1.00');
    await assert.rejects(draw(c, g.id, '1.01'), /would go below zero/);
    assert.equal(await creditBalance(t.deps.db, tenant, c, 'USD'), '1.00');
    assert.equal((await wholeLedger(c)).length, 1);
  });

  it('after every operation of a random sequence, the balance is the sum of the ledger and each grant what its entries left', async () => {
    type Op = { kind: 'grant'; amount: bigint; source: GrantSource } | { kind: 'draw'; grant: number; share: number } | { kind: 'void'; grant: number };
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('grant' as const),
        amount: fc.bigInt({ min: 1n, max: 100_000n }),
        source: fc.constantFrom('purchased', 'promotional', 'rollover'),
      }),
      fc.record({ kind: fc.constant('draw' as const), grant: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ kind: fc.constant('void' as const), grant: fc.nat() }),
    );
    const cents = (n: bigint) => new Decimal(n.toString()).div(100).toFixed(2);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops: Op[]) => {
        const c = newCustomer();
        const ids: string[] = [];
        for (const o of ops) {
          if (o.kind === 'grant') ids.push((await grant(c, cents(o.amount), { source: o.source })).grant.id);
          else if (ids.length > 0) {
            const id = ids[o.grant % ids.length]!;
            const g = (await grantsOf(t.deps.db, tenant, c)).find((x) => x.id === id)!;
            const left = BigInt(new Decimal(g.remaining).times(100).toFixed(0));
            if (o.kind === 'void') {
              if (g.status === 'active' && left > 0n) await inTx((trx) => voidGrant(trx, t.deps, tenant, id, T0));
            } else {
              // A share of what is left, in whole cents (the test's only use of a float: choosing an amount).
              const amount = (left * BigInt(Math.floor(o.share * 1000))) / 1000n;
              if (g.status === 'active' && amount > 0n) await draw(c, id, cents(amount));
            }
          }
          const ledger = await wholeLedger(c);
          const sum = ledger.reduce((s, e) => s.plus(e.amount), new Decimal(0));
          const balance = await creditBalance(t.deps.db, tenant, c, 'USD');
          assert.equal(balance, sum.toFixed(2), 'the balance is the sum of the ledger');
          if (ledger.length > 0) assert.equal(ledger.at(-1)!.balanceAfter, balance, "the last entry's balance is the balance");
          let running = new Decimal(0);
          for (const e of ledger) assert.equal(e.balanceAfter, (running = running.plus(e.amount)).toFixed(2), 'each entry carries the balance after it');
          const grants = await grantsOf(t.deps.db, tenant, c);
          for (const g of grants) {
            const changes = ledger.filter((e) => e.grantId === g.id && e.type !== 'grant' && e.type !== 'top_up' && e.type !== 'rollover');
            assert.equal(
              g.remaining,
              changes.reduce((s, e) => s.plus(e.amount), new Decimal(g.amount)).toFixed(2),
              `grant ${g.id}: its amount plus its entries`,
            );
          }
          assert.equal(grants.reduce((s, g) => s.plus(g.remaining), new Decimal(0)).toFixed(2), balance, 'the balance is what the grants have left');
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('checkNewGrant', () => {
  const cases: Array<[string, Partial<NewGrant>, string, RegExp]> = [
    ['a negative amount', { amount: '-5.00' }, 'body.amount', /greater than 0/],
    ['a zero amount', { amount: '0' }, 'body.amount', /greater than 0/],
    ['an amount finer than cents', { amount: '1.005' }, 'body.amount', /more decimals than USD's minor unit \(2\)/],
    ['a fraction of a yen', { currency: 'JPY', amount: '100.5' }, 'body.amount', /JPY's minor unit \(0\)/],
    ['an amount that is not decimal text', { amount: '1e3' }, 'body.amount', /decimal amount/],
    ['an unknown currency', { currency: 'XAU' }, 'body.currency', /ISO 4217/],
    ['an expiry before the effective instant', { effectiveAt: T0, expiresAt: T0 - 1 }, 'body.expiresAt', /after effectiveAt/],
    ['an expiry at the effective instant', { effectiveAt: T0, expiresAt: T0 }, 'body.expiresAt', /after effectiveAt/],
    ['no metric named', { metricNames: [] }, 'body.metricNames', /at least one metric/],
    ['a negative cost', { costAmount: '-1' }, 'body.cost', /at least 0/],
  ];
  for (const [what, over, field, message] of cases)
    it(`refuses ${what}, naming ${field}`, () => {
      assert.throws(
        () => checkNewGrant(grantInput('cus_x', '10.00', over)),
        (e: unknown) => e instanceof AppError && e.code === 'VALIDATION_FAILED' && e.details[0]?.field === field && message.test(e.message),
      );
    });

  it('returns amounts in the minor digits: KWD 3, JPY 0, a free grant costs 0', () => {
    assert.equal(checkNewGrant(grantInput('c', '1.5', { currency: 'KWD' })).amount, '1.500');
    assert.equal(checkNewGrant(grantInput('c', '100', { currency: 'JPY', costAmount: '0' })).costAmount, '0');
  });
});
