import { parseIsoTimestamp } from '../lib/timestamps.js';
import type { Command } from './command.js';
import { withLocalStore } from './local-store.js';

export const auditCommands: Command[] = [
  {
    path: ['audit', 'export'],
    args: '--since ISO [--until ISO]',
    summary: 'print audit events of [since, until) as NDJSON, oldest\nfirst (events are kept 365 days; archive them with this)',
    details:
      'Reads the database directly (every tenant, and platform events). --until defaults to now. The count so far is\nprinted on stderr every 10,000 events, and the total at the end.\n\nExample: tollgate audit export --since 2026-01-01T00:00:00Z --until 2026-02-01T00:00:00Z > audit-2026-01.ndjson',
    options: { since: { type: 'string' }, until: { type: 'string' } },
    run: ({ values, fail, progress }) => {
      const since = values.since === undefined ? null : parseIsoTimestamp(values.since as string);
      const until = values.until === undefined ? Date.now() : parseIsoTimestamp(values.until as string);
      if (since === null) return fail('audit export needs --since, an ISO 8601 time with a zone such as 2026-01-01T00:00:00Z');
      if (until === null) return fail('--until must be an ISO 8601 time with a zone such as 2026-12-31T00:00:00Z');
      if (until <= since) return fail('--until must be later than --since');
      return withLocalStore(progress, async ({ composition: { deps } }) => {
        const { auditEventsBetween } = await import('../modules/audit/audit-event.repository.js');
        const { presentAuditEvent } = await import('../modules/audit/audit-event.schema.js');
        let n = 0;
        for await (const e of auditEventsBetween(deps.db, since, until)) {
          const line = `${JSON.stringify({ ...presentAuditEvent(e), tenantId: e.tenantId, environment: e.environment })}\n`;
          if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));
          if (++n % 10_000 === 0) process.stderr.write(`exported ${n} events…\n`);
        }
        process.stderr.write(`exported ${n} audit events from ${new Date(since).toISOString()} to ${new Date(until).toISOString()}\n`);
      });
    },
  },
];
