import type { Deps } from '../deps.js';
import { runOnStartAndEvery } from './schedule.js';
import { IDEMPOTENCY_WINDOW_MS } from '../modules/idempotency/run-idempotent.js';
import { deleteKeysCreatedUpTo } from '../modules/idempotency/idempotency-key.repository.js';
import { deleteEventClaimsUpTo } from '../modules/usage/event-claims.repository.js';
import { deleteExpiredAccessTokens } from '../modules/client-credentials/client-credential.repository.js';
import { deleteExpiredProviderEventIds } from '../modules/plugs/webhook-source.repository.js';
import { deleteLogEntriesBefore } from '../modules/plugs/webhook-log.repository.js';
import { recordAudit } from '../modules/audit/audit-event.repository.js';

const HOUR_MS = 60 * 60 * 1000;

const DAY_MS = 24 * HOUR_MS;

export interface Pruned {
  idempotencyKeys: number;
  /** Usage events' ids past their 24-hour claim. */
  usageEventClaims: number;
  accessTokens: number;
  /** Webhook provider event ids past their source's dedup window. */
  webhookEventIds: number;
  /** Ingestion log entries older than WEBHOOK_LOG_RETENTION_DAYS. */
  webhookLogEntries: number;
}

/**
 * Deletes idempotency keys and usage events' id claims past their 24-hour window, access tokens
 * past their lifetime, webhook event ids past their dedup window and ingestion log entries past
 * retention. Idempotent, so several nodes may run it at once without harm. (A late run never
 * widens a dedup window: a claim takes over an expired row itself.) A run that deleted anything
 * records the counts as a platform audit event, `system.expired_rows_pruned`; an hourly row of
 * zeros per node would only bury the runs that did something.
 */
export async function pruneExpired(deps: Deps): Promise<Pruned> {
  const now = deps.clock.now();
  const idempotencyKeys = await deleteKeysCreatedUpTo(deps.db, now - IDEMPOTENCY_WINDOW_MS);
  const usageEventClaims = await deleteEventClaimsUpTo(deps.db, now - IDEMPOTENCY_WINDOW_MS);
  const accessTokens = await deleteExpiredAccessTokens(deps.db, now);
  const webhookEventIds = await deleteExpiredProviderEventIds(deps.db, now);
  const webhookLogEntries = await deleteLogEntriesBefore(deps.db, now - deps.config.webhookLogRetentionDays * DAY_MS);
  const pruned = { idempotencyKeys, usageEventClaims, accessTokens, webhookEventIds, webhookLogEntries };
  if (Object.values(pruned).some((n) => n > 0)) {
    await recordAudit(
      deps.db,
      deps,
      { workspaceId: null, environment: null, actor: { type: 'SYSTEM', id: 'prune-expired' }, correlationId: deps.ids.next('request'), source: 'system' },
      { eventType: 'system.expired_rows_pruned', payload: pruned },
    );
  }
  return pruned;
}

/** Runs on start and hourly; returns a stop function. */
export function schedulePruning(deps: Deps): () => void {
  return runOnStartAndEvery(deps, HOUR_MS, 'pruned expired rows', () => pruneExpired(deps));
}
