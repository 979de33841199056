import { parseArgs } from 'node:util';
import { destination, pino } from 'pino';
import { ConfigError, loadConfig } from './lib/config.js';
import { bootstrap, StartupError } from './bootstrap.js';
import { serve } from './main.js';
import { createDemoWorkspace } from './demo/create-demo-workspace.js';
import { createWorkspace } from './modules/tenancy/create-workspace.js';
import { setWorkspaceRateLimit } from './modules/tenancy/workspace.repository.js';
import { CREDENTIALS_CHANNEL } from './modules/credentials/credential-cache.js';
import { reencryptSecrets } from './modules/plugs/reencrypt-secrets.js';
import { reencryptEndpointSecrets } from './modules/outbound-webhooks/reencrypt-endpoint-secrets.js';
import { auditEventsBetween } from './modules/audit/audit-event.repository.js';
import { presentAuditEvent } from './modules/audit/audit-event.schema.js';
import { parseIsoTimestamp } from './lib/timestamps.js';
import { formatEncryptionKey, generateEncryptionKey } from './lib/secret-box.js';

const usage = `Usage: tollgate <command> [options]

Commands:
  serve                                   start the service (what npm start runs)
  migrate                                 apply database migrations and exit
  demo [--json]                           create a demo workspace and print its keys
  workspace create --name NAME [--json]   create an empty workspace with its first test and live keys
  workspace set-rate-limit --id WS_ID --per-minute N|default
                                          raise or reset a workspace's requests-per-minute limit
  secrets re-encrypt [--json]             seal every stored webhook secret (sources and endpoints)
                                          with the first key of TOLLGATE_ENCRYPTION_KEYS (after
                                          adding a new key in front)
  secrets generate-key [--id ID]          print a new key entry for TOLLGATE_ENCRYPTION_KEYS
  audit export --since ISO [--until ISO]  print audit events of [since, until) as NDJSON, oldest
                                          first (events are kept 365 days; archive them with this)

Configuration comes from the environment (see the README): DATABASE_URL, DATA_DIR, PORT, …`;

