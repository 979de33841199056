// `tollgate-forwarder replay FILE` as a user runs it (the TypeScript entry through tsx; the
// built one is run by pack.test.ts), against the real server listening on 127.0.0.1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestApp, type TestApp } from '../../server/test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../server/test/helpers/seed.js';
import { createMetric } from '../../server/src/modules/metrics/create-metric.js';
import { accessLogLine, runCommand, subscriptionEvent } from './fixtures.js';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
let t: TestApp;
let ws: TenantHandle;
let api: Client;
let url: string;
let dir: string;

function replay(file: string, extra: string[] = []) {
  return runCommand(process.execPath, ['--conditions=tollgate-source', '--import', 'tsx', cli, 'replay', file, ...extra], {
    TOLLGATE_URL: url,
    TOLLGATE_API_KEY: ws.test.secretKey,
  });
}

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const sumOf = async (customerId: string) => (await api.get(`/api/v1/usage?customerId=${customerId}&metricName=api_calls`)).body.data[0]?.sum;

const NOW = Date.UTC(2026, 5, 15, 12);

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tollgate-forwarder-cli-'));
  // The server's clock is frozen mid-month: the CLI sends the timestamps it is given, so nothing
  // here depends on real time (or on a run that starts just before a month ends).
  t = await createTestApp();
  t.clock.set(NOW);
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
  for (const externalId of ['key-ndjson', 'key-event', 'key-pretty']) await t.seed.customer(ws.test, { externalId });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tollgate-forwarder replay FILE', () => {
  it('an NDJSON file of access-log lines (time from requestTimeEpoch) is sent; skipped lines are in the summary line; no progress bar off a terminal', async () => {
    const epoch = String(NOW - 60_000);
    const lines = [
      ...Array.from({ length: 5 }, (_, i) =>
        JSON.stringify(accessLogLine({ apiKeyId: 'key-ndjson', requestTimeEpoch: epoch, extendedRequestId: `ext-${i}=` })),
      ),
      JSON.stringify(accessLogLine({ apiKeyId: 'key-ndjson', requestTimeEpoch: '-' })),
      JSON.stringify(accessLogLine({ apiKeyId: '-', requestTimeEpoch: epoch })),
      'not json',
    ];
    const file = write('lines.ndjson', `${lines.join('\n')}\n`);
    const r = await replay(file);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(
      r.stdout,
      '8 log lines: 5 events sent in 1 batches (5 counted, 0 duplicates), 3 skipped (no-timestamp 1, no-consumer 1, not-json 1), 0 refused by the server\n',
    );
    // Again: the extendedRequestIds make every line a duplicate.
    const again = await replay(file, ['--json']);
    assert.deepEqual(JSON.parse(again.stdout), {
      logEvents: 8,
      sent: 5,
      accepted: 0,
      duplicates: 5,
      skipped: { 'no-timestamp': 1, 'no-consumer': 1, 'not-json': 1 },
      rejected: {},
      controlMessages: 0,
      batches: 1,
    });
    assert.equal(await sumOf('key-ndjson'), '5');
  });

  it('a saved subscription event, on one line or pretty-printed, is decoded and sent', async () => {
    const at = NOW - 30_000;
    const one = subscriptionEvent([
      { id: 'cli-1', timestamp: at, message: JSON.stringify(accessLogLine({ apiKeyId: 'key-event' })) },
      { id: 'cli-2', timestamp: at, message: JSON.stringify(accessLogLine({ apiKeyId: 'key-event' })) },
    ]);
    const r = await replay(write('event.json', JSON.stringify(one)));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^2 log lines: 2 events sent in 1 batches \(2 counted/);
    const pretty = subscriptionEvent([{ id: 'cli-3', timestamp: at, message: JSON.stringify(accessLogLine({ apiKeyId: 'key-pretty' })) }]);
    const p = await replay(write('pretty.json', JSON.stringify(pretty, null, 2)));
    assert.equal(p.status, 0, p.stderr);
    assert.equal(await sumOf('key-event'), '2');
    assert.equal(await sumOf('key-pretty'), '1');
  });

  it('exit 1 when the server refuses an event (an unknown customer), which the summary names by code', async () => {
    const file = write('unknown.ndjson', JSON.stringify(accessLogLine({ apiKeyId: 'key-nobody', requestTimeEpoch: String(NOW) })));
    const r = await replay(file);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /1 refused by the server \(UNKNOWN_CUSTOMER 1\)/);
  });

  it('exit 2 with the usage on a wrong command line', async () => {
    const r = await replay('');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Usage: tollgate-forwarder replay FILE/);
  });
});
