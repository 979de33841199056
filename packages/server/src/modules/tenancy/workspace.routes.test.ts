import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { TenantHandle } from '../../../test/helpers/seed.js';
import { setWorkspaceRateLimit } from './workspace.repository.js';

let t: TestApp;
let ws: TenantHandle;

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace('Acme Metering');
});
after(() => t.close());

describe('GET /api/v1/workspace', () => {
  it("200 returns the test key's workspace and environment, with the default 300 requests per minute", async () => {
    const res = await t.seed.client(ws.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: ws.workspaceId,
      object: 'workspace',
      name: 'Acme Metering',
      environment: 'test',
      rateLimitPerMinute: 300,
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    assert.match(res.body.id, /^ws_[0-9a-z]{26}$/);
  });

  it('200 with the live key names the same workspace in the live environment', async () => {
    const res = await t.seed.client(ws.live.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 200);
    assert.equal(res.body.id, ws.workspaceId);
    assert.equal(res.body.environment, 'live');
  });

  it("200 answers each key with its own workspace, never another's", async () => {
    const other = await t.seed.workspace('Other Co');
    const res = await t.seed.client(other.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.body.id, other.workspaceId);
    assert.equal(res.body.name, 'Other Co');
    assert.notEqual(res.body.id, ws.workspaceId);
  });

  it("200 shows the workspace's own rate limit once one is set", async () => {
    const other = await t.seed.workspace();
    assert.equal(await setWorkspaceRateLimit(t.deps.db, other.workspaceId, 1200, t.clock.now()), true);
    const res = await t.seed.client(other.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 200);
    assert.equal(res.body.rateLimitPerMinute, 1200);
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).get('/api/v1/workspace');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).get('/api/v1/workspace');
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});