const operator = { type: 'OPERATOR' as const, id: 'cli' };

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${usage}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, sub] = argv;
  const { values } = parseArgs({
    args: argv.slice(['workspace', 'secrets', 'audit'].includes(command ?? '') ? 2 : 1),
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      id: { type: 'string' },
      'per-minute': { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help || !command || ['help', '--help', '-h'].includes(command)) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  // Before touching the database: a mistyped command must not create or migrate one.
  const known =
    ['serve', 'migrate', 'demo'].includes(command) ||
    (command === 'workspace' && ['create', 'set-rate-limit'].includes(sub ?? '')) ||
    (command === 'secrets' && ['re-encrypt', 'generate-key'].includes(sub ?? '')) ||
    (command === 'audit' && sub === 'export');
  if (!known) fail(`Unknown command: ${argv.join(' ')}`);
  if (command === 'secrets' && sub === 'generate-key') {
    const id = values.id ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(id)) fail('--id must be 1-32 letters, digits, _ . or -');
    process.stdout.write(`${formatEncryptionKey(generateEncryptionKey(id))}\n`);
    return;
  }
  let exportRange: { since: number; until: number } | null = null;
  if (command === 'audit') {
    const since = values.since === undefined ? null : parseIsoTimestamp(values.since);
    const until = values.until === undefined ? Date.now() : parseIsoTimestamp(values.until);
    if (since === null) fail('audit export needs --since, an ISO 8601 time with a zone such as 2026-01-01T00:00:00Z');
    if (until === null) fail('--until must be an ISO 8601 time with a zone such as 2026-12-31T00:00:00Z');
    if (until <= since) fail('--until must be later than --since');
    exportRange = { since, until };
  }
  const config = loadConfig();
  if (command === 'serve') return serve(config);

  // stdout carries the command's output (demo --json is parsed by scripts): logs go to stderr. A
  // one-shot command sends no outbound webhooks: the servers do, and it would only cut attempts short.
  const { composition, describe, applied } = await bootstrap(
    { ...config, outboundWebhookSender: false },
    { log: pino({ level: config.logLevel }, destination(2)) },
  );
  const { deps } = composition;
  const correlationId = deps.ids.next('request');
  try {
    if (command === 'migrate') {
      process.stdout.write(applied.length ? `Applied ${applied.join(', ')} to ${describe}.\n` : `${describe} is up to date.\n`);
    } else if (command === 'demo') {
      const demo = await createDemoWorkspace(deps, { actor: operator, source: 'cli', correlationId });
      process.stdout.write(values.json ? `${JSON.stringify(demo)}\n` : `${JSON.stringify(demo, null, 2)}\n`);
    } else if (command === 'workspace' && sub === 'create') {
      if (!values.name) fail('workspace create needs --name');
      const { workspace, keys } = await createWorkspace(deps, { name: values.name, actor: operator, source: 'cli', correlationId });
      const out = {
        workspaceId: workspace.id,
        name: workspace.name,
        environments: { test: { secretKey: keys.test.secretKey, keyId: keys.test.id }, live: { secretKey: keys.live.secretKey, keyId: keys.live.id } },
      };
      if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
      else {
        process.stdout.write(
          `Workspace ${workspace.id} ("${workspace.name}") created.\nThese keys are shown once; only their hashes are stored.\n` +
            `  test secret key  ${keys.test.secretKey}\n  live secret key  ${keys.live.secretKey}\n`,
        );
      }
    } else if (command === 'audit' && exportRange) {
      let n = 0;
      for await (const e of auditEventsBetween(deps.db, exportRange.since, exportRange.until)) {
        const line = `${JSON.stringify({ ...presentAuditEvent(e), tenantId: e.tenantId, environment: e.environment })}\n`;
        if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));
        if (++n % 10_000 === 0) process.stderr.write(`exported ${n} events…\n`);
      }
      process.stderr.write(`exported ${n} audit events from ${new Date(exportRange.since).toISOString()} to ${new Date(exportRange.until).toISOString()}\n`);
    } else if (command === 'secrets' && sub === 're-encrypt') {
      // Webhook sources' secrets, then outbound webhook endpoints' (each in its own transaction, with its audit event).
      const sources = await reencryptSecrets(deps, operator, correlationId);
      const endpoints = await reencryptEndpointSecrets(deps, operator, correlationId);
      const r = {
        currentKeyId: sources.currentKeyId,
        total: sources.total + endpoints.total,
        reencrypted: sources.reencrypted + endpoints.reencrypted,
        unreadable: [...sources.unreadable, ...endpoints.unreadable],
      };
      if (values.json) process.stdout.write(`${JSON.stringify(r)}\n`);
      else {
        process.stdout.write(`${r.reencrypted} of ${r.total} stored secrets re-encrypted with key '${r.currentKeyId}'.\n`);
        if (r.unreadable.length > 0)
          process.stderr.write(`No configured key opens the secrets of: ${r.unreadable.join(', ')}. Add back the key that sealed them, then run this again.\n`);
      }
      if (r.unreadable.length > 0) process.exitCode = 1;
    } else if (command === 'workspace' && sub === 'set-rate-limit') {
      const raw = values['per-minute'];
      if (!values.id || !raw) fail('workspace set-rate-limit needs --id and --per-minute');
      if (raw !== 'default' && !/^[1-9]\d{0,7}$/.test(raw)) fail('--per-minute must be a whole number from 1 to 99999999, or default');
      const perMinute = raw === 'default' ? null : Number(raw);
      if (!(await setWorkspaceRateLimit(deps.db, values.id, perMinute, deps.clock.now()))) fail(`No workspace ${values.id}.`);
      // Running servers cache the limit with each credential; tell them (through Redis when set).
      await deps.bus.publish(CREDENTIALS_CHANNEL, 'cli');
      process.stdout.write(`Workspace ${values.id}: ${perMinute ?? `default (${config.rateLimitPerMinute})`} requests per minute.\n`);
    } else {
      fail(`Unknown command: ${argv.join(' ')}`);
    }
  } finally {
    await composition.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof StartupError) {
    process.stderr.write(`tollgate: ${err.message}\n`);
    process.exit(1);
  }
  if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) fail((err as Error).message);
  process.stderr.write(`tollgate: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
