import type { Static } from '@sinclair/typebox';
import type { StorageDeps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { runIdempotent, type IdempotentOutcome, type IdempotentRequest } from '../idempotency/run-idempotent.js';
import type { ResolvedEvent } from './aggregate-batch.js';
import { writeUsage, type UsageSource } from './write-usage.js';
import type { IngestResultSchema } from './usage-event.js';

export type IngestResult = Static<typeof IngestResultSchema>;

/**
 * A write's answer, and the customers whose usage it committed (none for a replay): this node then
 * forgets their cached entitlement answers, so a check after the acknowledgement sees the batch.
 */
export interface UsageWriteOutcome extends IdempotentOutcome<IngestResult> {
  customerIds: readonly string[];
}

/** One checked batch to store: everything the write needs, so it can run on another thread. */
export interface UsageWriteJob {
  ctx: OperationContext;
  events: ResolvedEvent[];
  source: UsageSource;
  /** The request under its X-Idempotency-Key (idempotency/idempotent.ts), if it sent one. */
  idempotency: IdempotentRequest | null;
}

/**
 * A POST /v1/ingest/batch body as sent (its bytes, undecoded), for a writer that parses and checks
 * it itself. The writer may take the bytes' memory over (transfer it to another thread).
 */
export interface BatchTextJob {
  ctx: OperationContext;
  body: Uint8Array;
  enforceMaxAge: boolean;
  idempotency: UsageWriteJob['idempotency'];
}

/**
 * Where checked usage is written: what ingestion and uploads need of the writer that compose.ts
 * builds (modules/ingest-writer). The result settles only after the commit; every
 * implementation runs each job through runWriteJob.
 */
export interface UsageWriter {
  write(job: UsageWriteJob): Promise<UsageWriteOutcome>;
  /**
   * Optional: parses, checks and writes a batch body off the main thread (batch-body.ts's
   * checkBatchText, then write). A refused body rejects with the AppError to answer.
   */
  writeBatchText?(job: BatchTextJob): Promise<UsageWriteOutcome>;
}

/** One job inside an open transaction (txDeps.db is one), under its idempotency key if it has one. */
export async function runWriteJob(txDeps: StorageDeps, job: UsageWriteJob): Promise<UsageWriteOutcome> {
  const { workspaceId, environment } = job.ctx;
  const outcome = await runIdempotent(
    txDeps,
    job.idempotency ?? { workspaceId, environment, key: undefined, method: 'POST', route: '', body: null, fingerprint: '' },
    async (tx): Promise<IngestResult> => {
      const r = await writeUsage(tx, job.ctx, job.events, job.source);
      return { object: 'ingest_result', environment: job.ctx.environment, ...r, rejected: [], idempotentReplay: false };
    },
  );
  return { ...outcome, customerIds: outcome.replayed ? [] : [...new Set(job.events.map((e) => e.customerId))] };
}
