import type { Db } from '../../db/database.js';
import type { Deps } from '../../deps.js';
import type { Actor } from '../../lib/operation-context.js';
import { recordAudit } from './audit-event.repository.js';

/** What one module's part of `tollgate secrets re-encrypt` did. */
export interface ReencryptionTally {
  currentKeyId: string;
  /** Sealed values looked at. */
  total: number;
  reencrypted: number;
  /** Rows with a value no configured key opens (the old key was removed too early), by id. */
  unreadable: string[];
}

/**
 * The audit event of one module's re-encryption (webhook sources, endpoints, payment providers),
 * written in its transaction: WARN when some value could not be opened.
 */
export async function recordSecretsReencrypted(
  db: Db,
  deps: Pick<Deps, 'clock' | 'ids'>,
  actor: Actor,
  correlationId: string,
  secrets: string,
  tally: ReencryptionTally,
): Promise<void> {
  await recordAudit(
    db,
    deps,
    { workspaceId: null, environment: null, actor, correlationId, source: 'cli' },
    {
      eventType: 'system.secrets_reencrypted',
      severity: tally.unreadable.length > 0 ? 'WARN' : 'INFO',
      payload: { secrets, ...tally },
    },
  );
}
