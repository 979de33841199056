import type { Tenant } from '../../lib/tenant.js';
import type { UsageWriteOutcome } from '../usage/usage-writer.js';
import type { IngestWriter } from './ingest-writer.js';

/**
 * The writer, calling `committed` on this thread once a usage write has committed, with the
 * customers it wrote for, before the request is answered: whichever thread committed it, what
 * this node caches about those customers (entitlement answers) is dropped before the client can
 * ask again. Webhook requests are the providers', not a client waiting to check.
 */
export function onUsageCommitted(writer: IngestWriter, committed: (tenant: Tenant, customerIds: readonly string[]) => void): IngestWriter {
  const noted =
    (tenant: Tenant) =>
    (outcome: UsageWriteOutcome): UsageWriteOutcome => {
      committed(tenant, outcome.customerIds);
      return outcome;
    };
  const writeBatchText = writer.writeBatchText?.bind(writer);
  return {
    write: (job) => writer.write(job).then(noted(job.ctx)),
    ...(writeBatchText ? { writeBatchText: (job) => writeBatchText(job).then(noted(job.ctx)) } : {}),
    writeWebhook: (job) => writer.writeWebhook(job),
    warm: () => writer.warm(),
    close: () => writer.close(),
  };
}
