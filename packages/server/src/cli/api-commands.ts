import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MAX_BATCH_EVENTS, TollgateError, type UsageEvent } from '@tollgate/sdk';
import type { Command } from './command.js';
import { API_DETAILS, apiClient, apiOptions, apiTarget, calling } from './api-client.js';
import { tailAuditEvents } from './events-tail.js';

interface FileEvent {
  /** Where it is in the file, for messages: "line 12" (NDJSON) or "item 12" (a JSON array), from 1. */
  at: string;
  event: UsageEvent;
}

/** The usage events of an NDJSON file or a JSON array file; a line that is not JSON ends the command before anything is sent. */
function readEventFile(file: string): FileEvent[] | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return `cannot read ${file}: ${(err as Error).message}`;
  }
  const items: Array<{ at: string; value: unknown }> = [];
  if (text.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return `${file} is not a JSON array: ${(err as Error).message}`;
    }
    if (!Array.isArray(parsed)) return `${file} is not a JSON array`;
    parsed.forEach((value, i) => items.push({ at: `item ${i + 1}`, value }));
  } else {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.trim() === '') continue;
      try {
        items.push({ at: `line ${i + 1}`, value: JSON.parse(lines[i]!) });
      } catch (err) {
        return `${file}, line ${i + 1}, is not JSON: ${(err as Error).message}`;
      }
    }
  }
  const events: FileEvent[] = [];
  for (const [position, { at, value }] of items.entries()) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${file}, ${at}, is not an event object`;
    const event = value as UsageEvent;
    // Without its own eventId an event gets one made from its content and position, so sending the
    // same file again (after an interruption, say) is deduplicated by the server (24 h window).
    const eventId =
      event.eventId ??
      `ingest-${createHash('sha256')
        .update(`${position}:${JSON.stringify(value)}`)
        .digest('hex')
        .slice(0, 40)}`;
    events.push({ at, event: { ...event, eventId } });
  }
  return events;
}

interface Rejection {
  at: string;
  code: string;
  message: string;
  field?: string;
}

export const apiCommands: Command[] = [
  {
    path: ['ingest'],
    args: 'FILE [--batch-size N] [--json] [--progress] [--api-url URL] [--api-key KEY]',
    summary: 'send the usage events of FILE (NDJSON or a JSON array)\nthrough POST /v1/ingest/batch, in batches of up to 1,000',
    details: `Each event is an object as the API takes it: {"customerId", "metricName", "quantity", "occurredAt", "eventId",
"metadata"} (occurredAt defaults to now; eventId to one made from the event's content and position, so sending a
file again counts nothing twice within 24 hours). Each batch carries its own X-Idempotency-Key, kept across retries
(429 and 503 are retried after Retry-After). Prints accepted, duplicate and rejected counts; each rejected event is
named by its line on stderr, and the command then exits 1.
--batch-size N  events per request, 1 to 1000 (default 1000)
--json          the summary as one JSON object
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate ingest usage.ndjson --progress`,
    options: { ...apiOptions, 'batch-size': { type: 'string' }, json: { type: 'boolean' }, progress: { type: 'boolean' } },
    positionals: 1,
    run: ({ values, positionals, fail, progress }) => {
      const [file] = positionals;
      if (!file) return fail('ingest needs FILE, an NDJSON file or a JSON array of usage events');
      const size = Number((values['batch-size'] as string | undefined) ?? MAX_BATCH_EVENTS);
      if (!Number.isInteger(size) || size < 1 || size > MAX_BATCH_EVENTS) return fail(`--batch-size must be a whole number from 1 to ${MAX_BATCH_EVENTS}`);
      const target = apiTarget({ values, fail });
      const events = readEventFile(file);
      if (typeof events === 'string') return fail(events);
      const client = apiClient(target);
      const totals = { events: events.length, batches: 0, accepted: 0, duplicates: 0, rejected: [] as Rejection[] };
      const report = () => {
        if (values.json) process.stdout.write(`${JSON.stringify(totals)}\n`);
        else {
          const n = (x: number) => x.toLocaleString('en-US');
          process.stdout.write(
            `${n(totals.events)} events in ${n(totals.batches)} batches: ${n(totals.accepted)} accepted, ${n(totals.duplicates)} duplicates, ${n(totals.rejected.length)} rejected.\n`,
          );
        }
      };
      return calling(target, async () => {
        try {
          for (let start = 0; start < events.length; start += size) {
            const batch = events.slice(start, start + size);
            try {
              const r = await client.ingestBatch(batch.map((e) => e.event));
              totals.accepted += r.accepted;
              totals.duplicates += r.duplicates;
              for (const x of r.rejected)
                totals.rejected.push({ at: batch[x.index]?.at ?? `event ${start + x.index}`, code: x.code, message: x.message, field: x.field });
            } catch (err) {
              // 400: the server refused the whole batch, naming its events by index; nothing of it is stored.
              if (!(err instanceof TollgateError) || err.status !== 400) throw err;
              const named = err.errors.filter((e) => e.index !== undefined);
              for (const e of named)
                totals.rejected.push({ at: batch[e.index!]?.at ?? `event ${start + e.index!}`, code: e.code, message: e.message, field: e.field });
              for (const [i, b] of batch.entries()) {
                if (!named.some((e) => e.index === i))
                  totals.rejected.push({ at: b.at, code: 'BATCH_REFUSED', message: 'not stored: another event of its batch was refused' });
              }
            }
            totals.batches++;
            progress.update('sent', Math.min(start + size, events.length), events.length);
          }
        } finally {
          progress.end();
        }
        for (const r of totals.rejected) process.stderr.write(`${file}, ${r.at}: ${r.code}: ${r.message}${r.field ? ` (${r.field})` : ''}\n`);
        report();
        if (totals.rejected.length > 0) process.exitCode = 1;
      });
    },
  },
  {
    path: ['keys', 'rotate'],
    args: 'ID [--json] [--api-url URL] [--api-key KEY]',
    summary: 'rotate a customer API key (key_…) and print its new secret, once',
    details: `The old secret keeps working for its grace period (printed), then stops. A lost answer is not retried: the new
