import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { Db } from '../../db/database.js';
import { AppError, capDetails, notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { findMetricName, findMetricRef } from '../metrics/metric.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import type { MappingError } from './field-mapping.js';
import { webhookSourcesChanged } from './delivery-source.js';
import {
  checkSourceSettings,
  secretAssociatedData,
  secretHint,
  templateSettings,
  type CreateWebhookSourceInput,
  type SourceSettings,
  type UpdateWebhookSourceInput,
  type WebhookSource,
} from './webhook-source.js';
import { findWebhookSource, insertWebhookSource, markWebhookSourceDeleted, updateWebhookSourceRow } from './webhook-source.repository.js';

/**
 * Create, update and delete of webhook sources. Each writes an audit event in the same
 * transaction (never the secret: only whether it changed), and after the commit clears cached
 * sources on every node, so a rotated secret or a new filter applies at once.
 */

function invalid(errors: MappingError[]): AppError {
  // Mapping errors (field-mapping.ts) already start with their field; the source's own do not.
  const details = errors.map((e) => ({
    code: 'VALIDATION_FAILED' as const,
    message: e.message.startsWith(e.field) ? e.message : `${e.field} ${e.message}`,
    field: e.field,
  }));
  return new AppError('VALIDATION_FAILED', errors.length === 1 ? details[0]!.message : `${errors.length} fields are invalid; see errors.`, {
    details: capDetails(details, 'body'),
  });
}

/** The metric by id or by name; exactly one may be given. */
async function resolveMetric(db: Db, tenant: Tenant, input: { metricId?: string; metricName?: string }): Promise<{ id: string; name: string }> {
  if (input.metricId !== undefined && input.metricName !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'Give metricId or metricName, not both.', { field: 'body.metricName' });
  }
  const [column, value, field] =
    input.metricId !== undefined ? (['id', input.metricId, 'body.metricId'] as const) : (['name', input.metricName, 'body.metricName'] as const);
  if (value === undefined)
    throw new AppError('VALIDATION_FAILED', 'body.metricId is required: the billable metric (mtr_…) that receives the quantity; or give metricName.', {
      field: 'body.metricId',
    });
  const m = await findMetricRef(db, tenant, column, value);
  if (!m) throw new AppError('VALIDATION_FAILED', `${field}: no metric '${value}' exists in this workspace and environment.`, { field });
  return m;
}

function sealSecret(deps: Deps, sourceId: string, secret: string | undefined, current: WebhookSource['secret']): WebhookSource['secret'] {
  if (secret === undefined) return current;
  const sealed = deps.secrets.seal(secret, secretAssociatedData(sourceId));
  return { ...sealed, hint: secretHint(secret) };
}

export async function createWebhookSource(
  deps: Deps,
  ctx: OperationContext,
  input: CreateWebhookSourceInput,
): Promise<{ source: WebhookSource; metricName: string }> {
  const checked = checkSourceSettings(input.provider, input, templateSettings(input.provider, input.displayName));
  if (!checked.ok) throw invalid(checked.errors);
  const metric = await resolveMetric(deps.db, ctx, input);
  const now = deps.clock.now();
  const id = deps.ids.next('webhookSource');
  const source: WebhookSource = {
    id,
    workspaceId: ctx.workspaceId,
    environment: ctx.environment,
    provider: input.provider,
    metricId: metric.id,
    ...settingsOf(checked.value),
    secret: sealSecret(deps, id, checked.value.signingSecret, null),
    createdAt: now,
    updatedAt: now,
  };
  await inTransaction(deps.db, async (trx) => {
    await insertWebhookSource(trx, source);
    await recordAudit(trx, deps, ctx, {
      eventType: 'webhook_source.created',
      targetType: 'webhook_source',
      targetId: id,
      payload: { provider: source.provider, displayName: source.displayName, metricId: metric.id, hasSigningSecret: source.secret !== null },
    });
  });
  return { source, metricName: metric.name };
}

function settingsOf(
  s: SourceSettings,
): Omit<WebhookSource, 'id' | 'workspaceId' | 'environment' | 'provider' | 'metricId' | 'secret' | 'createdAt' | 'updatedAt'> {
  return {
    displayName: s.displayName,
    signatureOptions: s.signatureOptions,
    eventTypeFrom: s.eventTypeFrom,
    eventFilter: s.eventFilter,
    fieldMappings: s.fieldMappings,
    dedupWindowHours: s.dedupWindowHours,
  };
}

export async function updateWebhookSource(
  deps: Deps,
  ctx: OperationContext,
  id: string,
  input: UpdateWebhookSourceInput,
): Promise<{ source: WebhookSource; metricName: string }> {
  const result = await inTransaction(deps.db, async (trx) => {
    const current = await findWebhookSource(trx, ctx, id);
    if (!current) throw notFound('webhook source', id);
    const checked = checkSourceSettings(current.provider, input, current);
    if (!checked.ok) throw invalid(checked.errors);
    const metric =
      input.metricId !== undefined || input.metricName !== undefined
        ? await resolveMetric(trx, ctx, input)
        : await resolveMetric(trx, ctx, { metricId: current.metricId });
    const next: WebhookSource = {
      ...current,
      ...settingsOf(checked.value),
      metricId: metric.id,
      secret: sealSecret(deps, id, checked.value.signingSecret, current.secret),
      updatedAt: deps.clock.now(),
    };
    await updateWebhookSourceRow(trx, next);
    const changed = Object.keys(input).filter((k) => k !== 'signingSecret');
    await recordAudit(trx, deps, ctx, {
      eventType: input.signingSecret !== undefined ? 'webhook_source.secret_rotated' : 'webhook_source.updated',
      targetType: 'webhook_source',
      targetId: id,
      payload: { changed, signingSecretChanged: input.signingSecret !== undefined },
    });
    return { source: next, metricName: metric.name };
  });
  await webhookSourcesChanged(deps);
  return result;
}

/** The URL answers 404 from now on; the ingestion log keeps the source's entries until retention. */
export async function deleteWebhookSource(deps: Deps, ctx: OperationContext, id: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    if (!(await markWebhookSourceDeleted(trx, ctx, id, deps.clock.now()))) throw notFound('webhook source', id);
    await recordAudit(trx, deps, ctx, { eventType: 'webhook_source.deleted', targetType: 'webhook_source', targetId: id });
  });
  await webhookSourcesChanged(deps);
}

/** For presenting a stored source. */
export async function metricNameOf(db: Db, tenant: Tenant, metricId: string): Promise<string> {
  return (await findMetricName(db, tenant, metricId)) ?? '';
}
