import type { Command } from './command.js';
import { operator, withLocalStore } from './local-store.js';

export const workspaceCommands: Command[] = [
  {
    path: ['workspace', 'create'],
    args: '--name NAME [--json]',
    summary: 'create an empty workspace with its first test and live keys',
    details:
      'The keys are printed once; only their hashes are stored. --json prints\n{"workspaceId", "name", "environments": {"test": {"secretKey", "keyId"}, "live": {…}}} on one line.',
    options: { name: { type: 'string' }, json: { type: 'boolean' } },
    run: ({ values, fail, progress }) => {
      const name = values.name as string | undefined;
      if (!name) return fail('workspace create needs --name');
      return withLocalStore(progress, async ({ composition, correlationId }) => {
        const { createWorkspace } = await import('../modules/tenancy/create-workspace.js');
        const { workspace, keys } = await createWorkspace(composition.deps, { name, actor: operator, source: 'cli', correlationId });
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
      });
    },
  },
  {
    path: ['workspace', 'set-rate-limit'],
    args: '--id WS_ID --per-minute N|default',
    summary: "raise or reset a workspace's requests-per-minute limit",
    details: 'N is 1 to 99999999; default returns to RATE_LIMIT_PER_MINUTE. Running servers pick the change up at once\n(through Redis when REDIS_URL is set).',
    options: { id: { type: 'string' }, 'per-minute': { type: 'string' } },
    run: ({ values, fail, progress }) => {
      const id = values.id as string | undefined;
      const raw = values['per-minute'] as string | undefined;
      if (!id || !raw) return fail('workspace set-rate-limit needs --id and --per-minute');
      if (raw !== 'default' && !/^[1-9]\d{0,7}$/.test(raw)) return fail('--per-minute must be a whole number from 1 to 99999999, or default');
      const perMinute = raw === 'default' ? null : Number(raw);
      return withLocalStore(progress, async ({ composition: { deps }, config }) => {
        const { setWorkspaceRateLimit } = await import('../modules/tenancy/workspace.repository.js');
        const { CREDENTIALS_CHANNEL } = await import('../modules/credentials/credential-cache.js');
        if (!(await setWorkspaceRateLimit(deps.db, id, perMinute, deps.clock.now()))) {
          process.stderr.write(`tollgate: No workspace ${id}.\n`);
          process.exitCode = 2;
          return;
        }
        // Running servers cache the limit with each credential; tell them (through Redis when set).
        await deps.bus.publish(CREDENTIALS_CHANNEL, 'cli');
        process.stdout.write(`Workspace ${id}: ${perMinute ?? `default (${config.rateLimitPerMinute})`} requests per minute.\n`);
      });
    },
  },
];
