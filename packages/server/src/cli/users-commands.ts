import { randomBytes } from 'node:crypto';
import type { Command } from './command.js';
import { operator, withLocalStore } from './local-store.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** 20 characters from 15 random bytes (base64url): about 120 bits, easy to paste. */
const generatedPassword = () => randomBytes(15).toString('base64url');

export const usersCommands: Command[] = [
  {
    path: ['users', 'create'],
    args: '--workspace WS_ID --email EMAIL [--name NAME] [--role admin|viewer] [--password-stdin] [--json]',
    summary: "create an operator account: a person who signs in to the workspace's console",
    details:
      'The role is admin (default) or viewer (reads only). Without --password-stdin a password is generated and printed once;\n' +
      'with it, the first line of standard input is the password (at least 12 characters), so it stays out of the shell history.\n' +
      'More operators can be invited from the console (Operators) or with POST /api/v1/operator_invitations.\n' +
      'Example: tollgate users create --workspace ws_… --email ada@example.com --role admin',
    options: {
      workspace: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    run: async ({ values, fail, progress }) => {
      const workspaceId = values.workspace as string | undefined;
      const email = values.email as string | undefined;
      const role = (values.role as string | undefined) ?? 'admin';
      if (!workspaceId || !email) return fail('users create needs --workspace and --email');
      if (role !== 'admin' && role !== 'viewer') return fail(`--role must be admin or viewer, got '${role}'`);
      const generated = values['password-stdin'] ? null : generatedPassword();
      const password = generated ?? (await readStdin());
      const name = (values.name as string | undefined) ?? email.split('@')[0] ?? email;
      return withLocalStore(progress, async ({ composition: { deps }, correlationId }) => {
        const { createOperator } = await import('../modules/operators/create-operator.js');
        const { AppError } = await import('../lib/errors.js');
        try {
          const created = await createOperator(deps, { workspaceId, email, name, role, password }, { actor: operator, correlationId, source: 'cli' }, '--');
          const out = { operatorId: created.id, workspaceId, email: created.email, role: created.role, password: generated };
          if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
          else {
            process.stdout.write(`Operator ${created.id} (${created.email}, ${created.role}) can now sign in to the console of ${workspaceId}.\n`);
            if (generated) process.stdout.write(`Password (shown once; only its hash is stored): ${generated}\n`);
          }
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          // The password arrives on stdin, so that is the option to name.
          const field = err.details[0]?.field?.replace(/^--password$/, '--password-stdin');
          process.stderr.write(`tollgate: ${err.message}${field ? ` (${field})` : ''}\n`);
          process.exitCode = 2;
        }
      });
    },
  },
];
