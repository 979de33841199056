/**
 * The historical upload's pure rules (POST /api/v1/hub/usage/uploads): which Content-Type a
 * chosen file is sent as, what the streamed answer (NDJSON: progress lines, then the summary or an
 * error envelope) says so far, and how progress and the report (each rejected line's problem as a
 * sentence) are worded. Pure, so each is tested with a table of cases (test/hub-upload.test.ts).
 */

export type UploadType = 'text/csv' | 'application/x-ndjson';

const BY_EXTENSION: Record<string, UploadType> = { csv: 'text/csv', ndjson: 'application/x-ndjson', jsonl: 'application/x-ndjson' };
const BY_MEDIA_TYPE: Record<string, UploadType> = {
  'text/csv': 'text/csv',
  'application/x-ndjson': 'application/x-ndjson',
  'application/ndjson': 'application/x-ndjson',
  'application/jsonl': 'application/x-ndjson',
  'application/x-jsonlines': 'application/x-ndjson',
};

/**
 * The Content-Type to send a file as: by its extension first (browsers guess a type for .csv
 * differently, and often none for .ndjson), else by the type the browser gave; null for neither.
 */
export function uploadTypeOf(file: { name: string; type: string }): UploadType | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file.name)?.[1]?.toLowerCase();
  if (ext !== undefined && BY_EXTENSION[ext]) return BY_EXTENSION[ext];
  return BY_MEDIA_TYPE[file.type.split(';')[0]!.trim().toLowerCase()] ?? null;
}

export interface UploadCounts {
  lines: number;
  accepted: number;
  duplicates: number;
  rejected: number;
}

export interface UploadLineError {
  line: number;
  code: string;
  message: string;
  field: string;
}

export interface UploadSummary extends UploadCounts {
  object: 'usage_upload';
  errors: UploadLineError[];
  errorsTruncated: boolean;
}

export interface UploadRead {
  /** The latest progress line, if any. */
  progress: UploadCounts | null;
  summary: UploadSummary | null;
  /** An error envelope sent as the last line (the upload failed after the answer began). */
  failure: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * What the streamed answer says so far. Only whole lines count (a line still arriving is not
 * read), unless the answer is `complete`; a line that is not JSON is skipped.
 */
export function readUploadStream(text: string, complete: boolean): UploadRead {
  const lines = text.split('\n');
  if (!complete) lines.pop();
  const out: UploadRead = { progress: null, summary: null, failure: null };
  for (const line of lines) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(value)) continue;
    if (value.object === 'usage_upload_progress') out.progress = value as unknown as UploadCounts;
    else if (value.object === 'usage_upload') out.summary = value as unknown as UploadSummary;
    else if (value.success === false) out.failure = value;
  }
  return out;
}

const n = (v: number) => v.toLocaleString('en-US');
const plural = (v: number, one: string, many = `${one}s`) => `${n(v)} ${v === 1 ? one : many}`;

/** "Sending the file: 42%." then, as the server reports, "12,000 lines read so far: …". */
export function progressText(sent: number, total: number, counts: UploadCounts | null): string {
  if (counts) return `${plural(counts.lines, 'line')} read so far: ${countsText(counts)}.`;
  if (total > 0 && sent >= total) return 'File sent. Checking its lines…';
  return `Sending the file: ${sentPercent(sent, total)}%.`;
}

/** Whole percent sent, 0..100 (0 for an empty or unknown total). */
export function sentPercent(sent: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.min(100, Math.max(0, Math.floor((sent / total) * 100)));
}

export const countsText = (c: UploadCounts): string => `${n(c.accepted)} accepted, ${plural(c.duplicates, 'duplicate')} skipped, ${n(c.rejected)} rejected`;

/** The report's headline: "3 lines read: 2 accepted, 0 duplicates skipped, 1 rejected." */
export const summaryText = (s: UploadSummary): string => `${plural(s.lines, 'line')} read: ${countsText(s)}.`;

/** Said in words when the report's error list stops short of every rejected line; null when it is whole. */
export function truncatedText(s: UploadSummary): string | null {
  if (!s.errorsTruncated) return null;
  return `Only the first ${plural(s.errors.length, 'problem')} are listed below; ${plural(s.rejected, 'line was', 'lines were')} rejected in all.`;
}

/** "line 4.quantity" -> "quantity"; "line 4" -> "" (the whole line); a field without the line's path stays. */
const columnPath = (field: string): string => field.replace(/^line \d+(\.|$)/, '');

/** The column (CSV) or field (NDJSON) a rejected line's problem is in: "quantity", "metadata.region"; null for the whole line. */
export function problemColumn(e: UploadLineError): string | null {
  const column = columnPath(e.field);
  return column === '' ? null : column;
}

/**
 * The server's message as a sentence, without its path: "line 4.quantity must be a decimal
 * number…" reads "The quantity must be a decimal number…", and "line 2 has 3 fields…" reads "This
 * line has 3 fields…". A message that does not start with its field's path is shown as sent, with
 * a capital first letter.
 */
export function problemSentence(e: UploadLineError): string {
  if (e.field !== '' && e.message.startsWith(`${e.field} `)) {
    const rest = e.message.slice(e.field.length + 1);
    const column = problemColumn(e);
    return column === null ? `This line ${rest}` : `The ${column} ${rest}`;
  }
  return e.message.charAt(0).toUpperCase() + e.message.slice(1);
}
