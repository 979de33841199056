import type { Deps } from '../../deps.js';
import { monotonicSeconds, type IngestSource, type WriteKind } from '../../lib/metrics.js';
import { traced } from '../../lib/tracing.js';
import type { UsageWriteOutcome } from '../usage/usage-writer.js';
import type { IngestWriter } from './ingest-writer.js';

/**
 * The writer as the metrics see it (docs/production.md, "Metrics and tracing"): writes in flight (the queue in
 * front of the one write connection or the lanes), the time from hand-over to commit, events
 * accepted and batch sizes by source, and a span per write when tracing is on. A replayed
 * idempotent answer stored nothing, so it counts no event.
 */
export function measuredWriter(writer: IngestWriter, deps: Pick<Deps, 'metrics' | 'tracer'>): IngestWriter {
  const { metrics, tracer } = deps;
  let queued = 0;
  metrics.watchWriterQueue(() => queued);
  const kinds = { usage: metrics.writer('usage'), batch: metrics.writer('batch'), webhook: metrics.writer('webhook') };
  const sources = { api: metrics.ingest('api'), upload: metrics.ingest('upload'), webhook: metrics.ingest('webhook') };

  const measure = <T>(kind: WriteKind, write: () => Promise<T>): Promise<T> => {
    const k = kinds[kind];
    const start = monotonicSeconds();
    queued += 1;
    return traced(tracer, 'ingest.write', { 'tollgate.write.kind': kind }, write).then(
      (value) => {
        queued -= 1;
        k.commit.observe(monotonicSeconds() - start);
        k.committed.inc();
        return value;
      },
      (err: unknown) => {
        queued -= 1;
        k.failed.inc();
        throw err;
      },
    );
  };
  const counted = (source: IngestSource, outcome: UsageWriteOutcome): UsageWriteOutcome => {
    if (!outcome.replayed) countEvents(source, outcome.body.accepted, outcome.body.duplicates);
    return outcome;
  };
  const countEvents = (source: IngestSource, accepted: number, duplicates: number) => {
    const s = sources[source];
    s.events.inc(accepted);
    s.duplicates.inc(duplicates);
    s.batchSize.observe(accepted + duplicates);
  };

  const writeBatchText = writer.writeBatchText?.bind(writer);
  return {
    write: (job) => measure('usage', () => writer.write(job)).then((o) => counted(job.source, o)),
    ...(writeBatchText ? { writeBatchText: (job) => measure('batch', () => writeBatchText(job)).then((o) => counted('api', o)) } : {}),
    writeWebhook: (job) =>
      measure('webhook', () => writer.writeWebhook(job)).then((r) => {
        let accepted = 0;
        let duplicates = 0;
        for (const o of r.outcomes) {
          if (o.status === 'accepted') accepted += 1;
          else if (o.status === 'duplicate') duplicates += 1;
        }
        if (accepted + duplicates > 0) countEvents('webhook', accepted, duplicates);
        return r;
      }),
    warm: () => writer.warm(),
    close: () => writer.close(),
  };
}
