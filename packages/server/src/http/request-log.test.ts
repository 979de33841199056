import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { TenantHandle } from '../../test/helpers/seed.js';
import { loadConfig } from '../lib/config.js';
import { formatEncryptionKey, generateEncryptionKey } from '../lib/secret-box.js';

describe('request logs (REQUEST_LOG)', () => {
  const lines: Array<Record<string, unknown>> = [];
  let t: TestApp;
  let ws: TenantHandle;
  before(async () => {
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    t = await createTestApp({ config: { requestLog: true }, log: pino({ level: 'info' }, stream) });
    ws = await t.seed.workspace();
  });
  after(() => t.close());

  const requestLines = () => lines.filter((l) => l.msg === 'request');

  it('one info line per request: request id, method, route pattern, status, duration, workspace; never the key, the query or the body', async () => {
    lines.length = 0;
    const api = t.seed.client(ws.test.secretKey);
    const created = await api.post('/api/v1/customers', { name: 'Secretive Ltd', externalId: 'body-text-never-logged' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const read = await api.get(`/api/v1/customers/${created.body.id}?expand=nothing-to-log`);
    const anonymous = await t.seed.client(null).get('/api/v1/customers');
    const unknown = await api.get('/api/v1/no-such-route');
    const answers = [created, read, anonymous, unknown];
    const logged = requestLines();
    assert.equal(logged.length, answers.length, JSON.stringify(logged));
    assert.deepEqual(
      logged.map((l) => [l.level, l.requestId, l.method, l.route, l.status, l.workspaceId, l.environment]),
      [
        [30, created.headers['x-request-id'], 'POST', '/api/v1/customers', 200, ws.workspaceId, 'test'],
        [30, read.headers['x-request-id'], 'GET', '/api/v1/customers/:id', read.status, ws.workspaceId, 'test'],
        [30, anonymous.headers['x-request-id'], 'GET', '/api/v1/customers', 401, null, null],
        [30, unknown.headers['x-request-id'], 'GET', '(unmatched)', 404, null, null],
      ],
    );
    for (const l of logged) assert.equal(typeof l.durationMs, 'number');
    const text = JSON.stringify(lines);
    for (const secret of [ws.test.secretKey, 'body-text-never-logged', 'Secretive', 'nothing-to-log']) assert.ok(!text.includes(secret), `${secret} logged`);
  });

  it('is on in the production profile and off in the development and test profiles unless REQUEST_LOG says otherwise', () => {
    const keys = formatEncryptionKey(generateEncryptionKey('k1'));
    const cases: Array<[Record<string, string>, boolean]> = [
      [{ TOLLGATE_PROFILE: 'production', TOLLGATE_ENCRYPTION_KEYS: keys }, true],
      [{ TOLLGATE_PROFILE: 'production', TOLLGATE_ENCRYPTION_KEYS: keys, REQUEST_LOG: 'false' }, false],
      [{ TOLLGATE_PROFILE: 'development' }, false],
      [{ TOLLGATE_PROFILE: 'development', REQUEST_LOG: 'true' }, true],
      [{ TOLLGATE_PROFILE: 'test' }, false],
    ];
    for (const [env, expected] of cases) assert.equal(loadConfig(env).requestLog, expected, JSON.stringify(env));
  });
});
