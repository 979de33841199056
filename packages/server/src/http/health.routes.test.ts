import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { migrations } from '../db/migrate.js';

describe('GET /health and GET /ready', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 2 } });
  });
  after(() => t.close());

  it('200 /health: the process is up, never rate limited', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await t.seed.client(null).get('/health');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { status: 'ok', database: t.deps.dialect });
    }
  });

  it('200 /ready: the database answers, every migration is applied, the writer is warm', async () => {
    const r = await t.seed.client(null).get('/ready');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { status: 'ready', database: t.deps.dialect, migrations: migrations.length });
  });

  it('503 /ready with Retry-After when the database is gone, while /health stays 200', async () => {
    const own = await createTestApp();
    try {
      // The database closes under the running app, as a server that went away.
      if (own.deps.sqlite) own.deps.sqlite.close();
      else await own.deps.db.destroy();
      const ready = await own.seed.client(null).get('/ready');
      assert.equal(ready.status, 503, JSON.stringify(ready.body));
      assert.equal(ready.body.errors[0].code, 'NOT_READY');
      assert.match(ready.body.errors[0].message, /database/);
      assert.equal(ready.headers['retry-after'], '5');
      assert.equal((await own.seed.client(null).get('/health')).status, 200);
    } finally {
      // Closing what is left; the database is already gone.
      await own.close().catch(() => undefined);
    }
  });
});
