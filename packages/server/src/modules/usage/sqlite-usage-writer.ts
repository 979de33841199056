import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { AppError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { IdempotentOutcome } from '../idempotency/run-idempotent.js';
import type { IngestResult, UsageWriter, WriterJob } from './usage-writer.js';

/** A job as it crosses to the writer thread: with the caller's clock reading. */
export interface WorkerRequest {
  id: number;
  work: WriterJob;
  now: number;
}

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { app: boolean; code?: string; message: string; details?: unknown; headers?: Record<string, string> } };

/**
 * Usage writes on the embedded database go to a writer thread with its own SQLite connection, so
 * inserting one batch (the costliest step) runs on the second core while the main thread parses
 * and checks the next. The thread runs the same writeUsage and runIdempotent inside its own group
 * commits; WAL lets the main connection keep reading meanwhile, and SQLite's write lock (with a
 * busy timeout) orders the two connections' writes. A job settles after its commit.
 */
export function createSqliteWorkerWriter(file: string, opts: { busyTimeoutMs: number; nice: number }, clock: Clock, log: Logger, onCommitted: () => void = () => undefined): UsageWriter {
  let nextId = 1;
  let closing = false;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: unknown) => void }>();
  const failAll = (err: unknown) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  function start(): Worker {
    const w = new Worker(new URL('./sqlite-usage-writer.worker-entry.js', import.meta.url), { workerData: { file, busyTimeoutMs: opts.busyTimeoutMs, nice: opts.nice } });
    w.on('message', (reply: WorkerReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (reply.ok) {
        onCommitted();
        p.resolve(reply.value);
      }
      else if (reply.error.app) {
        const e = reply.error;
        p.reject(new AppError(e.code as never, e.message, { details: e.details as never, headers: e.headers }));
      } else p.reject(Object.assign(new Error(`usage writer: ${reply.error.message}`), { code: reply.error.code }));
    });
    w.on('error', (err) => log.error({ err }, 'usage writer thread failed'));
    w.on('exit', (code) => {
      // Jobs in flight fail (nothing of an uncommitted group is stored; clients retry with their
      // keys); later jobs go to a new thread.
      failAll(new Error(`usage writer thread exited with code ${code}`));
      if (!closing) {
        log.error({ code }, 'usage writer thread exited; starting a new one');
        worker = start();
      }
    });
    return w;
  }
  // Started on the first write (or by warm()): CLI commands that never ingest do not pay for a thread.
  let worker: Worker | null = null;
  let warming: Promise<void> | null = null;

  function send<T>(work: WriterJob): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      const request: WorkerRequest = { id, work, now: clock.now() };
      (worker ??= start()).postMessage(request);
    });
  }

  return {
    write: (job) => send<IdempotentOutcome<IngestResult>>({ kind: 'usage', job }),
    // Once per thread: a thread started again after a crash is warmed by its first job.
    warm: () =>
      (warming ??= send<null>({ kind: 'warm' }).then(
        () => undefined,
        (err: unknown) => {
          warming = null;
          throw err;
        },
      )),
    writeWebhook: (job) => send({ kind: 'webhook', job }),
    async close() {
      closing = true;
      await worker?.terminate();
    },
  };
}
