// What the SQLite usage writer's threads (sqlite-usage-writer.ts) share: the messages that cross
// to and from them, and the set-up both threads do.
import { setPriority } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { AppError } from '../../lib/errors.js';
import type { WriterJob } from './ingest-writer.js';

/** What each thread is started with. `port` joins the checker to the writer. */
export interface UsageThreadData {
  module: string;
  file: string;
  busyTimeoutMs: number;
  nice: number;
  port: MessagePort;
}

/** A job as it crosses to a thread: with the caller's clock reading. */
export interface WorkerRequest {
  id: number;
  work: WriterJob;
  now: number;
}

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { app: boolean; code?: string; message: string; details?: unknown; headers?: Record<string, string> } };

/**
 * The writer thread's replies, gathered: a group commit settles its jobs (up to 128 webhooks) in
 * one turn, and one message a reply took a fifth of the writer thread's time on the webhook path
 * (bench/README.md, issue 40). A reply joins the list; the list goes as one message once the
 * microtasks of that turn have run, so no reply waits for anything but its own turn.
 */
export function replyBatcher(post: (replies: WorkerReply[]) => void): (reply: WorkerReply) => void {
  let queued: WorkerReply[] | null = null;
  return (reply) => {
    if (queued) {
      queued.push(reply);
      return;
    }
    queued = [reply];
    queueMicrotask(() => {
      const replies = queued!;
      queued = null;
      post(replies);
    });
  };
}

/**
 * On Linux a nice value belongs to a thread, and pid 0 names the calling one: this lowers the
 * calling thread alone. When the cores are short, the main thread (which answers entitlement
 * checks and key verifications in a millisecond) goes first, and bulk work takes what is left.
 */
export function lowerThreadPriority(nice: number): void {
  try {
    if (nice !== 0) setPriority(0, nice);
  } catch {
    // Not permitted here, or not Linux: the thread runs at the process's priority.
  }
}

export function replyError(id: number, err: unknown): WorkerReply {
  if (err instanceof AppError) {
    return { id, ok: false, error: { app: true, code: err.code, message: err.message, details: err.details, headers: err.headers } };
  }
  // The code (SQLITE_BUSY, say) lets the main thread answer 503 rather than 500 (db/errors.ts).
  const code = (err as { code?: unknown } | null)?.code;
  return { id, ok: false, error: { app: false, message: err instanceof Error ? err.message : String(err), ...(typeof code === 'string' ? { code } : {}) } };
}

/** The main thread's side of replyError: the AppError to answer, or an error db/errors.ts classifies. */
export function errorOfReply(error: Extract<WorkerReply, { ok: false }>['error']): Error {
  if (error.app) return new AppError(error.code as never, error.message, { details: error.details as never, headers: error.headers });
  return Object.assign(new Error(`usage writer: ${error.message}`), { code: error.code });
}
