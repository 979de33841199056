import type { AuditEventType } from './audit-event-types.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backend, createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AuditEvent, Severity } from './audit-event.js';
import { recordAudit } from './audit-event.repository.js';
import { filterErrors, matchesAuditFilter, type AuditFilterQuery } from './audit-filter.js';
import { listAuditEvents, type SearchPlan } from './audit-search.repository.js';

// Every search plan against the rule it must follow: the events matchesAuditFilter (the live
// stream's in-memory test) accepts, newest first, paged forwards and backwards without a gap or a
// repeat. 150 events of one tenant over four months, among the same words in two other tenants.
// On PostgreSQL a walk of 3 rows sends each search through GIN month by month, as ten thousand
// events would.
describe(`audit search plans against the in-memory filter (${backend})`, () => {
  let t: TestApp;
  const A: Tenant = { workspaceId: 'ws_search_a', environment: 'test' };
  const others: Tenant[] = [
    { workspaceId: 'ws_search_b', environment: 'test' },
    { workspaceId: 'ws_search_a', environment: 'live' },
  ];
  const mine: AuditEvent[] = [];
  const types: AuditEventType[] = ['api_key.rotated', 'api_key.revoked', 'customer.created', 'usage.limit_alert', 'webhook.rejected'];
  const severities: Severity[] = ['INFO', 'NOTICE', 'WARN', 'ERROR', 'CRITICAL'];
  const vocabulary = ['nightly', 'deploy', 'alice', 'bob', 'refund', 'quota'];

  before(async () => {
    t = await createTestApp();
    // From 2026-01-10 to about 2026-04-20, a little under a day apart; the other tenants' events
    // interleave with A's.
    let ms = Date.UTC(2026, 0, 10, 9);
    for (let i = 0; i < 150; i++) {
      for (const [k, tenant] of [A, ...others].entries()) {
        if (k > 0 && i % 3 !== 0) continue;
        t.clock.set(ms + k);
        const words = [vocabulary[i % vocabulary.length]!, vocabulary[(i * 7 + 3) % vocabulary.length]!];
        const input = {
          eventType: types[(i * 3) % types.length]!,
          severity: severities[i % severities.length]!,
          targetType: 'api_key',
          targetId: `key_${i % 4}`,
          payload: { note: words.join(' '), n: i },
        };
        await recordAudit(t.deps.db, t.deps, { ...tenant, actor: { type: 'SYSTEM', id: 'test' }, correlationId: `req_${i}`, source: 'system' }, input);
      }
      ms += 17 * 3_600_000 + 13 * 60_000;
    }
    const all = await listAuditEvents(t.deps.db, A, {}, { limit: 1000 });
    mine.push(...all.items);
    assert.equal(mine.length, 150);
  });
  after(() => t?.close());

  /** Every page of a search, forwards, then backwards from the last page: the ids seen each way. */
  async function walk(filter: AuditFilterQuery, plan: SearchPlan, limit: number): Promise<{ forwards: string[]; backwards: string[] }> {
    const f = filterErrors(filter, 'query');
    const forwards: string[] = [];
    let startingAfter: string | undefined;
    let lastPage: AuditEvent[] = [];
    for (let guard = 0; guard < 200; guard++) {
      const page = await listAuditEvents(t.deps.db, A, f, { limit, startingAfter }, plan);
      forwards.push(...page.items.map((e) => e.eventId));
      if (page.items.length > 0) lastPage = page.items;
      if (!page.hasMore) break;
      startingAfter = page.items[page.items.length - 1]!.eventId;
    }
    const backwards: string[] = [];
    let endingBefore = lastPage[0]?.eventId;
    while (endingBefore !== undefined) {
      const page = await listAuditEvents(t.deps.db, A, f, { limit, endingBefore }, plan);
      backwards.unshift(...page.items.map((e) => e.eventId));
      endingBefore = page.hasMore ? page.items[0]!.eventId : undefined;
    }
    return { forwards, backwards: [...backwards, ...lastPage.map((e) => e.eventId)] };
  }

  const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString();
  const searches: Array<[string, AuditFilterQuery]> = [
    ['one common word', { q: 'nightly' }],
    ['two words', { q: 'nightly deploy' }],
    ['a prefix', { q: 'ref*' }],
    ['a word and a type prefix', { q: 'alice', type: 'api_key.*' }],
    ['a word and an exact type', { q: 'bob', type: 'customer.created' }],
    ['a word and a severity and above', { q: 'quota', severity: 'WARN' }],
    ['a word, a type prefix and a severity', { q: 'deploy', type: 'webhook.*', severity: 'ERROR' }],
    ['a word in a time range across a month end', { q: 'nightly', createdFrom: iso(2026, 2, 20), createdTo: iso(2026, 3, 10) }],
    ['a word from a date on', { q: 'alice', createdFrom: iso(2026, 3, 1) }],
    ['a word up to a date', { q: 'bob', createdTo: iso(2026, 2, 1) }],
    ['a word and a target id (its b-tree drives)', { q: 'nightly', targetId: 'key_1' }],
    ['a word nobody wrote', { q: 'nowhere' }],
    ['a type word', { q: 'rejected' }],
  ];
  const plans: Array<[string, SearchPlan]> = [
    ['default plan', {}],
    ...(backend === 'postgres' ? ([['walk of 3 rows, then GIN by month', { walkRows: 3 }]] as Array<[string, SearchPlan]>) : []),
  ];
  for (const [planName, plan] of plans) {
    for (const [name, filter] of searches) {
      it(`${planName}: ${name}`, async () => {
        const f = filterErrors(filter, 'query');
        const expected = mine.filter((e) => matchesAuditFilter(f, e)).map((e) => e.eventId);
        for (const limit of [4, 50]) {
          const { forwards, backwards } = await walk(filter, plan, limit);
          assert.deepEqual(forwards, expected, `pages of ${limit}, forwards`);
          assert.deepEqual(backwards, expected, `pages of ${limit}, backwards`);
        }
      });
    }
  }

  it('the searches above are not trivial: most find several events, one finds none', () => {
    const counts = searches.map(([, q]) => mine.filter((e) => matchesAuditFilter(filterErrors(q, 'query'), e)).length);
    assert.ok(counts.filter((n) => n >= 5).length >= 9, String(counts));
    assert.ok(counts.includes(0));
  });
});
