import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordAudit } from './audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { filterErrors } from './audit-filter.js';
import type { AuditSearchPreset, CreateAuditSearchPresetInput } from './audit-search-preset.js';
import { deletePreset, insertPreset } from './audit-search-preset.repository.js';

/** Saves a search under a unique name; its filters are checked like the list endpoint's. */
export async function createPreset(deps: Deps, ctx: OperationContext, input: CreateAuditSearchPresetInput): Promise<AuditSearchPreset> {
  filterErrors(input.filters, 'body.filters');
  const preset: AuditSearchPreset = { id: deps.ids.next('auditSearchPreset'), name: input.name, filters: input.filters, createdAt: deps.clock.now() };
  try {
    await inTransaction(deps.db, async (trx) => {
      await insertPreset(trx, ctx, preset);
      await recordAudit(trx, deps, ctx, {
        eventType: 'audit_preset.created',
        targetType: 'audit_search_preset',
        targetId: preset.id,
        payload: { name: preset.name },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('CONFLICT', `A saved search named '${input.name}' already exists.`, { field: 'body.name' });
    throw err;
  }
  return preset;
}

export async function removePreset(deps: Deps, ctx: OperationContext, id: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    if (!(await deletePreset(trx, ctx, id))) throw notFound('saved search', id);
    await recordAudit(trx, deps, ctx, { eventType: 'audit_preset.deleted', targetType: 'audit_search_preset', targetId: id });
  });
}
