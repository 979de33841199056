import secureJson from 'secure-json-parse';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { describeJsonProblem, findJsonProblem } from '../../lib/json-limits.js';
import { MAX_METADATA_KEYS } from './usage-event.js';

/**
 * Reading a bulk upload (NDJSON or CSV) line by line in bounded memory. Nothing here touches the
 * database: each line becomes either a raw event, checked later like an API event, or a rejection.
 */

export type UploadFormat = 'ndjson' | 'csv';

/**
 * Longest line (NDJSON) or record (CSV) read; longer ones are rejected, never buffered. The
 * largest valid event in plain ASCII (metadata of 32,768 characters of keys and strings, 256
 * values) is about 42 KB; escaped or multi-byte characters can make a valid event longer than a
 * line, as they could before metadata nested.
 */
export const MAX_LINE_BYTES = 64 * 1024;

export interface LineRejection {
  code: ErrorCode;
  message: string;
  field: string;
}

/** One line of the upload: an event to check, or why it cannot be one. `line` counts from 1. */
export type UploadLine = { line: number; event: unknown } | { line: number; rejection: LineRejection };

type PhysicalLine = { line: number; text: string } | { line: number; problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Splits a byte stream on LF (a trailing CR is dropped), decoding each line as strict UTF-8.
 * Memory stays bounded: a line longer than maxBytes is discarded as it arrives and reported.
 * (node:readline would buffer a line of any length, so one newline-free body could exhaust memory.)
 */
export async function* physicalLines(body: AsyncIterable<Buffer | string>, maxBytes = MAX_LINE_BYTES): AsyncGenerator<PhysicalLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let line = 1;
  const finish = (): PhysicalLine => {
    const n = line++;
    if (tooLong) {
      tooLong = false;
      return { line: n, problem: `is longer than ${maxBytes} bytes` };
    }
    const bytes = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    let text: string;
    try {
      // The decoder drops a UTF-8 byte order mark at the start of each line it decodes.
      text = utf8.decode(bytes.subarray(0, end));
    } catch {
      return { line: n, problem: 'is not valid UTF-8' };
    }
    // PostgreSQL's text type refuses NUL, so such a line could only fail in a query.
    return text.includes('\0') ? { line: n, problem: 'contains a NUL character, which cannot be stored' } : { line: n, text };
  };
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      const end = nl === -1 ? buf.length : nl;
      if (!tooLong && end > start) {
        if (size + (end - start) > maxBytes) {
          tooLong = true;
          parts = [];
          size = 0;
        } else {
          // A copy, so a kept slice does not pin the whole chunk.
          parts.push(Buffer.from(buf.subarray(start, end)));
          size += end - start;
        }
      }
      if (nl === -1) break;
      yield finish();
      start = nl + 1;
    }
  }
  if (size > 0 || tooLong) yield finish();
}

// ---------------------------------------------------------------------------------------------
// NDJSON

function ndjsonLine(line: number, text: string): UploadLine | null {
  if (text.trim() === '') return null;
  const at = `line ${line}`;
  let event: unknown;
  try {
    // Prototype-poisoning keys are refused, as in API bodies.
    event = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    return { line, rejection: { code: 'INVALID_EVENT', field: at, message: `${at} is not valid JSON: ${(err as Error).message}.` } };
  }
  // The API bodies' limits: no \u0000, at most MAX_JSON_DEPTH levels.
  const problem = findJsonProblem(event, at);
  if (!problem) return { line, event };
  const { field, message } = describeJsonProblem(problem, at);
  return { line, rejection: { code: 'INVALID_EVENT', field, message } };
}

async function* ndjsonLines(body: AsyncIterable<Buffer | string>): AsyncGenerator<UploadLine> {
  for await (const p of physicalLines(body)) {
    if ('problem' in p) {
      yield { line: p.line, rejection: { code: 'INVALID_EVENT', field: `line ${p.line}`, message: `line ${p.line} ${p.problem}.` } };
      continue;
    }
    const out = ndjsonLine(p.line, p.text);
    if (out) yield out;
  }
}

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180: comma-separated, fields with commas, quotes or line breaks quoted, "" for a quote)

export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

const QUOTE = 0x22;

/**
 * Pure: assembles CSV records from physical lines, carrying a quoted field across line breaks.
 * A record is named by the line it starts on. A malformed record is reported and dropped, and
 * reading resumes at the next line.
 */
