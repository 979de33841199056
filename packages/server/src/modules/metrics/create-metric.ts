import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { DEFAULT_DIMENSION_PATHS, type CreateMetricInput, type Metric } from './metric.js';
import { insertMetric } from './metric.repository.js';

export async function createMetric(deps: Deps, ctx: OperationContext, input: CreateMetricInput): Promise<Metric> {
  const now = deps.clock.now();
  const metric: Metric = {
    id: deps.ids.next('metric'),
    environment: ctx.environment,
    name: input.name,
    displayName: input.displayName ?? null,
    description: input.description ?? null,
    unit: input.unit ?? null,
    dimensionPaths: { ...DEFAULT_DIMENSION_PATHS, ...input.dimensionPaths },
    createdAt: now,
    updatedAt: now,
  };
  try {
    await inTransaction(deps.db, async (trx) => {
      await insertMetric(trx, ctx, metric);
      await recordAudit(trx, deps, ctx, {
        eventType: 'metric.created',
        targetType: 'metric',
        targetId: metric.id,
        payload: { name: metric.name },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError('CONFLICT', `A metric named '${input.name}' already exists in this environment.`, {
        field: 'body.name',
        cause: err,
      });
    }
    throw err;
  }
  return metric;
}
