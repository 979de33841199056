import type { Deps } from '../../deps.js';
import type { UsageWriter } from './usage-writer.js';
import type { ErrorCode } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { checkBatch } from './check-batch.js';
import { MAX_BATCH_EVENTS } from './usage-event.js';
import type { UploadLine } from './upload-format.js';

/** Lines checked and written together: one API batch's worth, so a chunk costs what a batch does. */
export const UPLOAD_CHUNK_LINES = MAX_BATCH_EVENTS;
/** The report keeps this many line errors and counts the rejected lines, so its size does not grow with the file. */
export const MAX_REPORTED_ERRORS = 1000;
export const PROGRESS_EVERY_LINES = 10_000;

export interface UploadLineError {
  line: number;
  code: ErrorCode;
  message: string;
  field: string;
}

export interface UploadProgress {
  /** Event lines read (blank lines and the CSV header are not counted): accepted + duplicates + rejected. */
  lines: number;
  accepted: number;
  duplicates: number;
  rejected: number;
}

export interface UploadReport extends UploadProgress {
  /** The first MAX_REPORTED_ERRORS problems of rejected lines, in line order (a line may have several). */
  errors: UploadLineError[];
  errorsTruncated: boolean;
}

export interface UploadOptions {
  /** Called after the chunk that takes `lines` past each multiple of PROGRESS_EVERY_LINES. */
  onProgress?: (progress: UploadProgress) => void;
}

/**
 * Stores a historical upload chunk by chunk. Unlike an API batch it is partially accepted: each
 * chunk's good lines are written and committed before the next chunk is read, and bad lines are
 * reported. Events of any age are taken (not more than 5 minutes ahead); per-line eventIds seen
 * in the last 24 hours are skipped and counted, which makes sending a file again safe.
 */
export async function uploadUsage(
  deps: Deps,
  writer: UsageWriter,
  ctx: OperationContext,
  lines: AsyncIterable<UploadLine>,
  opts: UploadOptions = {},
): Promise<UploadReport> {
  const report: UploadReport = { lines: 0, accepted: 0, duplicates: 0, rejected: 0, errors: [], errorsTruncated: false };

  async function store(chunk: UploadLine[]): Promise<void> {
    const raw: unknown[] = [];
    const lineOf: number[] = [];
    const errors: UploadLineError[] = [];
    for (const l of chunk) {
      if ('rejection' in l) {
        errors.push({ line: l.line, code: l.rejection.code, message: l.rejection.message, field: l.rejection.field });
      } else {
        raw.push(l.event);
        lineOf.push(l.line);
      }
    }
    if (raw.length > 0) {
      const at = (i: number) => `line ${lineOf[i]}`;
      const { resolved, rejected } = await checkBatch(deps.db, ctx, raw, { now: deps.clock.now(), enforceMaxAge: false }, at);
      for (const r of rejected) errors.push({ line: lineOf[r.index]!, code: r.code, message: r.message, field: r.field });
      if (resolved.length > 0) {
        const written = await writer.write({ ctx, events: resolved, source: 'upload', idempotency: null });
        report.accepted += written.body.accepted;
        report.duplicates += written.body.duplicates;
      }
    }
    errors.sort((a, b) => a.line - b.line);
    for (const e of errors) {
      if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push(e);
      else report.errorsTruncated = true;
    }
    // A line may have several problems: rejected counts lines.
    report.rejected += new Set(errors.map((e) => e.line)).size;
    const before = report.lines;
    report.lines += chunk.length;
    if (opts.onProgress && Math.floor(report.lines / PROGRESS_EVERY_LINES) > Math.floor(before / PROGRESS_EVERY_LINES)) {
      const { lines: n, accepted, duplicates, rejected } = report;
      opts.onProgress({ lines: n, accepted, duplicates, rejected });
    }
  }

  let chunk: UploadLine[] = [];
  for await (const line of lines) {
    chunk.push(line);
    if (chunk.length === UPLOAD_CHUNK_LINES) {
      await store(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await store(chunk);
  return report;
}

/** The customer a developer-hub upload is confined to: its id, and its external id when it has one. */
export interface UploadCustomer {
  id: string;
  externalId: string | null;
}

/**
 * Pure: a developer-hub upload's line, for its own customer only. A line without customerId is
 * the customer's; one naming the customer (by id or external id) stays; one naming anyone else is
 * rejected with the same words whether that customer exists or not, so a customer's file can
 * neither count usage against another customer nor learn who the others are.
 */
export function confineToCustomer(line: UploadLine, customer: UploadCustomer): UploadLine {
  if (!('event' in line)) return line;
  const event = line.event;
  // Not an object: the usual checks reject it with their own words.
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return line;
  const given = (event as { customerId?: unknown }).customerId;
  if (given === undefined) return { line: line.line, event: { ...event, customerId: customer.id } };
  if (given === customer.id || (customer.externalId !== null && given === customer.externalId)) return line;
  const field = `line ${line.line}.customerId`;
  const yours = customer.externalId === null ? customer.id : `${customer.id} or ${customer.externalId}`;
  return {
    line: line.line,
    rejection: { code: 'INVALID_EVENT', field, message: `${field} must be your own customer (${yours}), or be left out.` },
  };
}

/** The lines of an upload, each mapped: lazily, so the file is still read a chunk at a time. */
export async function* mapUploadLines(lines: AsyncIterable<UploadLine>, map: (line: UploadLine) => UploadLine): AsyncGenerator<UploadLine> {
  for await (const line of lines) yield map(line);
}
