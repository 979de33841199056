import type { Deps } from '../deps.js';
import { runOnStartAndEvery } from './schedule.js';
import { IDEMPOTENCY_WINDOW_MS } from '../modules/idempotency/run-idempotent.js';
import { deleteKeysCreatedUpTo } from '../modules/idempotency/idempotency-key.repository.js';
import { deleteEventClaimsUpTo } from '../modules/usage/event-claims.repository.js';
import { deleteExpiredAccessTokens } from '../modules/client-credentials/client-credential.repository.js';
import { deleteExpiredProviderEventIds } from '../modules/plugs/webhook-source.repository.js';
import { deleteLogEntriesBefore } from '../modules/plugs/webhook-log.repository.js';
import { recordAudit } from '../modules/audit/audit-event.repository.js';
import { deleteAttemptsBefore, deleteFinalMessagesBefore } from '../modules/outbound-webhooks/webhook-retention.repository.js';
import { deleteLanesOfDeletedEndpoints } from '../modules/outbound-webhooks/webhook-lane.repository.js';

const HOUR_MS = 60 * 60 * 1000;

const DAY_MS = 24 * HOUR_MS;

/** Rows per batch of the outbound webhook log's pruning, and batches per run: bounded work, none holding a lock for long. */
const LOG_BATCH = 500;
const LOG_BATCHES_PER_RUN = 200;

export interface Pruned {
  idempotencyKeys: number;
  /** Usage events' ids past their 24-hour claim. */
  usageEventClaims: number;
  accessTokens: number;
  /** Webhook provider event ids past their source's dedup window. */
  webhookEventIds: number;
  /** Ingestion log entries older than WEBHOOK_LOG_RETENTION_DAYS. */
  webhookLogEntries: number;
  /** Outbound webhook messages older than OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS, all deliveries final (with their deliveries and attempts). */
  outboundWebhookMessages: number;
  /** Outbound webhook attempts older than OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS (beside those of the messages deleted). */
  outboundWebhookAttempts: number;
  /** Sender lanes of deleted endpoints. */
  outboundWebhookLanes: number;
}

/** Runs `batch` until it deletes less than a full batch, at most LOG_BATCHES_PER_RUN times; the next run goes on. */
async function inBatches(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < LOG_BATCHES_PER_RUN; i++) {
    const n = await batch();
    total += n;
    if (n < LOG_BATCH) break;
  }
  return total;
}

/**
 * Deletes idempotency keys and usage events' id claims past their 24-hour window, access tokens
 * past their lifetime, webhook event ids past their dedup window, ingestion log entries past
 * retention, and the outbound webhook log past its retention (messages whose deliveries are all
 * final, with their deliveries and attempts; older attempts; lanes of deleted endpoints). Idempotent, so several nodes may run it at once without harm. (A late run never
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
  const outboundCutoff = now - deps.config.outboundWebhookLogRetentionDays * DAY_MS;
  const outboundWebhookMessages = await inBatches(() => deleteFinalMessagesBefore(deps.db, outboundCutoff, LOG_BATCH));
  const outboundWebhookAttempts = await inBatches(() => deleteAttemptsBefore(deps.db, outboundCutoff, LOG_BATCH));
  const outboundWebhookLanes = await inBatches(() => deleteLanesOfDeletedEndpoints(deps.db, now, LOG_BATCH));
  const pruned = {
    idempotencyKeys,
    usageEventClaims,
    accessTokens,
    webhookEventIds,
    webhookLogEntries,
    outboundWebhookMessages,
    outboundWebhookAttempts,
    outboundWebhookLanes,
  };
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