export class CsvRecordReader {
  private fields: string[] = [];
  private field = '';
  private quoted = false;
  private startLine = 0;
  private size = 0;

  constructor(private readonly maxChars = MAX_LINE_BYTES) {}

  /** Feeds one line (without its line break); returns the record it completes, if any. */
  push(line: number, text: string): CsvRecord | null {
    if (this.quoted) {
      this.field += '\n';
    } else {
      if (text === '') return null; // blank lines between records are skipped
      this.startLine = line;
      this.fields = [];
      this.field = '';
      this.size = 0;
    }
    this.size += text.length + 1;
    if (this.size > this.maxChars) return this.fail(`is longer than ${this.maxChars} characters${this.quoted ? ' (is a quote left open?)' : ''}`);
    let i = 0;
    for (;;) {
      if (this.quoted) {
        const q = text.indexOf('"', i);
        if (q === -1) {
          this.field += text.slice(i);
          return null; // the quoted field goes on to the next line
        }
        this.field += text.slice(i, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          this.field += '"';
          i = q + 2;
          continue;
        }
        this.quoted = false;
        i = q + 1;
        if (i < text.length && text[i] !== ',') {
          return this.fail(
            `has ${JSON.stringify(text[i])} after the closing quote of field ${this.fields.length + 1}; a quoted field ends at a comma or the end of the line`,
          );
        }
        this.fields.push(this.field);
        this.field = '';
        if (i === text.length) return this.done();
        i += 1;
      }
      if (text.charCodeAt(i) === QUOTE) {
        this.quoted = true;
        i += 1;
        continue;
      }
      const comma = text.indexOf(',', i);
      const value = comma === -1 ? text.slice(i) : text.slice(i, comma);
      if (value.includes('"')) {
        return this.fail(`has a quote inside field ${this.fields.length + 1}, which does not start with one; quote the whole field and double its quotes ("")`);
      }
      this.fields.push(value);
      if (comma === -1) return this.done();
      i = comma + 1;
    }
  }

  /** A line that could not be read at all (too long, not UTF-8): it ends any record under way. */
  skip(line: number, problem: string): CsvRecord {
    if (!this.quoted) this.startLine = line;
    return this.fail(problem);
  }

  /** At the end of the body: a quote still open is an error of the record it began. */
  end(): CsvRecord | null {
    return this.quoted ? this.fail('has a quoted field that is never closed') : null;
  }

  private done(): CsvRecord {
    const fields = this.fields;
    this.fields = [];
    return { line: this.startLine, fields };
  }

  private fail(error: string): CsvRecord {
    this.quoted = false;
    this.fields = [];
    this.field = '';
    return { line: this.startLine, error };
  }
}

async function* csvRecords(body: AsyncIterable<Buffer | string>): AsyncGenerator<CsvRecord> {
  const reader = new CsvRecordReader();
  for await (const p of physicalLines(body)) {
    const r = 'problem' in p ? reader.skip(p.line, p.problem) : reader.push(p.line, p.text);
    if (r) yield r;
  }
  const last = reader.end();
  if (last) yield last;
}

const REQUIRED_COLUMNS = ['customerId', 'metricName', 'quantity', 'occurredAt'] as const;
const COLUMNS_HELP = 'Columns: customerId, metricName, quantity, occurredAt (required), eventId, and metadata.<key> for each metadata key.';
/** Strictly a decimal number (an exponent allowed, as in JSON): no spaces, separators, hex or words. */
const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

type Column = { kind: 'field'; name: string } | { kind: 'metadata'; key: string };

/**
 * Checks the header row: every required column once, nothing unknown. A problem is a 400.
 * `optional` names required columns a caller fills in itself (the hub's customerId).
 */