secret is shown only in it (rotate again if it never arrives).
--json  {"id", "secret", "previousKeyId", "previousKeyExpiresAt"} on one line
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate keys rotate key_01hxyz…`,
    options: { ...apiOptions, json: { type: 'boolean' } },
    positionals: 1,
    run: ({ values, positionals, fail }) => {
      const [id] = positionals;
      if (!id) return fail('keys rotate needs ID, the key to rotate (key_…)');
      const target = apiTarget({ values, fail });
      return calling(target, async () => {
        const r = await apiClient(target).apiKeys.rotate(id);
        const out = { id: r.id, secret: r.fullToken, previousKeyId: r.previousKeyId, previousKeyExpiresAt: r.previousKeyExpiresAt };
        if (values.json) {
          process.stdout.write(`${JSON.stringify(out)}\n`);
          return;
        }
        process.stdout.write(`Key ${r.previousKeyId} rotated; the new key is ${r.id}.\n`);
        if (r.fullToken) process.stdout.write(`Its secret, shown once (only its hash is stored):\n  ${r.fullToken}\n`);
        process.stdout.write(
          r.previousKeyExpiresAt ? `The old secret keeps working until ${r.previousKeyExpiresAt}, then stops.\n` : 'The old secret stopped working at once.\n',
        );
      });
    },
  },
  {
    path: ['events', 'tail'],
    args: '[--json] [--api-url URL] [--api-key KEY]',
    summary: "print the workspace's audit events live, one line each,\nuntil Ctrl-C (GET /api/v1/events/stream)",
    details: `Each event as it commits: time, type, actor and target (--json: the event as one JSON line). A dropped connection
is resumed after the last event received (Last-Event-ID), so none is missed or printed twice.
The key needs the events:read scope.
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate events tail --json | grep api_key.`,
    options: { ...apiOptions, json: { type: 'boolean' } },
    run: ({ values, fail }) => {
      const target = apiTarget({ values, fail });
      return calling(target, () => tailAuditEvents(target, values.json === true));
    },
  },
  {
    path: ['invoices', 'list'],
    args: '[--customer ID] [--limit N] [--json] [--api-url URL] [--api-key KEY]',
    summary: 'list invoices, newest first, as a table or NDJSON',
    details: `--customer ID  only this customer's (its cus_… id)
--limit N      at most N invoices (default 20, up to 10000), read in pages of up to 100
--json         one invoice per line, as the API returns it
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate invoices list --limit 5`,
    options: { ...apiOptions, customer: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    run: ({ values, fail }) => {
      const limit = Number((values.limit as string | undefined) ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) return fail('--limit must be a whole number from 1 to 10000');
      const target = apiTarget({ values, fail });
      return calling(target, async () => {
        const client = apiClient(target);
        type Invoice = Awaited<ReturnType<typeof client.invoices.list>>['data'][number];
        const rows: Invoice[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await client.invoices.list({
            limit: Math.min(100, limit - rows.length),
            customerId: values.customer as string | undefined,
            startingAfter: after,
          });
          rows.push(...page.data);
          if (!page.hasMore || page.data.length === 0 || rows.length >= limit) break;
          after = page.data[page.data.length - 1]!.id;
        }
        if (values.json) {
          process.stdout.write(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
          return;
        }
        if (rows.length === 0) {
          process.stdout.write('No invoices.\n');
          return;
        }
        const table = [
          ['NUMBER', 'ID', 'CUSTOMER', 'STATUS', 'TOTAL', 'PERIOD'],
          ...rows.map((r) => [
            r.number ?? '(draft)',
            r.id,
            r.customerId,
            r.status,
            `${r.total} ${r.currency}`,
            `${r.periodStart.slice(0, 10)} – ${r.periodEnd.slice(0, 10)}`,
          ]),
        ];
        const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
        process.stdout.write(
          table
            .map(
              (row) =>
                row
                  .map((cell, c) => cell.padEnd(widths[c]!))
                  .join('  ')
                  .trimEnd() + '\n',
            )
            .join(''),
        );
      });
    },
  },
];
