import { createServer } from 'node:net';
import type { Config } from './lib/config.js';
import { buildApp } from './app.js';
import { warmCompiledSchemas } from './http/lazy-schemas.js';
import { bootstrap } from './bootstrap.js';
import { schedulePruning } from './jobs/prune-expired.js';
import { scheduleAuditRetention } from './jobs/purge-audit-events.js';
import { scheduleBilling } from './jobs/run-billing.js';
import { countWorkspaces } from './modules/tenancy/workspace.repository.js';
import { createDemoWorkspace, type DemoWorkspace } from './demo/create-demo-workspace.js';
import { WIDGET_DEMO_PATH } from './demo/widget-demo-page.js';
import { createDemoOperator, type DemoOperator } from './demo/create-demo-operator.js';

/**
 * Fails (EADDRINUSE, EACCES, ENOTFOUND: the CLI says so in a line) when HOST:PORT cannot be
 * listened on, before anything is migrated or created: the demo workspace's keys are printed once,
 * after listen, so a start that cannot serve must not seed it. A port taken in between is still
 * reported by listen itself.
 */
async function checkCanListen(config: Config): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host: config.host, port: config.port }, () => resolve());
  });
  await new Promise((resolve) => probe.close(resolve));
}

/** read config -> open storage -> build app -> listen. */
export async function serve(config: Config): Promise<void> {
  await checkCanListen(config);
  // Loaded only when asked for: a server without it never loads the fake.
  const devStripe = config.stripeFake ? await (await import('./demo/dev-stripe.js')).startDevStripe() : null;
  if (devStripe) config = { ...config, stripeApiBase: devStripe.fake.apiBase };
  const { composition, describe } = await bootstrap(config);
  const { deps } = composition;
  let demo: DemoWorkspace | null = null;
  let demoOperator: DemoOperator | null = null;
  if (config.seedDemo && (await countWorkspaces(deps.db)) === 0) {
    const origin = { actor: { type: 'SYSTEM', id: 'seed' }, source: 'system', correlationId: deps.ids.next('request') } as const;
    demo = await createDemoWorkspace(deps, origin);
    demoOperator = await createDemoOperator(deps, demo.workspaceId, origin);
  }
  // A node survives what it cannot prevent (a database restart mid-query, say); a promise
  // nobody awaited must not end it. Such a rejection is a bug, logged as one.
  process.on('unhandledRejection', (err) => deps.log.error({ err }, 'unhandled promise rejection (a bug: please report it)'));
  const app = await buildApp(composition, { demo });
  // Before the first request: the first batch after a start costs what any other does.
  await composition.usage.warm().catch((err: unknown) => deps.log.warn({ err }, 'usage writer not warm yet; /ready says so until it is'));
  const stopPruning = schedulePruning(deps);
  const stopRetention = scheduleAuditRetention(deps);
  const stopBilling = scheduleBilling(deps);
  const address = await app.listen({ host: config.host, port: config.port });
  devStripe?.deliverTo(deps, address);
  // Route schemas compile at their first use (http/lazy-schemas.ts); the rest compile now, in
  // slices between requests, so a route's first request rarely pays for it.
  const stopWarming = warmCompiledSchemas((err) => deps.log.error({ err }, 'a route schema does not compile (a bug: please report it)'));
  deps.log.info({ address, storage: describe, profile: config.profile }, `Tollgate listening on ${address}`);
  process.stdout.write(`\nTollgate is running at ${address} (${describe}, ${config.profile} profile).\n`);
  process.stdout.write(`API reference: ${address}/docs   OpenAPI: ${address}/openapi.json\n`);
  process.stdout.write(
    `Operator console: ${address}/console${demo ? '' : '   (sign in; add an operator with: npx tollgate users create --workspace ws_… --email …)'}\n`,
  );
  if (demo && demoOperator) process.stdout.write(demoBanner(address, demo, demoOperator, config.profile));
  if (devStripe) process.stdout.write((await import('./demo/dev-stripe.js')).devStripeBanner(devStripe.fake.apiBase));

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    deps.log.info({ signal }, 'shutting down');
    stopWarming();
    stopPruning();
    stopRetention();
    stopBilling();
    await app.close();
    await composition.close();
    await devStripe?.fake.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

function demoBanner(address: string, demo: DemoWorkspace, op: DemoOperator, profile: Config['profile']): string {
  const t = demo.environments.test;
  const l = demo.environments.live;
  return `
A demo workspace was created (${demo.workspaceId}). These keys and the password are shown once; only their hashes are stored.

  console sign-in      ${address}/console?workspace=${demo.workspaceId}   e-mail ${op.email}   password ${op.password}

  test secret key      ${t.secretKey}
  test product key     ${t.productKey}   (${t.productKeyId}, bound to ${t.subscriptionId})
  test storefront key  ${t.storefrontKey}
  live secret key      ${l.secretKey}
  live product key     ${l.productKey}   (${l.productKeyId}, bound to ${l.subscriptionId})
  live storefront key  ${l.storefrontKey}

Try it:

  export TOLLGATE_KEY=${t.secretKey}
  curl -s ${address}/api/v1/customers -H "Authorization: Bearer $TOLLGATE_KEY"
  curl -s -X POST ${address}/v1/keys/verify -H "Authorization: Bearer $TOLLGATE_KEY" \\
       -H 'Content-Type: application/json' -d '{"key": "${t.productKey}"}'
  curl -s -X POST ${address}/api/v1/api-keys/${t.productKeyId}/rotate -H "Authorization: Bearer $TOLLGATE_KEY"
  curl -s ${address}/api/v1/portal/headless/config -H "X-Storefront-Key: ${t.storefrontKey}"

The demo's pricing page (four offerings, all eight pricing models): ${address}${t.pricingPagePath}
${profile === 'development' ? `The demo customer's account page with the upgrade/cancel widget: ${address}${WIDGET_DEMO_PATH}\n` : ''}
Another demo workspace at any time: npx tollgate demo --json
`;
}
