/**
 * The CLI's commands through the HTTP API (ingest, keys rotate, events tail, invoices list),
 * spawned as an operator runs them against a spawned `tollgate serve`: on the SQLite pass on a new
 * DATA_DIR, on the PostgreSQL pass in a migrated schema of its own on TEST_DATABASE_URL (the CLI's
 * storage, and migrating a new database, are test/cli.test.ts's subject: here the commands talk
 * HTTP; a schema spares a DROP DATABASE's checkpoint and the migrations). The key comes from the
 * demo banner; it reaches the CLI through TOLLGATE_API_KEY or --api-key and never appears in
 * anything the CLI prints.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { backend } from './helpers/test-app.js';
import { Scratch, runCli, type ServeProcess } from './helpers/processes.js';

const scratch = new Scratch('cliapi');
after(() => scratch.cleanup());

const TIMEOUT = 120_000;

describe(`tollgate commands through the HTTP API (${backend})`, { concurrency: 1 }, () => {
  let server: ServeProcess;
  let key: string;
  let productKeyId: string;
  let env: Record<string, string>;
  let dir: string;

  before(async () => {
    dir = scratch.tempDir();
    const store: Record<string, string> = { DATA_DIR: path.join(dir, 'data') };
    if (backend === 'postgres') store.DATABASE_URL = (await scratch.schema({ migrated: true })).url;
    server = await scratch.serve(store);
    const m = await server.waitFor(/test secret key\s+(sk_test_[0-9a-f]{32})\n\s+test product key\s+sk_test_[0-9a-f]{32}\s+\((key_\w+),/);
    key = m[1]!;
    productKeyId = m[2]!;
    env = { TOLLGATE_API_URL: server.address, TOLLGATE_API_KEY: key };
  });

  const noKey = (...outputs: string[]) => {
    for (const o of outputs) assert.ok(!o.includes(key), 'the API key is never printed');
  };

  it(
    'ingest FILE sends NDJSON in batches of at most 1,000 with progress, and counts accepted events; the same file again is all duplicates',
    { timeout: TIMEOUT },
    async () => {
      const file = path.join(dir, 'usage.ndjson');
      const at = new Date().toISOString();
      writeFileSync(
        file,
        Array.from({ length: 2_500 }, (_, i) => JSON.stringify({ customerId: 'acme', metricName: 'api_calls', quantity: 1 + (i % 3), occurredAt: at })).join(
          '\n',
        ),
      );
      const first = await runCli(['ingest', file, '--progress'], env);
      assert.equal(first.status, 0, first.stderr);
      assert.equal(first.stdout, '2,500 events in 3 batches: 2,500 accepted, 0 duplicates, 0 rejected.\n');
      assert.deepEqual(first.stderr.trim().split('\n'), ['sent 1,000 of 2,500 (40%)', 'sent 2,000 of 2,500 (80%)', 'sent 2,500 of 2,500 (100%)']);
      const again = await runCli(['ingest', file, '--json', '--batch-size', '500'], env);
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), { events: 2_500, batches: 5, accepted: 0, duplicates: 2_500, rejected: [] });
      assert.equal(again.stderr, '', 'no progress without a terminal or --progress');
      noKey(first.stdout, first.stderr, again.stdout, again.stderr);
    },
  );

  it(
    'ingest names each rejected event by its place in the file and exits 1; a line that is not JSON stops it before anything is sent',
    { timeout: TIMEOUT },
    async () => {
      const file = path.join(dir, 'bad.json');
      const at = new Date().toISOString();
      writeFileSync(
        file,
        JSON.stringify([
          { customerId: 'acme', metricName: 'api_calls', quantity: 1, occurredAt: at, eventId: 'ok-1' },
          { customerId: 'acme', metricName: 'api_call', quantity: 1, occurredAt: at, eventId: 'typo-1' },
        ]),
      );
      const broken = path.join(dir, 'broken.ndjson');
      writeFileSync(broken, `${JSON.stringify({ customerId: 'acme', metricName: 'api_calls', quantity: 1, occurredAt: at })}\n{"customerId": \n`);
      // Independent runs (the broken file is refused before anything is sent), side by side.
      const [r, b, without] = await Promise.all([
        runCli(['ingest', file, '--api-key', key], { TOLLGATE_API_URL: server.address }),
        runCli(['ingest', broken], env),
        runCli(['ingest', broken], { TOLLGATE_API_URL: server.address }),
      ]);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stdout, '2 events in 1 batches: 0 accepted, 0 duplicates, 2 rejected.\n');
      assert.match(
        r.stderr,
        new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, item 2: UNKNOWN_METRIC: .*api_call.* \\(events\\[0\\]\\.metricName\\)$`.replace(
            'events\\[0\\]',
            'events\\[1\\]',
          ),
          'm',
        ),
      );
      assert.match(r.stderr, /item 1: BATCH_REFUSED: not stored/);

      assert.equal(b.status, 2);
      assert.match(b.stderr, /broken\.ndjson, line 2, is not JSON/);
      assert.equal(b.stdout, '');

      assert.equal(without.status, 2);
      assert.match(without.stderr, /pass --api-key or set TOLLGATE_API_KEY/);
      noKey(r.stdout, r.stderr);
    },
  );

  it(
    'events tail prints each audit event as it commits, one line each, until Ctrl-C; keys rotate prints the new secret once, and it works',
    { timeout: TIMEOUT },
    async () => {
      const tail = scratch.command(['events', 'tail', '--json'], env);
      await tail.waitFor(/Listening for audit events of ws_\w+ on http:\/\/127\.0\.0\.1:\d+ \(Ctrl-C to stop\)/, TIMEOUT, 'stderr');

      const rotated = await runCli(['keys', 'rotate', productKeyId, '--json'], env);
      assert.equal(rotated.status, 0, rotated.stderr);
      const r = JSON.parse(rotated.stdout);
      assert.equal(r.previousKeyId, productKeyId);
      assert.match(r.id, /^key_/);
      assert.match(r.secret, /^sk_test_[0-9a-f]{32}$/);
      assert.ok(Date.parse(r.previousKeyExpiresAt) > Date.now(), 'the old secret keeps working for its grace period');
      const verified = await server.call('POST', '/v1/keys/verify', key, { key: r.secret });
      assert.equal(verified.body.valid, true);
      assert.equal(verified.body.keyId, r.id);

      // The rotation arrives on the stream as it commits.
      const m = await tail.waitFor(/^(\{"object":"audit_event".*"eventType":"api_key\.rotated".*\})$/m);
      const event = JSON.parse(m[1]!);
      assert.equal(event.targetId, productKeyId);

      // Ctrl-C ends it cleanly.
      assert.deepEqual(await tail.stop('SIGINT'), { code: 0, signal: null }, tail.stderr);
      noKey(tail.stdout, tail.stderr, rotated.stdout);

      const again = await runCli(['keys', 'rotate', productKeyId], env);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /^tollgate: 409 KEY_NOT_ACTIVE: /);
    },
  );

  it(
    "invoices list prints the workspace's invoices as a table, or one JSON line each with --json, by customer and up to --limit",
    { timeout: TIMEOUT },
    async () => {
      const api = await server.call('GET', '/api/v1/invoices?limit=100', key);
      assert.equal(api.status, 200);
      assert.ok(api.body.data.length >= 1, 'the demo subscription was invoiced when it started');
      const first = api.body.data[0];

      const [json, table, none] = await Promise.all([
        runCli(['invoices', 'list', '--json'], env),
        runCli(['invoices', 'list', '--customer', first.customerId, '--limit', '1'], env),
        runCli(['invoices', 'list', '--customer', 'cus_doesnotexist'], env),
      ]);
      assert.equal(json.status, 0, json.stderr);
      assert.deepEqual(
        json.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
        api.body.data,
      );

      assert.equal(table.status, 0, table.stderr);
      const lines = table.stdout.trim().split('\n');
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /^NUMBER\s+ID\s+CUSTOMER\s+STATUS\s+TOTAL\s+PERIOD$/);
      assert.ok(lines[1]!.includes(first.id) && lines[1]!.includes(`${first.total} ${first.currency}`), lines[1]);

      assert.ok(none.status === 0 ? none.stdout === 'No invoices.\n' : /tollgate: 4\d\d /.test(none.stderr), `${none.stdout}${none.stderr}`);
      noKey(json.stdout, table.stdout);
    },
  );
});
