/**
 * The real `tollgate` CLI, spawned as a child process the way an operator runs it
 * (`node packages/server/bin/tollgate.js …` from the repository root). Each group of tests gets
 * its own store: on the SQLite pass a new DATA_DIR, on the PostgreSQL pass
 * (TOLLGATE_TEST_BACKEND=postgres) a new database created on TEST_DATABASE_URL and dropped at the
 * end. So the file runs once per pass, on that pass's backend. REDIS_URL is not passed to these children: the
 * CLI's servers would share the default 'tollgate:' channel with other runs; two processes on one
 * Redis are multi-node.test.ts's subject.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { backend } from './helpers/test-app.js';
import { Scratch, call, consoleSignIn, runCli, type ServeProcess } from './helpers/processes.js';
import { openDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrate.js';
import { countWorkspaces, findWorkspace } from '../src/modules/tenancy/workspace.repository.js';
import { demoDelivery } from './helpers/demo-webhooks.js';

/** Every server, database and temp dir the tests make; the `after` hook below removes them all. */
const scratch = new Scratch('cli');

// --- a fresh database per store ----------------------------------------------------------------

interface Store {
  env: Record<string, string>;
  /** What `migrate` names as the database. */
  describe: RegExp;
  open(): ReturnType<typeof openDatabase>;
}

async function freshStore(): Promise<Store> {
  // Not created yet: the CLI must create it.
  const dataDir = path.join(scratch.tempDir(), 'data');
  if (backend === 'sqlite') {
    return {
      env: { DATA_DIR: dataDir },
      describe: new RegExp(`SQLite ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/tollgate\\.db`),
      open: () => openDatabase({ databaseUrl: null, dataDir }),
    };
  }
  const { name, url } = await scratch.database();
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url },
    describe: new RegExp(`PostgreSQL [^ ]+/${name}`),
    open: () => openDatabase({ databaseUrl: url, poolSize: 1 }),
  };
}

async function workspaceCount(store: Store): Promise<number> {
  const opened = store.open();
  try {
    return await countWorkspaces(opened.db);
  } finally {
    await opened.close();
  }
}

// --- the tests ----------------------------------------------------------------------------------

after(() => scratch.cleanup());

const TIMEOUT = 90_000;

