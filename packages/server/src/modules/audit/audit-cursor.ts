/**
 * The live stream's cursor: an audit event's place in commit order (see migration 0006). Sent
 * as the SSE `id`, so a client's Last-Event-ID resumes after it. Opaque to clients; written
 * `<seq>` on SQLite (tx is always 0) and `<tx>-<seq>` on PostgreSQL.
 */
export interface AuditCursor {
  tx: number;
  seq: number;
}

export const START: AuditCursor = { tx: 0, seq: 0 };

export function formatCursor(c: AuditCursor): string {
  return c.tx === 0 ? String(c.seq) : `${c.tx}-${c.seq}`;
}

const CURSOR = /^(?:(\d{1,16})-)?(\d{1,16})$/;

/** Null for anything that is not a cursor this server wrote. */
export function parseCursor(text: string): AuditCursor | null {
  const m = CURSOR.exec(text.trim());
  if (!m) return null;
  const tx = m[1] === undefined ? 0 : Number(m[1]);
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(tx) || !Number.isSafeInteger(seq)) return null;
  return { tx, seq };
}

export function compareCursors(a: AuditCursor, b: AuditCursor): number {
  return a.tx !== b.tx ? a.tx - b.tx : a.seq - b.seq;
}

export function isAfter(a: AuditCursor, b: AuditCursor): boolean {
  return compareCursors(a, b) > 0;
}
