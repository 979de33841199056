import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { runStatement, statementText, valuesList } from '../../db/statement-text.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import { idFloor } from '../../lib/ids.js';
import type { Tenant } from '../../lib/tenant.js';
import type { WebhookLogEntry } from './webhook-log.js';
import type { WebhookLogTable } from '../../db/tables/webhook-log.table.js';
import type { LogStatus, VerificationState } from './webhook-outcome.js';

function toEntry(r: Selectable<WebhookLogTable>): WebhookLogEntry {
  return {
    ...r,
    environment: r.environment as Environment,
    receivedAt: Number(r.receivedAt),
    status: r.status as LogStatus,
    verification: r.verification as VerificationState,
    httpStatus: Number(r.httpStatus),
    outcomes: JSON.parse(r.outcomes) as WebhookLogEntry['outcomes'],
    headers: JSON.parse(r.headers) as WebhookLogEntry['headers'],
    bodyEncoding: r.bodyEncoding as 'utf8' | 'base64',
  };
}

/** The columns of an entry, in the order insertLogEntries binds them. */
const LOG_COLUMNS = [
  'id',
  'workspace_id',
  'environment',
  'source_id',
  'source_display_name',
  'received_at',
  'status',
  'verification',
  'http_status',
  'reason_code',
  'reason_message',
  'event_type',
  'outcomes',
  'headers',
  'body',
  'body_encoding',
  'url',
  'replay_of',
  'correlation_id',
] as const;

const ENTRIES_PER_STATEMENT = 200;

/** The insert of `rows` entries: statement text made once per row count (db/statement-text.ts), not built for every group the webhook writer commits. */
const insertText = (rows: number) =>
  statementText(
    `webhook-log.insert ${rows}`,
    () => `insert into webhook_log (${LOG_COLUMNS.join(', ')}) values ${valuesList(`(${LOG_COLUMNS.map(() => '?').join(', ')})`, rows)}`,
  );

/** A group's entries in as few statements as the parameter limits allow (19 a row). */
export async function insertLogEntries(db: Db, entries: readonly WebhookLogEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += ENTRIES_PER_STATEMENT) {
    const chunk = entries.slice(i, i + ENTRIES_PER_STATEMENT);
    const values: unknown[] = [];
    for (const e of chunk)
      values.push(
        e.id,
        e.workspaceId,
        e.environment,
        e.sourceId,
        e.sourceDisplayName,
        e.receivedAt,
        e.status,
        e.verification,
        e.httpStatus,
        e.reasonCode ?? null,
        e.reasonMessage ?? null,
        e.eventType ?? null,
        JSON.stringify(e.outcomes),
        JSON.stringify(e.headers),
        e.body,
        e.bodyEncoding,
        e.url,
        e.replayOf ?? null,
        e.correlationId,
      );
    await runStatement(db, insertText(chunk.length), values);
  }
}

export async function findLogEntry(db: Db, tenant: Tenant, id: string): Promise<WebhookLogEntry | null> {
  const r = await db.selectFrom('webhookLog').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toEntry(r) : null;
}

export interface LogFilter {
  sourceId?: string;
  status?: LogStatus;
  /** Epoch ms, inclusive. */
  receivedFrom?: number;
  /** Epoch ms, exclusive. */
  receivedTo?: number;
}

/** Newest first. Ids are time-sortable, so the time range is read from the same index as the order. */
export async function listLogEntries(db: Db, tenant: Tenant, filter: LogFilter, page: PageParams): Promise<Page<WebhookLogEntry>> {
  let q = db.selectFrom('webhookLog').selectAll().$call(forTenant(tenant));
  if (filter.sourceId !== undefined) q = q.where('sourceId', '=', filter.sourceId);
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  if (filter.receivedFrom !== undefined) q = q.where('id', '>=', idFloor('webhookLogEntry', filter.receivedFrom));
  if (filter.receivedTo !== undefined) q = q.where('id', '<', idFloor('webhookLogEntry', filter.receivedTo));
  const { items, hasMore } = await pageById(q, 'webhookLog', page);
  return { items: items.map(toEntry), hasMore };
}

/** Retention: entries received before the cutoff, every tenant, in chunks so one purge never holds the write lock long. */
export async function deleteLogEntriesBefore(db: Db, cutoff: number, chunk = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await db.selectFrom('webhookLog').select('id').where('id', '<', idFloor('webhookLogEntry', cutoff)).limit(chunk).execute();
    if (ids.length === 0) return total;
    const r = await db
      .deleteFrom('webhookLog')
      .where(
        'id',
        'in',
        ids.map((x) => x.id),
      )
      .executeTakeFirst();
    total += Number(r.numDeletedRows);
    if (ids.length < chunk) return total;
  }
}
