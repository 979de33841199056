import type { Deps } from '../../deps.js';
import { BatchCommitter, GroupCommitter } from '../../db/group-commit.js';
import { runWebhookGroup, type WebhookWriteJob, type WebhookWriter } from '../plugs/write-webhook.js';
import { runWriteJob, type BatchTextJob, type UsageWriteJob, type UsageWriter } from '../usage/usage-writer.js';
import type { EventColumns } from './event-columns.js';

/**
 * The one writer of ingested usage: API batches and uploads (usage's UsageWriter) and webhook
 * requests (plugs' WebhookWriter). The result of a write settles only after its commit.
 * Implementations share runWriteJob and runWebhookGroup; they differ in where and how
 * transactions are grouped.
 */
export interface IngestWriter extends UsageWriter, WebhookWriter {
  /** Resolves once the writer can take a write at full speed (a thread started, its code loaded); /ready waits for it. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** Every kind of job a writer runs, as it crosses to the writer thread. */
export type WriterJob =
  | { kind: 'usage'; job: UsageWriteJob }
  | { kind: 'webhook'; job: WebhookWriteJob }
  | { kind: 'warm' }
  | { kind: 'batch-text'; job: BatchTextJob }
  /** A batch body the checker thread has checked, its events in columns (event-columns.ts). */
  | { kind: 'checked-batch'; job: Omit<UsageWriteJob, 'events'> & { columns: EventColumns } };

/** Webhook requests are written a group at a time (plugs/write-webhook.ts), up to this many a commit. */
export const WEBHOOKS_PER_COMMIT = 128;

/**
 * In this process, through group committers: PostgreSQL, and SQLite in memory (tests). On
 * PostgreSQL several lanes, each its own connection and transactions, let the server work on
 * batches in parallel; each job upserts its aggregates in key order, so two lanes that commit one
 * job at a time never deadlock.
 */
export function createInProcessUsageWriter(deps: Deps, opts: { lanes: number; jobsPerCommit: number }): IngestWriter {
  const committers = Array.from({ length: opts.lanes }, () => new GroupCommitter(deps.db, opts.jobsPerCommit));
  const webhooks = new BatchCommitter(deps.db, (trx, jobs: WebhookWriteJob[]) => runWebhookGroup({ ...deps, db: trx }, jobs), WEBHOOKS_PER_COMMIT);
  let next = 0;
  // Counted, so that the billing job lets usage go first (db/write-turns.ts).
  const counted = <T>(write: () => Promise<T>): Promise<T> => {
    deps.writeTurns.started();
    return write().finally(() => deps.writeTurns.finished());
  };
  return {
    write: (job) => counted(() => committers[next++ % committers.length]!.run((trx) => runWriteJob({ ...deps, db: trx }, job))),
    writeWebhook: (job) => counted(() => webhooks.run(job)),
    async warm() {},
    async close() {},
  };
}
