import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Metric, UpdateMetricInput } from './metric.js';
import { findMetric, updateMetricRow } from './metric.repository.js';

export async function updateMetric(deps: Deps, ctx: OperationContext, id: string, input: UpdateMetricInput): Promise<Metric> {
  return inTransaction(deps.db, async (trx) => {
    const current = await findMetric(trx, ctx, id);
    if (!current) throw notFound('metric', id);
    const next: Metric = { ...current, ...input, updatedAt: deps.clock.now() };
    await updateMetricRow(trx, ctx, next);
    await recordAudit(trx, deps, ctx, {
      eventType: 'metric.updated',
      targetType: 'metric',
      targetId: id,
      payload: { changed: Object.keys(input) },
    });
    return next;
  });
}
