import type { Deps } from '../../deps.js';
import type { Credential } from '../../lib/principal.js';
import { recordGraceUse } from '../api-keys/record-grace-use.js';

/** Per app (by its caches, one per node): the rotated keys whose grace use this node has recorded, or is recording. */
const noted = new WeakMap<object, Set<string>>();
/** Rotated keys live 300 s; past this many at once the set starts afresh (each key then costs one more conditional write, never a second event). */
const MAX_NOTED = 10_000;

/**
 * A key that authenticated while ROTATED (in its grace; the caller checks the status, so a normal
 * key costs nothing here). The first time on this node it records the grace use (recordGraceUse:
 * a conditional update, and api_key.grace_used only if that update changed the row); later
 * requests with it cost a set lookup. A failure is logged and forgotten so the next request
 * tries again: this telemetry never fails an authentication.
 */
export async function noteGraceUse(deps: Deps, c: Credential & { type: 'workspace_key' | 'product_key' }, correlationId: string): Promise<void> {
  let seen = noted.get(deps.caches);
  if (!seen) noted.set(deps.caches, (seen = new Set()));
  if (seen.has(c.id)) return;
  if (seen.size >= MAX_NOTED) seen.clear();
  seen.add(c.id);
  try {
    await recordGraceUse(
      deps,
      {
        workspaceId: c.workspaceId,
        environment: c.environment,
        actor: { type: c.type === 'workspace_key' ? 'WORKSPACE_KEY' : 'PRODUCT_KEY', id: c.id },
        correlationId,
        source: 'api',
      },
      c.id,
    );
  } catch (err) {
    seen.delete(c.id);
    deps.log.warn({ err, keyId: c.id }, 'the grace use of a rotated key was not recorded; the next request with it tries again');
  }
}
