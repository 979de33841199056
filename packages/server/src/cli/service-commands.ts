import { loadConfig } from '../lib/config.js';
import type { Command } from './command.js';
import { operator, withLocalStore } from './local-store.js';

export const serviceCommands: Command[] = [
  {
    path: ['serve'],
    args: '',
    summary: 'start the service (what npm start runs)',
    details:
      'Listens on HOST:PORT (default 127.0.0.1:8080) on the configured database (DATABASE_URL, else SQLite under DATA_DIR),\napplying migrations first. Stops cleanly on SIGINT or SIGTERM.',
    run: async () => {
      const { serve } = await import('../main.js');
      return serve(loadConfig());
    },
  },
  {
    path: ['migrate'],
    args: '[--progress]',
    summary: 'apply database migrations and exit',
    details:
      'Prints the migrations it applied, or that the database is up to date. With --progress (or on a terminal),\neach migration is shown on stderr as it starts.',
    options: { progress: { type: 'boolean' } },
    run: ({ progress }) =>
      withLocalStore(progress, async ({ applied, describe }) => {
        process.stdout.write(applied.length ? `Applied ${applied.join(', ')} to ${describe}.\n` : `${describe} is up to date.\n`);
      }),
  },
  {
    path: ['demo'],
    args: '[--json]',
    summary: 'create a demo workspace and print its keys and console sign-in',
    details:
      '--json prints one JSON object on one line (for scripts); without it, the same object indented.\n' +
      'operator: {email, password} is an admin of the console (/console); the password is shown once.',
    options: { json: { type: 'boolean' } },
    run: ({ values, progress }) =>
      withLocalStore(progress, async ({ composition, correlationId }) => {
        const { createDemoWorkspace } = await import('../demo/create-demo-workspace.js');
        const { createDemoOperator } = await import('../demo/create-demo-operator.js');
        const origin = { actor: operator, source: 'cli', correlationId } as const;
        const workspace = await createDemoWorkspace(composition.deps, origin);
        const demo = { ...workspace, operator: await createDemoOperator(composition.deps, workspace.workspaceId, origin) };
        process.stdout.write(values.json ? `${JSON.stringify(demo)}\n` : `${JSON.stringify(demo, null, 2)}\n`);
      }),
  },
];
