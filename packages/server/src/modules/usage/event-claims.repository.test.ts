import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { transaction } from '../../db/transaction.js';
import type { Tenant } from '../../lib/tenant.js';
import { claimEventIds, deleteEventClaimsUpTo, findClaimedEventIds } from './event-claims.repository.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const WINDOW = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 2, 10, 12);

/** One batch's claim: at T0 + `at`, by tenant `as` ('a' unless said), of `ids`; `claimed` is what it must return. */
interface Step {
  as?: 'a' | 'a-live' | 'b';
  at: number;
  ids: string[];
  claimed: string[];
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `id-${String(from + i).padStart(4, '0')}`);

const cases: Array<{ name: string; steps: Step[] }> = [
  { name: 'new ids are all claimed, in any order', steps: [{ at: 0, ids: ['c', 'a', 'b'], claimed: ['a', 'b', 'c'] }] },
  { name: 'an id twice in one batch is claimed once', steps: [{ at: 0, ids: ['a', 'b', 'a'], claimed: ['a', 'b'] }] },
  {
    name: 'an id claimed within the window is not claimed again, up to its last millisecond',
    steps: [
      { at: 0, ids: ['a', 'b'], claimed: ['a', 'b'] },
      { at: 1, ids: ['a', 'c'], claimed: ['c'] },
      { at: WINDOW - 1, ids: ['b'], claimed: [] },
    ],
  },
  {
    name: 'a claim as old as the window or older is taken over, and the new claim holds for a window again',
    steps: [
      { at: 0, ids: ['a', 'b'], claimed: ['a', 'b'] },
      { at: WINDOW, ids: ['a'], claimed: ['a'] },
      { at: WINDOW + 1, ids: ['a', 'b', 'c'], claimed: ['b', 'c'] },
      { at: 2 * WINDOW - 1, ids: ['a'], claimed: [] },
    ],
  },
  {
    name: 'two tenants (another workspace, or the live environment of the same one) claim the same id independently',
    steps: [
      { at: 0, ids: ['a'], claimed: ['a'] },
      { as: 'b', at: 1, ids: ['a'], claimed: ['a'] },
      { as: 'a-live', at: 2, ids: ['a'], claimed: ['a'] },
      { as: 'b', at: 3, ids: ['a'], claimed: [] },
    ],
  },
  {
    name: 'a batch of more ids than one statement claims (256 on SQLite), part of them seen',
    steps: [
      { at: 0, ids: range(0, 100), claimed: range(0, 100) },
      { at: 1, ids: range(50, 400).reverse(), claimed: range(100, 400) },
    ],
  },
];

describe('claimEventIds and findClaimedEventIds', () => {
  let n = 0;
  for (const c of cases) {
    it(c.name, async () => {
      const ws = `ws_claims_${n++}_a`;
      const tenants: Record<NonNullable<Step['as']>, Tenant> = {
        a: { workspaceId: ws, environment: 'test' },
        'a-live': { workspaceId: ws, environment: 'live' },
        b: { workspaceId: `${ws}_b`, environment: 'test' },
      };
      for (const [i, step] of c.steps.entries()) {
        const tenant = tenants[step.as ?? 'a'];
        const now = T0 + step.at;
        // What a dry run would answer before the claim: every id the claim skips, and no other.
        const seen = await findClaimedEventIds(t.deps.db, tenant, step.ids, now - WINDOW);
        const claimed = await transaction(t.deps.db, (trx) => claimEventIds(trx, t.deps.sqlite, tenant, step.ids, now, WINDOW));
        assert.deepEqual([...claimed].sort(), step.claimed, `step ${i}: claimed`);
        assert.deepEqual([...seen].sort(), [...new Set(step.ids)].filter((id) => !claimed.has(id)).sort(), `step ${i}: findClaimedEventIds`);
      }
    });
  }

  it('claims nothing and reads nothing for no ids', async () => {
    const tenant: Tenant = { workspaceId: 'ws_claims_none', environment: 'test' };
    assert.equal((await transaction(t.deps.db, (trx) => claimEventIds(trx, t.deps.sqlite, tenant, [], T0, WINDOW))).size, 0);
    assert.equal((await findClaimedEventIds(t.deps.db, tenant, [], T0)).size, 0);
  });

  it('deleteEventClaimsUpTo deletes every tenant’s claims made at or before the cutoff', async () => {
    const at = T0 + 100 * WINDOW;
    const a: Tenant = { workspaceId: 'ws_prune_a', environment: 'test' };
    const b: Tenant = { workspaceId: 'ws_prune_b', environment: 'live' };
    await transaction(t.deps.db, (trx) => claimEventIds(trx, t.deps.sqlite, a, ['old', 'edge'], at, WINDOW));
    await transaction(t.deps.db, (trx) => claimEventIds(trx, t.deps.sqlite, b, ['old'], at, WINDOW));
    await transaction(t.deps.db, (trx) => claimEventIds(trx, t.deps.sqlite, a, ['new'], at + 1, WINDOW));
    // Every claim of the other cases is older still.
    assert.ok((await deleteEventClaimsUpTo(t.deps.db, at)) >= 3);
    assert.deepEqual([...(await findClaimedEventIds(t.deps.db, a, ['old', 'edge', 'new'], 0))], ['new']);
    assert.equal((await findClaimedEventIds(t.deps.db, b, ['old'], 0)).size, 0);
  });
});
