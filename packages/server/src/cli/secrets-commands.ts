import { formatEncryptionKey, generateEncryptionKey } from '../lib/secret-box.js';
import type { Command } from './command.js';
import { operator, withLocalStore } from './local-store.js';

export const secretsCommands: Command[] = [
  {
    path: ['secrets', 're-encrypt'],
    args: '[--json] [--progress]',
    summary:
      'seal every stored secret (webhook sources and endpoints,\npayment providers) with the first key of TOLLGATE_ENCRYPTION_KEYS (after\nadding a new key in front)',
    details:
      'Key rotation: put the new key first in TOLLGATE_ENCRYPTION_KEYS, keep the old one after it, run this, then remove\nthe old key. Exits 1 naming any source, endpoint or payment provider no configured key opens.',
    options: { json: { type: 'boolean' }, progress: { type: 'boolean' } },
    run: ({ values, progress }) =>
      withLocalStore(progress, async ({ composition: { deps }, correlationId }) => {
        const { reencryptSecrets } = await import('../modules/plugs/reencrypt-secrets.js');
        const { reencryptEndpointSecrets } = await import('../modules/outbound-webhooks/reencrypt-endpoint-secrets.js');
        const { reencryptProviderSecrets } = await import('../modules/payments/reencrypt-provider-secrets.js');
        // Webhook sources' secrets, then outbound webhook endpoints' (each in its own transaction, with its audit event).
        progress.phase('re-encrypting the secrets of webhook sources…');
        const sources = await reencryptSecrets(deps, operator, correlationId);
        progress.phase(`${sources.reencrypted} of ${sources.total} re-encrypted; now those of outbound webhook endpoints…`);
        const endpoints = await reencryptEndpointSecrets(deps, operator, correlationId);
        progress.phase(`${endpoints.reencrypted} of ${endpoints.total} re-encrypted; now those of payment providers…`);
        const providers = await reencryptProviderSecrets(deps, operator, correlationId);
        progress.phase(`${providers.reencrypted} of ${providers.total} re-encrypted.`);
        const r = {
          currentKeyId: sources.currentKeyId,
          total: sources.total + endpoints.total + providers.total,
          reencrypted: sources.reencrypted + endpoints.reencrypted + providers.reencrypted,
          unreadable: [...sources.unreadable, ...endpoints.unreadable, ...providers.unreadable],
        };
        if (values.json) process.stdout.write(`${JSON.stringify(r)}\n`);
        else {
          process.stdout.write(`${r.reencrypted} of ${r.total} stored secrets re-encrypted with key '${r.currentKeyId}'.\n`);
          if (r.unreadable.length > 0)
            process.stderr.write(
              `tollgate: No configured key opens the secrets of: ${r.unreadable.join(', ')}. Add back the key that sealed them, then run this again.\n`,
            );
        }
        if (r.unreadable.length > 0) process.exitCode = 1;
      }),
  },
  {
    path: ['secrets', 'generate-key'],
    args: '[--id ID]',
    summary: 'print a new key entry for TOLLGATE_ENCRYPTION_KEYS',
    details: 'Prints id:base64key (32 random bytes). ID is 1-32 letters, digits, _ . or - (default k<today>, e.g. k20260101).',
    options: { id: { type: 'string' } },
    run: async ({ values, fail }) => {
      const id = (values.id as string | undefined) ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
      if (!/^[A-Za-z0-9_.-]{1,32}$/.test(id)) return fail('--id must be 1-32 letters, digits, _ . or -');
      process.stdout.write(`${formatEncryptionKey(generateEncryptionKey(id))}\n`);
    },
  },
];
