/**
 * deploy/grafana/tollgate-dashboard.json queries only series that /metrics serves, so an imported
 * dashboard shows data rather than empty panels after a rename.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { parseExposition, seriesNames } from './helpers/prometheus-text.js';

const dashboard = JSON.parse(readFileSync(new URL('../../../deploy/grafana/tollgate-dashboard.json', import.meta.url), 'utf8')) as {
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
  panels: unknown[];
};

/** Every PromQL expression in the dashboard: panel targets and template variable queries. */
function expressions(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) expressions(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'expr' || k === 'definition') && typeof v === 'string') out.push(v);
      else expressions(v, out);
    }
  }
  return out;
}

const queried = [...new Set(expressions(dashboard).flatMap((e) => e.match(/\b(?:tollgate|process|nodejs)_[a-z0-9_]+\b/g) ?? []))].sort();
/** Served only with PostgreSQL (the pool) or with REDIS_URL (Redis's state). */
const onlyWithPostgres = (name: string) => name.startsWith('tollgate_db_pool_');
const onlyWithRedis = (name: string) => name === 'tollgate_redis_up';

let t: TestApp;
let served: Set<string>;
before(async () => {
  t = await createTestApp();
  const r = await t.seed.client(null).get('/metrics');
  served = seriesNames(parseExposition(r.body as string).families);
});
after(() => t.close());

describe('deploy/grafana/tollgate-dashboard.json', () => {
  it('has a Prometheus data source variable that every panel uses', () => {
    const ds = dashboard.templating.list.find((v) => v.type === 'datasource');
    assert.ok(ds, 'a datasource variable');
    assert.equal(ds.query, 'prometheus');
    const uids = JSON.stringify(dashboard.panels).match(/"uid":"[^"]*"/g) ?? [];
    assert.ok(uids.length > 0);
    for (const uid of uids) assert.equal(uid, `"uid":"\${${ds.name}}"`);
  });

  it('queries the HTTP, ingestion, writer, cache, webhook, billing and process series', () => {
    for (const family of [
      'tollgate_http_',
      'tollgate_ingest_',
      'tollgate_admission_',
      'tollgate_cache_',
      'tollgate_webhook_',
      'tollgate_outbound_',
      'tollgate_billing_',
      'nodejs_',
    ]) {
      assert.ok(
        queried.some((n) => n.startsWith(family)),
        `a panel on ${family}*`,
      );
    }
  });

  it('every series it queries is served by /metrics', () => {
    const always = queried.filter((n) => !onlyWithPostgres(n) && !onlyWithRedis(n));
    assert.deepEqual(
      always.filter((n) => !served.has(n)),
      [],
    );
  });

  it('the PostgreSQL pool series it queries are served on PostgreSQL', (ctx) => {
    if (t.deps.dialect !== 'postgres') return ctx.skip('SQLite: no pool (run with TEST_DATABASE_URL)');
    const pool = queried.filter(onlyWithPostgres);
    assert.ok(pool.length > 0);
    assert.deepEqual(
      pool.filter((n) => !served.has(n)),
      [],
    );
  });

  it('the Redis series it queries is served with REDIS_URL', (ctx) => {
    if (!t.deps.config.redisUrl) return ctx.skip('no REDIS_URL');
    assert.ok(served.has('tollgate_redis_up'));
    assert.ok(queried.includes('tollgate_redis_up'));
  });
});
