import type { Static } from '@sinclair/typebox';
import type { Deps, StorageDeps } from '../../deps.js';
import { BatchCommitter, GroupCommitter } from '../../db/group-commit.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { runIdempotent, type IdempotentOutcome, type IdempotentRequest } from '../idempotency/run-idempotent.js';
import type { ResolvedEvent } from './aggregate-batch.js';
import { writeUsage, type UsageSource } from './write-usage.js';
import type { IngestResultSchema } from './usage-event.js';
import { runWebhookGroup, type WebhookWriteJob, type WebhookWriteResult } from '../plugs/write-webhook.js';

export type IngestResult = Static<typeof IngestResultSchema>;

/** One checked batch to store: everything the write needs, so it can run on another thread. */
export interface UsageWriteJob {
  ctx: OperationContext;
  events: ResolvedEvent[];
  source: UsageSource;
  /** The request under its X-Idempotency-Key (idempotency/idempotent.ts), if it sent one. */
  idempotency: IdempotentRequest | null;
}

/** A POST /v1/ingest/batch body as sent (JSON text), for a writer that parses and checks it itself. */
export interface BatchTextJob {
  ctx: OperationContext;
  text: string;
  enforceMaxAge: boolean;
  idempotency: UsageWriteJob['idempotency'];
}

/**
 * Where checked usage is written. The result settles only after the commit. Implementations
 * share writeUsage and runIdempotent; they differ in where and how transactions are grouped.
 */
export interface UsageWriter {
  write(job: UsageWriteJob): Promise<IdempotentOutcome<IngestResult>>;
  /**
   * Optional: parses, checks and writes a batch body off the main thread (batch-body.ts's
   * checkBatchText, then write). A refused body rejects with the AppError to answer.
   */
  writeBatchText?(job: BatchTextJob): Promise<IdempotentOutcome<IngestResult>>;
  /** One webhook request: its usage, dedup claims and ingestion log entry, in one transaction. */
  writeWebhook(job: WebhookWriteJob): Promise<WebhookWriteResult>;
  /** Resolves once the writer can take a write at full speed (a thread started, its code loaded); /ready waits for it. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** Every kind of job a writer runs, as it crosses to the writer thread. */
export type WriterJob =
  { kind: 'usage'; job: UsageWriteJob } | { kind: 'webhook'; job: WebhookWriteJob } | { kind: 'warm' } | { kind: 'batch-text'; job: BatchTextJob };

/** Webhook requests are written a group at a time (plugs/write-webhook.ts), up to this many a commit. */
export const WEBHOOKS_PER_COMMIT = 128;

/** One job inside an open transaction (txDeps.db is one), under its idempotency key if it has one. */
export function runWriteJob(txDeps: StorageDeps, job: UsageWriteJob): Promise<IdempotentOutcome<IngestResult>> {
  const { workspaceId, environment } = job.ctx;
  return runIdempotent(
    txDeps,
    job.idempotency ?? { workspaceId, environment, key: undefined, method: 'POST', route: '', body: null, fingerprint: '' },
    async (tx): Promise<IngestResult> => {
      const r = await writeUsage(tx, job.ctx, job.events, job.source);
      return { object: 'ingest_result', environment: job.ctx.environment, ...r, rejected: [], idempotentReplay: false };
    },
  );
}

/**
 * In this process, through group committers: PostgreSQL, and SQLite in memory (tests). On
 * PostgreSQL several lanes, each its own connection and transactions, let the server work on
 * batches in parallel; each job upserts its aggregates in key order, so two lanes that commit one
 * job at a time never deadlock.
 */
export function createInProcessUsageWriter(deps: Deps, opts: { lanes: number; jobsPerCommit: number }): UsageWriter {
  const committers = Array.from({ length: opts.lanes }, () => new GroupCommitter(deps.db, opts.jobsPerCommit));
  const webhooks = new BatchCommitter(deps.db, (trx, jobs: WebhookWriteJob[]) => runWebhookGroup({ ...deps, db: trx }, jobs), WEBHOOKS_PER_COMMIT);
  let next = 0;
  return {
    write: (job) => committers[next++ % committers.length]!.run((trx) => runWriteJob({ ...deps, db: trx }, job)),
    writeWebhook: (job) => webhooks.run(job),
    async warm() {},
    async close() {},
  };
}