// The three groups use separate stores (and temp dirs), so they run side by side; each group runs in order.
describe(
  `tollgate CLI on ${backend === 'postgres' ? 'PostgreSQL (a fresh database per store)' : 'SQLite (a fresh DATA_DIR per store)'}`,
  { concurrency: 3 },
  () => {
    describe('migrate, workspace and usage errors', { concurrency: 1 }, () => {
      let store: Store;
      let workspaceId: string;
      before(async () => {
        store = await freshStore();
      });

      it('migrate applies the migrations to a new database, then says it is up to date', { timeout: TIMEOUT }, async () => {
        const first = await runCli(['migrate'], store.env);
        assert.equal(first.status, 0, first.stderr);
        assert.ok(first.stdout.startsWith(`Applied ${migrations.map(([name]) => name).join(', ')} to `), first.stdout);
        assert.ok(first.stdout.startsWith('Applied 0001_initial, 0002_usage, '), 'in order');
        assert.match(first.stdout, store.describe);
        const second = await runCli(['migrate'], store.env);
        assert.equal(second.status, 0, second.stderr);
        assert.match(second.stdout, /is up to date\.\n$/);
        assert.match(second.stdout, store.describe);
      });

      it('workspace create --name Acme --json prints the workspace id and its test and live secret keys', { timeout: TIMEOUT }, async () => {
        const r = await runCli(['workspace', 'create', '--name', 'Acme', '--json'], store.env);
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stdout.trim().split('\n');
        assert.equal(lines.length, 1, `one JSON line on stdout, got: ${r.stdout}`);
        const out = JSON.parse(lines[0] as string);
        assert.match(out.workspaceId, /^ws_[0-9a-z]+$/);
        assert.equal(out.name, 'Acme');
        assert.match(out.environments.test.secretKey, /^sk_test_[0-9a-f]{32}$/);
        assert.match(out.environments.live.secretKey, /^sk_live_[0-9a-f]{32}$/);
        assert.match(out.environments.test.keyId, /^key_/);
        assert.match(out.environments.live.keyId, /^key_/);
        const opened = store.open();
        try {
          assert.equal((await findWorkspace(opened.db, out.workspaceId))?.name, 'Acme');
        } finally {
          await opened.close();
        }
        workspaceId = out.workspaceId;
      });

      it('workspace set-rate-limit --id WS --per-minute 5 stores the limit; an unknown id exits non-zero and says so', { timeout: TIMEOUT }, async () => {
        assert.ok(workspaceId, 'needs the workspace created above');
        const [ok, unknown] = await Promise.all([
          runCli(['workspace', 'set-rate-limit', '--id', workspaceId, '--per-minute', '5'], store.env),
          runCli(['workspace', 'set-rate-limit', '--id', 'ws_doesnotexist', '--per-minute', '5'], store.env),
        ]);
        assert.equal(ok.status, 0, ok.stderr);
        assert.equal(ok.stdout, `Workspace ${workspaceId}: 5 requests per minute.\n`);
        const opened = store.open();
        try {
          assert.equal((await findWorkspace(opened.db, workspaceId))?.rateLimitPerMinute, 5);
        } finally {
          await opened.close();
        }
        assert.notEqual(unknown.status, 0);
        assert.match(unknown.stderr, /^tollgate: No workspace ws_doesnotexist\./);
        assert.equal(unknown.stdout, '');
      });

      it(
        'a mistyped command exits 2 with the closest command and one line of usage (not the whole help), touching no database',
        { timeout: TIMEOUT },
        async () => {
          const tmp = scratch.tempDir();
          const dataDir = path.join(tmp, 'data');
          const [typo, sub, far] = await Promise.all([
            runCli(['servee'], { DATA_DIR: dataDir }),
            // Port 9 refuses connections: the usage must come without trying the database.
            runCli(['workspace', 'frobnicate'], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://tollgate@127.0.0.1:9/none' }),
            runCli(['xyzzy'], { DATA_DIR: dataDir }),
          ]);
          for (const r of [typo, sub, far]) {
            assert.equal(r.status, 2, r.stderr);
            assert.equal(r.stdout, '');
            assert.ok(r.stderr.trimEnd().split('\n').length <= 3, `at most 3 lines, got:\n${r.stderr}`);
            assert.doesNotMatch(r.stderr, /set-rate-limit --id/, 'not the list of commands');
          }
          assert.deepEqual(typo.stderr.split('\n'), [
            'tollgate: unknown command: servee',
            'Did you mean `tollgate serve`?',
            'Usage: tollgate <command> [options]; tollgate --help lists the commands',
            '',
          ]);
          assert.deepEqual(sub.stderr.split('\n'), [
            'tollgate: unknown command: workspace frobnicate',
            'tollgate workspace takes one of: create, set-rate-limit.',
            'Usage: tollgate workspace <command> [options]; tollgate help workspace lists them',
            '',
          ]);
          assert.deepEqual(far.stderr.split('\n'), [
            'tollgate: unknown command: xyzzy',
            'Usage: tollgate <command> [options]; tollgate --help lists the commands',
            '',
          ]);
          assert.equal(existsSync(dataDir), false, 'a mistyped command creates no SQLite database');
        },
      );

      it('a command called wrongly prints one line of what is wrong and its usage line, exit 2', { timeout: TIMEOUT }, async () => {
        const env = { DATA_DIR: path.join(scratch.tempDir(), 'data') };
        const [missing, option] = await Promise.all([runCli(['backup'], env), runCli(['backup', 'x.db', '--frob'], env)]);
        assert.equal(missing.status, 2);
        assert.deepEqual(missing.stderr.split('\n'), [
          'tollgate: backup needs FILE, where to write the copy',
          'Usage: tollgate backup FILE [--force] [--progress]; tollgate help backup says more',
          '',
        ]);
        assert.equal(option.status, 2);
        assert.match(option.stderr, /^tollgate: backup: Unknown option '--frob'/);
        assert.equal(option.stderr.trimEnd().split('\n').length, 2, option.stderr);
      });

      it('--help prints the usage on stdout and exits 0', { timeout: TIMEOUT }, async () => {
        const tmp = scratch.tempDir();
        const dataDir = path.join(tmp, 'data');
        const r = await runCli(['--help'], { DATA_DIR: dataDir });
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^Usage: tollgate <command> \[options\]/);
        assert.equal(r.stderr, '');
        assert.equal(existsSync(dataDir), false);
      });

      it(
        '--version prints the package version; help COMMAND, COMMAND --help and a group --help print that usage; a typo gets the closest command',
        { timeout: TIMEOUT },
        async () => {
          const dataDir = path.join(scratch.tempDir(), 'data');
          const env = { DATA_DIR: dataDir };
          const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
          const [version, short, helpDemo, demoHelp, group, create, typo, subTypo] = await Promise.all([
            runCli(['--version'], env),
            runCli(['-v'], env),
            runCli(['help', 'demo'], env),
            runCli(['demo', '--help'], env),
            runCli(['workspace', '--help'], env),
            runCli(['workspace', 'create', '--help'], env),
            runCli(['backpu', 'x.db'], env),
            runCli(['workspace', 'creat', '--name', 'A'], env),
          ]);
          for (const r of [version, short]) {
            assert.equal(r.status, 0, r.stderr);
            assert.equal(r.stdout, `${pkg.version}\n`);
          }
          for (const r of [helpDemo, demoHelp]) {
            assert.equal(r.status, 0, r.stderr);
            assert.match(r.stdout, /^Usage: tollgate demo \[--json\]\n\ncreate a demo workspace and print its keys and console sign-in\n/);
          }
          assert.equal(group.status, 0, group.stderr);
          assert.match(group.stdout, /^Usage: tollgate workspace <command> \[options\]\n/);
          assert.match(group.stdout, /workspace create --name NAME \[--json\]/);
          assert.match(group.stdout, /workspace set-rate-limit --id WS_ID --per-minute N\|default/);
          assert.equal(create.status, 0, create.stderr);
          assert.match(create.stdout, /^Usage: tollgate workspace create --name NAME \[--json\]\n/);
          assert.equal(typo.status, 2);
          assert.deepEqual(typo.stderr.split('\n').slice(0, 2), ['tollgate: unknown command: backpu x.db', 'Did you mean `tollgate backup`?']);
          assert.equal(subTypo.status, 2);
          assert.deepEqual(subTypo.stderr.split('\n').slice(0, 2), [
            'tollgate: unknown command: workspace creat --name A',
            'Did you mean `tollgate workspace create`?',
          ]);
          assert.equal(existsSync(dataDir), false, 'help and typos touch no database');
        },
      );

      it(
        'secrets re-encrypt seals every webhook secret with the new first key; without the old key it names what it cannot open',
        { timeout: TIMEOUT },
        async () => {
          const demoRun = await runCli(['demo', '--json'], store.env);
          assert.equal(demoRun.status, 0, demoRun.stderr);
          const oldKey = readFileSync(path.join(store.env.DATA_DIR!, 'encryption-keys'), 'utf8').trim();
          assert.match(oldKey, /^dev1:/, 'development keeps a generated key in DATA_DIR');
          const generated = await runCli(['secrets', 'generate-key', '--id', 'k2'], store.env);
          assert.equal(generated.status, 0, generated.stderr);
          const newKey = generated.stdout.trim();
          assert.match(newKey, /^k2:[A-Za-z0-9+/]{43}=$/);

          const rotated = await runCli(['secrets', 're-encrypt', '--json'], { ...store.env, TOLLGATE_ENCRYPTION_KEYS: `${newKey},${oldKey}` });
          assert.equal(rotated.status, 0, rotated.stderr);
          const r = JSON.parse(rotated.stdout);
          assert.deepEqual(
            { currentKeyId: r.currentKeyId, total: r.total, reencrypted: r.reencrypted, unreadable: r.unreadable },
            { currentKeyId: 'k2', total: 12, reencrypted: 12, unreadable: [] },
          );
          const opened = store.open();
          try {
            const rows = await opened.db.selectFrom('webhookSources').select(['secretKeyId']).execute();
            assert.deepEqual([...new Set(rows.map((x) => x.secretKeyId))], ['k2']);
          } finally {
            await opened.close();
          }
          const again = await runCli(['secrets', 're-encrypt', '--json'], { ...store.env, TOLLGATE_ENCRYPTION_KEYS: newKey });
          assert.equal(again.status, 0, again.stderr);
          assert.equal(JSON.parse(again.stdout).reencrypted, 0);

          const wrong = await runCli(['secrets', 're-encrypt'], { ...store.env, TOLLGATE_ENCRYPTION_KEYS: oldKey });
          assert.equal(wrong.status, 1);
          assert.match(wrong.stderr, /No configured key opens the secrets of: wsrc_/);
        },
      );

      it('audit export --since prints the events of the range as NDJSON, oldest first; without --since it exits 2', { timeout: TIMEOUT }, async () => {
        const r = await runCli(['audit', 'export', '--since', '2000-01-01T00:00:00Z'], store.env);
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        assert.ok(lines.length > 10, `events of the workspaces made above, got ${lines.length}`);
        const ids = lines.map((e) => e.eventId);
        assert.deepEqual(ids, [...ids].sort(), 'oldest first');
        assert.ok(lines.some((e) => e.eventType === 'system.secrets_reencrypted'));
        for (const e of lines) assert.match(e.eventId, /^evt_/);
        assert.match(r.stderr, new RegExp(`exported ${lines.length} audit events from 2000-01-01T00:00:00.000Z`));
        const none = await runCli(['audit', 'export', '--since', '2000-01-01T00:00:00Z', '--until', '2000-01-02T00:00:00Z'], store.env);
        assert.equal(none.status, 0, none.stderr);
        assert.equal(none.stdout, '');
        const missing = await runCli(['audit', 'export'], store.env);
        assert.equal(missing.status, 2);
        assert.match(missing.stderr, /audit export needs --since/);
      });

      it('the production profile refuses to start without TOLLGATE_ENCRYPTION_KEYS, saying how to make one', { timeout: TIMEOUT }, async () => {
        const r = await runCli(['migrate'], { ...store.env, TOLLGATE_PROFILE: 'production' });
        assert.equal(r.status, 2);
        assert.match(r.stderr, /TOLLGATE_ENCRYPTION_KEYS is required in the production profile/);
      });
    });

    describe('serve and demo', { concurrency: 1 }, () => {
      let store: Store;
      let server: ServeProcess;
      let banner: { workspaceId: string; testSecret: string; testProduct: string; testProductId: string; liveSecret: string };
      let demo: any;
      before(async () => {
        store = await freshStore();
      });

      it('a first serve on an empty store seeds a demo workspace and prints its keys', { timeout: TIMEOUT }, async () => {
        server = await scratch.serve(store.env);
        const m = await server.waitFor(
          /A demo workspace was created \((ws_\w+)\)[\s\S]*test secret key\s+(sk_test_[0-9a-f]{32})\n\s+test product key\s+(sk_test_[0-9a-f]{32})\s+\((key_\w+), bound to (sub_\w+)\)\n\s+test storefront key\s+(pk_test_[0-9a-f]{32})\n\s+live secret key\s+(sk_live_[0-9a-f]{32})\n\s+live product key\s+(sk_live_[0-9a-f]{32})[\s\S]*npx tollgate demo --json\n/,
        );
        banner = { workspaceId: m[1]!, testSecret: m[2]!, testProduct: m[3]!, testProductId: m[4]!, liveSecret: m[7]! };
        assert.match(server.stdout, store.describe);
        // The console's address and the demo admin's sign-in, which works once printed.
        assert.match(server.stdout, new RegExp(`Operator console: ${server.address}/console\\n`));
        const signIn = /console sign-in\s+(\S+)\/console\?workspace=(ws_\w+)\s+e-mail (\S+)\s+password (\S+)\n/.exec(server.stdout);
        assert.ok(signIn, server.stdout);
        assert.equal(signIn[2], banner.workspaceId);
        const session = await consoleSignIn(server.address, signIn[3]!, signIn[4]!);
        assert.equal(session.status, 200, JSON.stringify(session.body));
        assert.equal(session.body.workspace.id, banner.workspaceId);
        assert.equal(session.body.operator.role, 'admin');
        assert.match(server.stdout, /development profile/);

        // The printed keys work against the server that printed them.
        const ws = await call(server.address, 'GET', '/api/v1/workspace', banner.testSecret);
        assert.equal(ws.status, 200);
        assert.equal(ws.body.id, banner.workspaceId);
        assert.equal(ws.body.environment, 'test');
        const live = await call(server.address, 'GET', '/api/v1/workspace', banner.liveSecret);
        assert.equal(live.status, 200);
        assert.equal(live.body.environment, 'live');
        const customers = await call(server.address, 'GET', '/api/v1/customers', banner.testSecret);
        assert.equal(customers.status, 200);
        assert.deepEqual(
          customers.body.data.map((c: { externalId: string }) => c.externalId),
          ['acme'],
        );
        const verified = await call(server.address, 'POST', '/v1/keys/verify', banner.testSecret, { key: banner.testProduct });
        assert.equal(verified.status, 200);
        assert.equal(verified.body.valid, true);
        assert.equal(verified.body.keyId, banner.testProductId);
        assert.equal(await workspaceCount(store), 1);
      });

      it('demo --json prints exactly one JSON object: workspaceId and test and live environments with every key and id', { timeout: TIMEOUT }, async () => {
        assert.ok(server, 'needs the server started above');
        const r = await runCli(['demo', '--json'], store.env);
        assert.equal(r.status, 0, r.stderr);
        assert.ok(r.stdout.endsWith('}\n'), `stdout ends with the object: ${r.stdout}`);
        assert.equal(r.stdout.trim().split('\n').length, 1, `one line on stdout, got: ${r.stdout}`);
        demo = JSON.parse(r.stdout);
        assert.equal(typeof demo, 'object');
        assert.match(demo.workspaceId, /^ws_[0-9a-z]+$/);
        assert.notEqual(demo.workspaceId, banner.workspaceId);
        assert.deepEqual(Object.keys(demo.environments).sort(), ['live', 'test']);
        for (const env of ['test', 'live'] as const) {
          const e = demo.environments[env];
          assert.match(e.secretKey, new RegExp(`^sk_${env}_[0-9a-f]{32}$`), `${env}.secretKey`);
          assert.match(e.productKey, new RegExp(`^sk_${env}_[0-9a-f]{32}$`), `${env}.productKey`);
          assert.notEqual(e.productKey, e.secretKey);
          assert.match(e.productKeyId, /^key_[0-9a-z]+$/, `${env}.productKeyId`);
          assert.match(e.customerId, /^cus_[0-9a-z]+$/, `${env}.customerId`);
          assert.match(e.subscriptionId, /^sub_[0-9a-z]+$/, `${env}.subscriptionId`);
          assert.match(e.productId, /^prod_[0-9a-z]+$/, `${env}.productId`);
          assert.ok(Array.isArray(e.metricNames) && e.metricNames.length > 0, `${env}.metricNames is a non-empty array`);
          for (const n of e.metricNames) assert.equal(typeof n, 'string');
          assert.match(e.storefrontKey, new RegExp(`^pk_${env}_[0-9a-f]{32}$`), `${env}.storefrontKey`);
          assert.equal(e.customerExternalId, 'acme');
          assert.deepEqual(Object.keys(e.webhookSources).sort(), ['chat', 'codeHosting', 'custom', 'email', 'messaging', 'payment']);
          for (const [k, w] of Object.entries<any>(e.webhookSources)) {
            assert.match(w.id, /^wsrc_[0-9a-z]+$/, `${env}.webhookSources.${k}.id`);
            assert.equal(w.url, `/v1/ingest/webhook/${w.id}`);
            assert.ok(typeof w.secret === 'string' && w.secret.length >= 20, `${env}.webhookSources.${k}.secret`);
            assert.ok(Array.isArray(w.eventFilter));
            assert.ok(w.fieldMappings.quantity !== undefined && w.fieldMappings.tenant_id && w.fieldMappings.event_id);
          }
          assert.match(e.webhookSources.email.secret, /-----BEGIN PRIVATE KEY-----/);
        }
        assert.notEqual(demo.environments.test.customerId, demo.environments.live.customerId);
        assert.equal(demo.operator.email, 'admin@example.com');
        assert.equal(typeof demo.operator.password, 'string');
        const session = await consoleSignIn(server.address, demo.operator.email, demo.operator.password);
        // The same e-mail administers two demo workspaces now, each with its own password: the
        // password says which, so no workspaceId is needed.
        assert.equal(session.status, 200, JSON.stringify(session.body));
        assert.equal(session.body.workspace.id, demo.workspaceId);
      });

      it('users create adds an operator who can sign in: a generated password, or one read from stdin', { timeout: TIMEOUT }, async () => {
        assert.ok(banner, 'needs the server started above');
        // Four operators' e-mails, none of them another's: the four commands run side by side.
        const [generated, piped, weak, badRole] = await Promise.all([
          runCli(['users', 'create', '--workspace', banner.workspaceId, '--email', 'Viewer@Example.com', '--role', 'viewer', '--json'], store.env),
          runCli(
            ['users', 'create', '--workspace', banner.workspaceId, '--email', 'piped@example.com', '--password-stdin'],
            store.env,
            30_000,
            'a long piped password\n',
          ),
          runCli(['users', 'create', '--workspace', banner.workspaceId, '--email', 'weak@example.com', '--password-stdin'], store.env, 30_000, 'short\n'),
          runCli(['users', 'create', '--workspace', banner.workspaceId, '--email', 'x@example.com', '--role', 'owner'], store.env),
        ]);
        assert.equal(generated.status, 0, generated.stderr);
        const out = JSON.parse(generated.stdout);
        assert.equal(out.email, 'viewer@example.com');
        assert.equal(out.role, 'viewer');
        assert.match(out.operatorId, /^op_/);
        assert.equal(typeof out.password, 'string');
        const viewer = await consoleSignIn(server.address, 'viewer@example.com', out.password);
        assert.equal(viewer.status, 200);
        assert.equal(viewer.body.operator.role, 'viewer');

        assert.equal(piped.status, 0, piped.stderr);
        assert.match(piped.stdout, /^Operator op_\w+ \(piped@example.com, admin\) can now sign in/);
        assert.doesNotMatch(piped.stdout, /Password/);
        assert.equal((await consoleSignIn(server.address, 'piped@example.com', 'a long piped password')).status, 200);

        assert.equal(weak.status, 2);
        assert.match(weak.stderr, /at least 12 characters long\. \(--password-stdin\)/);
        // Once piped@example.com has its account (above).
        const again = await runCli(['users', 'create', '--workspace', banner.workspaceId, '--email', 'piped@example.com'], store.env);
        assert.equal(again.status, 2);
        assert.match(again.stderr, /already has an operator account/);
        assert.equal(badRole.status, 2);
        assert.match(badRole.stderr, /--role must be admin or viewer/);
      });

      it('the keys demo --json printed work against the running server, each in its own environment', { timeout: TIMEOUT }, async () => {
        assert.ok(demo, 'needs the demo workspace created above');
        const base = server.address;
        for (const env of ['test', 'live'] as const) {
          const e = demo.environments[env];
          const other = demo.environments[env === 'test' ? 'live' : 'test'];

          const ws = await call(base, 'GET', '/api/v1/workspace', e.secretKey);
          assert.equal(ws.status, 200);
          assert.equal(ws.body.id, demo.workspaceId);
          assert.equal(ws.body.environment, env);

          const customers = await call(base, 'GET', '/api/v1/customers', e.secretKey);
          assert.equal(customers.status, 200, JSON.stringify(customers.body));
          const ids = customers.body.data.map((c: { id: string }) => c.id);
          assert.deepEqual(ids, [e.customerId]);
          assert.ok(!ids.includes(other.customerId));

          const sub = await call(base, 'GET', `/api/v1/subscriptions/${e.subscriptionId}`, e.secretKey);
          assert.equal(sub.status, 200);
          assert.equal(sub.body.customerId, e.customerId);
          assert.equal(sub.body.productId, e.productId);

          const metrics = await call(base, 'GET', '/api/v1/metrics', e.secretKey);
          assert.equal(metrics.status, 200);
          assert.deepEqual(metrics.body.data.map((x: { name: string }) => x.name).sort(), [...e.metricNames].sort());

          const storefront = await call(base, 'GET', '/api/v1/storefront-keys', e.secretKey);
          assert.equal(storefront.status, 200);
          assert.deepEqual(
            storefront.body.data.map((k: { hint: string; status: string }) => [k.hint, k.status]),
            [[`pk_${env}_…${e.storefrontKey.slice(-4)}`, 'ACTIVE']],
          );

          const verified = await call(base, 'POST', '/v1/keys/verify', e.secretKey, { key: e.productKey });
          assert.equal(verified.status, 200);
          assert.deepEqual(
            {
              valid: verified.body.valid,
              code: verified.body.code,
              keyId: verified.body.keyId,
              customerId: verified.body.customerId,
              subscriptionId: verified.body.subscriptionId,
              productId: verified.body.productId,
              environment: verified.body.environment,
            },
            {
              valid: true,
              code: 'VALID',
              keyId: e.productKeyId,
              customerId: e.customerId,
              subscriptionId: e.subscriptionId,
              productId: e.productId,
              environment: env,
            },
          );

          // The product key authenticates as itself.
          const self = await call(base, 'GET', `/api/v1/api-keys/${e.productKeyId}`, e.productKey);
          assert.equal(self.status, 200);
          assert.equal(self.body.kind, 'PRODUCT');
          assert.equal(self.body.subscriptionId, e.subscriptionId);

          // A key of one environment sees nothing of the other.
          const cross = await call(base, 'GET', `/api/v1/customers/${other.customerId}`, e.secretKey);
          assert.equal(cross.status, 404);
        }
      });

      it('a signed request to each demo webhook source, made from demo --json alone, becomes usage once', { timeout: TIMEOUT }, async () => {
        assert.ok(demo, 'needs the demo workspace created above');
        const base = server.address;
        for (const env of ['test', 'live'] as const) {
          const e = demo.environments[env];
          for (const key of ['payment', 'messaging', 'email', 'codeHosting', 'chat', 'custom'] as const) {
            const d = demoDelivery(key, e.webhookSources[key], base, e.customerExternalId, Date.now());
            const post = () =>
              fetch(base + d.path, { method: 'POST', headers: d.headers, body: d.body }).then(async (r) => ({
                status: r.status,
                body: (await r.json()) as any,
              }));
            const first = await post();
            assert.equal(first.status, 200, `${env} ${key}: ${JSON.stringify(first.body)}`);
            const accepted = key === 'email' ? first.body.events[0] : first.body;
            assert.equal(accepted.status, 'accepted', `${env} ${key}`);
            assert.equal(accepted.tenant_id, 'acme');
            assert.equal(accepted.quantity, d.quantity);
            const again = await post();
            assert.equal((key === 'email' ? again.body.events[0] : again.body).status, 'duplicate', `${env} ${key} replayed`);
            const tampered = await fetch(base + d.path, { method: 'POST', headers: d.headers, body: d.body.replace('acme', 'acmf') });
            assert.equal(tampered.status, 401, `${env} ${key} tampered`);
          }
          const log = await call(base, 'GET', '/api/v1/webhook-log?limit=100', e.secretKey);
          assert.equal(log.status, 200);
          const counts = (status: string) => log.body.data.filter((x: { status: string }) => x.status === status).length;
          assert.deepEqual([counts('accepted'), counts('duplicate'), counts('rejected')], [6, 6, 6]);
        }
      });

      it('a second serve on the same store keeps the data and seeds no second demo workspace', { timeout: TIMEOUT }, async () => {
        assert.ok(server && banner && demo, 'needs the server and workspaces above');
        const stopped = await server.stop();
        assert.deepEqual(stopped, { code: 0, signal: null }, `SIGTERM shuts down cleanly\nstderr: ${server.stderr}`);
        assert.equal(await workspaceCount(store), 2, 'the seeded demo workspace and the one `demo --json` made');

        const again = await scratch.serve(store.env);
        await again.waitFor(/OpenAPI: http:\/\/127\.0\.0\.1:\d+\/openapi\.json\n/);
        const ws = await call(again.address, 'GET', '/api/v1/workspace', banner.testSecret);
        assert.equal(ws.status, 200);
        assert.equal(ws.body.id, banner.workspaceId);
        const stoppedAgain = await again.stop();
        assert.deepEqual(stoppedAgain, { code: 0, signal: null }, again.stderr);
        assert.doesNotMatch(again.stdout, /demo workspace was created/);
        assert.doesNotMatch(again.stdout, /sk_(test|live)_/);
        assert.equal(await workspaceCount(store), 2);
      });
    });

    describe('first run: backups into new folders, failures in a line, the banner once listening', { concurrency: 1 }, () => {
      /** A stack frame line ("    at main (…)"): expected failures print none. */
      const STACK_FRAME = /^\s+at /m;

      it(
        'backup FILE creates its missing folders (the key file beside it); restore creates a missing DATA_DIR',
        { timeout: TIMEOUT, skip: backend === 'postgres' ? 'backup copies the embedded SQLite database (PostgreSQL: pg_dump, see backup.test.ts)' : false },
        async () => {
          const tmp = scratch.tempDir();
          const env = { DATA_DIR: path.join(tmp, 'data') };
          const migrated = await runCli(['migrate'], env);
          assert.equal(migrated.status, 0, migrated.stderr);
          const file = path.join(tmp, 'backups', 'nightly', 'tollgate.db');
          const backup = await runCli(['backup', file], env);
          assert.equal(backup.status, 0, backup.stderr);
          assert.match(backup.stdout, new RegExp(`^Backed up .* to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
          assert.ok(existsSync(file));
          assert.ok(existsSync(`${file}.encryption-keys`), 'the development key file beside it');

          const restoredDir = path.join(tmp, 'restored', 'deeper');
          const restore = await runCli(['restore', file], { DATA_DIR: restoredDir });
          assert.equal(restore.status, 0, restore.stderr);
          assert.ok(existsSync(path.join(restoredDir, 'tollgate.db')));
          assert.ok(existsSync(path.join(restoredDir, 'encryption-keys')));

          // A folder named as FILE, or a file where a folder must be: said in one line.
          const [folder, blocked] = await Promise.all([runCli(['backup', path.join(tmp, 'backups')], env), runCli(['backup', path.join(file, 'x.db')], env)]);
          assert.equal(folder.status, 1);
          assert.match(folder.stderr, /^tollgate: .*backups is a folder; name the file to write/);
          assert.equal(blocked.status, 1);
          assert.match(blocked.stderr, /^tollgate: cannot create the folder .*tollgate\.db: a file is in the way\n$/);
        },
      );

      it('expected failures print `tollgate: …` (and a hint) without a stack, and exit non-zero', { timeout: TIMEOUT }, async () => {
        const tmp = scratch.tempDir();
        const aFile = path.join(tmp, 'a-file');
        writeFileSync(aFile, 'not a folder');
        const noData = { DATA_DIR: path.join(tmp, 'none') };
        const cases: Array<[string, Promise<Awaited<ReturnType<typeof runCli>>>, RegExp]> = [
          ['backup without a database', runCli(['backup', path.join(tmp, 'b.db')], noData), /^tollgate: No database at .*\nSet DATA_DIR to /],
          ['restore of a missing file', runCli(['restore', path.join(tmp, 'missing.db')], noData), /^tollgate: No file .*missing\.db\.\n$/],
          [
            'DATA_DIR naming a file',
            runCli(['migrate'], { DATA_DIR: aFile }),
            /^tollgate: cannot open the database \(cannot create the folder .*a-file: a file is in the way\)\n$/,
          ],
          [
            'an API command with no server there',
            runCli(['invoices', 'list', '--api-url', 'http://127.0.0.1:9', '--api-key', 'sk_test_x'], noData),
            /^tollgate: cannot reach Tollgate at http:\/\/127\.0\.0\.1:9: .*\nIs the server running there\?/,
          ],
          [
            'a bad setting',
            runCli(['migrate'], { ...noData, PORT: 'eighty' }),
            /^tollgate: PORT must be a whole number, got 'eighty'\nConfiguration comes from the environment/,
          ],
          [
            'ingest of a missing file',
            runCli(['ingest', path.join(tmp, 'none.ndjson'), '--api-key', 'sk_test_x'], noData),
            /^tollgate: cannot open .*none\.ndjson: no such file or directory\n/,
          ],
        ];
        for (const [what, run, expected] of cases) {
          const r = await run;
          assert.notEqual(r.status, 0, what);
          assert.match(r.stderr, expected, `${what}:\n${r.stderr}`);
          assert.doesNotMatch(r.stderr, STACK_FRAME, `${what}: no stack trace`);
          assert.ok(r.stderr.trimEnd().split('\n').length <= 2, `${what}: a line and a hint at most:\n${r.stderr}`);
        }
      });

      it('serve on a port in use says so in a line and creates nothing, so the next start still shows the demo keys', { timeout: TIMEOUT }, async () => {
        const taken = createServer();
        await new Promise<void>((resolve) => taken.listen({ host: '127.0.0.1', port: 0 }, resolve));
        try {
          const port = (taken.address() as { port: number }).port;
          const dataDir = path.join(scratch.tempDir(), 'data');
          const r = await runCli(['serve'], { DATA_DIR: dataDir, PORT: String(port) });
          assert.equal(r.status, 1, r.stderr);
          assert.equal(r.stderr, `tollgate: 127.0.0.1:${port} is already in use\nIs another tollgate serve running? Stop it, or set PORT to a free port.\n`);
          assert.equal(r.stdout, '', 'no banner, no keys');
          assert.equal(existsSync(dataDir), false, 'no database, so no demo workspace whose keys were never shown');
        } finally {
          await new Promise((resolve) => taken.close(resolve));
        }
      });

      it('serve prints nothing on stdout before its banner, and the banner only once the address answers (GET / among it)', { timeout: TIMEOUT }, async () => {
        const server = scratch.spawn({ DATA_DIR: path.join(scratch.tempDir(), 'data'), LOG_LEVEL: 'info' });
        await server.started();
        // Logs before listen are JSON lines; nothing that reads like the banner or a key comes before it.
        const before = server.stdout.slice(0, server.stdout.indexOf('\nTollgate is running at '));
        for (const line of before.split('\n').filter(Boolean)) assert.doesNotThrow(() => JSON.parse(line), `a log line, not: ${line}`);
        assert.doesNotMatch(before, /sk_(test|live)_|Tollgate is running/);
        const root = await fetch(`${server.address}/`);
        assert.equal(root.status, 200);
        const body = (await root.json()) as { links: Array<{ href: string }> };
        assert.ok(body.links.some((l) => l.href === '/docs'));
        await server.waitFor(/A demo workspace was created/);
        assert.ok(server.stdout.indexOf('Tollgate is running at') < server.stdout.indexOf('sk_test_'), 'the keys come after the banner');
        assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.stderr);
      });
    });
  },
);