export function parseCsvHeader(fields: readonly string[], optional: readonly string[] = []): Column[] {
  const bad = (column: string, message: string) =>
    new AppError('VALIDATION_FAILED', `The CSV header ${message} ${COLUMNS_HELP}`, { field: `header.${column}` });
  const seen = new Set<string>();
  let metadataColumns = 0;
  const columns = fields.map((name): Column => {
    if (seen.has(name)) throw bad(name, `names the column ${JSON.stringify(name)} twice.`);
    seen.add(name);
    if (name.startsWith('metadata.')) {
      const key = name.slice('metadata.'.length);
      if (key.length === 0 || key.length > 40) throw bad(name, `has the column ${JSON.stringify(name)}: a metadata key is 1 to 40 characters.`);
      if (key === '__proto__') throw bad(name, `has the column ${JSON.stringify(name)}, which is not allowed as a metadata key.`);
      if (++metadataColumns > MAX_METADATA_KEYS) throw bad(name, `has more than ${MAX_METADATA_KEYS} metadata columns.`);
      return { kind: 'metadata', key };
    }
    if ((REQUIRED_COLUMNS as readonly string[]).includes(name) || name === 'eventId') return { kind: 'field', name };
    throw bad(name, `has an unknown column ${JSON.stringify(name)}.`);
  });
  for (const name of REQUIRED_COLUMNS) {
    if (!seen.has(name) && !optional.includes(name)) throw bad(name, `has no ${JSON.stringify(name)} column, which is required.`);
  }
  return columns;
}

/**
 * Pure: one CSV record as the API's event object. Empty cells are left out (a required one then
 * reads as missing); quantity is parsed from text, strictly; metadata values stay strings.
 */
export function csvEvent(columns: readonly Column[], line: number, fields: readonly string[]): UploadLine {
  const at = `line ${line}`;
  if (fields.length !== columns.length) {
    return { line, rejection: { code: 'INVALID_EVENT', field: at, message: `${at} has ${fields.length} fields; the header has ${columns.length}.` } };
  }
  const event: Record<string, unknown> = {};
  let metadata: Record<string, string> | null = null;
  for (let i = 0; i < columns.length; i++) {
    const value = fields[i]!;
    if (value === '') continue;
    const column = columns[i]!;
    if (column.kind === 'metadata') {
      (metadata ??= {})[column.key] = value;
    } else if (column.name === 'quantity') {
      if (!DECIMAL.test(value)) {
        const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
        return {
          line,
          rejection: {
            code: 'INVALID_QUANTITY',
            field: `${at}.quantity`,
            message: `${at}.quantity must be a decimal number such as 12 or 0.25 (got ${shown}).`,
          },
        };
      }
      event.quantity = Number(value);
    } else {
      event[column.name] = value;
    }
  }
  if (metadata) event.metadata = metadata;
  return { line, event };
}

async function* csvLines(records: AsyncIterator<CsvRecord>, columns: Column[]): AsyncGenerator<UploadLine> {
  for (;;) {
    const next = await records.next();
    if (next.done) return;
    const r = next.value;
    if ('error' in r) {
      const at = `line ${r.line}`;
      yield { line: r.line, rejection: { code: 'INVALID_EVENT', field: at, message: `${at} ${r.error}.` } };
    } else {
      yield csvEvent(columns, r.line, r.fields);
    }
  }
}

/**
 * Turns a stream error (the client went away, the connection broke) into a 400 that says how far
 * the upload got; the chunks committed before it stay stored.
 */
async function* interruptible(lines: AsyncIterable<UploadLine>): AsyncGenerator<UploadLine> {
  let last = 0;
  try {
    for await (const l of lines) {
      last = l.line;
      yield l;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      'INVALID_REQUEST',
      `The upload was interrupted after line ${last} (${(err as Error).message}). Chunks of 1,000 lines completed before that are stored; send the file again with eventIds to skip them.`,
      { cause: err },
    );
  }
}

/**
 * Opens an upload: for CSV, reads and checks the header first, so a bad header is a 400 before
 * anything is stored or any response is started.
 */
export async function openUpload(
  format: UploadFormat,
  body: AsyncIterable<Buffer | string>,
  optionalColumns: readonly string[] = [],
): Promise<AsyncIterable<UploadLine>> {
  if (format === 'ndjson') return interruptible(ndjsonLines(body));
  const records = csvRecords(body);
  let first: IteratorResult<CsvRecord>;
  try {
    first = await records.next();
  } catch (err) {
    throw new AppError('INVALID_REQUEST', `The upload was interrupted before its header was read (${(err as Error).message}).`, { cause: err });
  }
  if (first.done) {
    throw new AppError('VALIDATION_FAILED', `The CSV is empty: its first line must name the columns. ${COLUMNS_HELP}`, { field: 'header' });
  }
  const header = first.value;
  if ('error' in header) {
    throw new AppError('VALIDATION_FAILED', `The CSV header (line ${header.line}) ${header.error}.`, { field: 'header' });
  }
  return interruptible(csvLines(records, parseCsvHeader(header.fields, optionalColumns)));
}
