import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MAX_BATCH_EVENTS, TollgateError, type UsageEvent } from '@tollgate/sdk';
import type { CommandContext } from './command.js';
import { apiClient, apiTarget, calling } from './api-client.js';
import { tailAuditEvents } from './events-tail.js';
import { describeFailure } from './failure.js';

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
    return describeFailure(err)?.message ?? `cannot read ${file}: ${(err as Error).message}`;
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

/** `tollgate ingest FILE`. */
export function ingest({ values, positionals, fail, progress }: CommandContext): Promise<void> {
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
}

/** `tollgate keys rotate ID`. */
export function rotateKey({ values, positionals, fail }: CommandContext): Promise<void> {
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
}

/** `tollgate events tail`. */
export function tailEvents({ values, fail }: CommandContext): Promise<void> {
  const target = apiTarget({ values, fail });
  return calling(target, () => tailAuditEvents(target, values.json === true));
}

/** `tollgate invoices list`. */
export function listInvoices({ values, fail }: CommandContext): Promise<void> {
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
}
