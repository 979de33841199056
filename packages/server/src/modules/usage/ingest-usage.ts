import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { replayOrRun, type IdempotentOutcome, type IdempotentRequest } from '../idempotency/run-idempotent.js';
import { checkBatch, rejectedBatch } from './check-batch.js';
import type { BatchTextJob, IngestResult, UsageWriter } from './usage-writer.js';
import type { UsageSource } from './write-usage.js';

export interface IngestOptions {
  source: UsageSource;
  /** The API refuses events older than 35 days; the historical upload does not. */
  enforceMaxAge: boolean;
  /** How a rejection names an event: `events[3]` in a batch, `body` for a single event. */
  at: (index: number) => string;
}

const answer = (outcome: IdempotentOutcome<IngestResult>): IngestResult => ({ ...outcome.body, idempotentReplay: outcome.replayed });

/**
 * Events parsed on this thread: a retry with a known X-Idempotency-Key is replayed at once;
 * otherwise the events are checked here (reads, outside any transaction) and written by the
 * usage writer under the key, which answers after the commit. A rejected event refuses the
 * batch whole (400) and nothing is written.
 */
export async function ingestUsage(
  deps: Deps,
  writer: UsageWriter,
  ctx: OperationContext,
  events: readonly unknown[],
  opts: IngestOptions,
  idempotency: IdempotentRequest,
): Promise<IngestResult> {
  return answer(
    await replayOrRun(deps, idempotency, async (keyed) => {
      const { resolved, rejected } = await checkBatch(deps.db, ctx, events, { now: deps.clock.now(), enforceMaxAge: opts.enforceMaxAge }, opts.at);
      if (rejected.length > 0) throw rejectedBatch(rejected);
      return writer.write({ ctx, events: resolved, source: opts.source, idempotency: keyed });
    }),
  );
}

/**
 * A POST /v1/ingest/batch body as sent (its bytes), for a writer that decodes, parses and checks it
 * on its own thread (the SQLite writer's checker thread): this thread only hands the bytes over.
 * The idempotency fingerprint is taken before, since the writer may take the bytes' memory.
 */
export async function ingestBatchText(
  deps: Deps,
  writeBatchText: (job: BatchTextJob) => Promise<IdempotentOutcome<IngestResult>>,
  ctx: OperationContext,
  body: Uint8Array,
  idempotency: IdempotentRequest,
): Promise<IngestResult> {
  return answer(await replayOrRun(deps, idempotency, (keyed) => writeBatchText({ ctx, body, enforceMaxAge: true, idempotency: keyed })));
}
