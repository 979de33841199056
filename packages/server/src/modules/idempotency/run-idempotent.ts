import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../lib/crypto.js';
import { stableStringify } from '../../lib/stable-json.js';
import { AppError } from '../../lib/errors.js';
import { inTransaction } from '../../db/transaction.js';
import type { Environment } from '../../lib/crypto.js';
import type { Deps, StorageDeps } from '../../deps.js';
import { deleteKeyRow, findKeyRow, insertKeyRow, storeResponse } from './idempotency-key.repository.js';

/** How long a key is remembered (the spec's ingestion window; creates use the same). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface IdempotentRequest {
  workspaceId: string;
  environment: Environment;
  /** The client's key, or undefined to run without idempotency. */
  key: string | undefined;
  method: string;
  route: string;
  body: unknown;
  /** A precomputed fingerprint (a hash of the raw body), instead of hashing `body`. */
  fingerprint?: string;
}

export interface IdempotentOutcome<T> {
  body: T;
  replayed: boolean;
}

/**
 * What identifies a request under its key: method, concrete path and body. A parsed body is
 * hashed with its keys sorted (creates); fingerprintOfText hashes a body as sent (ingestion).
 */
export function fingerprintOf(method: string, route: string, body: unknown): string {
  return fingerprintOfText(method, route, stableStringify(body ?? null));
}

export function fingerprintOfText(method: string, route: string, text: string | Uint8Array): string {
  if (typeof text === 'string') return sha256Hex(`${method} ${route}\n${text}`);
  // The digest of the text these bytes decode to, as when bodies arrived as text (a key stored
  // before still matches): valid UTF-8 is that text's encoding byte for byte; anything else
  // decodes with U+FFFD in place of each bad sequence, so it is hashed as decoded.
  const bytes = isUtf8(text) ? text : Buffer.from(Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8'));
  return createHash('sha256').update(`${method} ${route}\n`).update(bytes).digest('hex');
}

const tenantOf = (req: IdempotentRequest) => ({ workspaceId: req.workspaceId, environment: req.environment });

function reusedKey(key: string): AppError {
  return new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    `Idempotency-Key '${key}' was already used with a different request in the last 24 hours; use a new key for a new request.`,
    { field: 'headers.idempotency-key' },
  );
}

/**
 * A read-only look for the stored response to this key, outside any transaction: the replay, a
 * 422 for another request under the same key, or null when the request has to run. Retries take
 * this fast path; runIdempotent still settles races inside the transaction.
 */
export async function findStoredResponse<T>(deps: Deps, req: IdempotentRequest): Promise<IdempotentOutcome<T> | null> {
  if (req.key === undefined) return null;
  const fingerprint = req.fingerprint ?? fingerprintOf(req.method, req.route, req.body);
  const row = await findKeyRow(deps.db, tenantOf(req), req.key);
  if (!row || row.createdAt <= deps.clock.now() - IDEMPOTENCY_WINDOW_MS || row.responseBody === '') return null;
  if (row.fingerprint !== fingerprint) throw reusedKey(req.key);
  return { body: JSON.parse(row.responseBody) as T, replayed: true };
}

/**
 * Runs `work` at most once per (workspace, environment, key) within 24 hours. The key's row is
 * written in the same transaction as the work, so a crash leaves neither; a concurrent request
 * with the same key waits on the row's primary key and then replays the committed response.
 * `stored` shapes what is kept for replays: secrets are never written, so a replay of a create
 * that returned one shows it as null.
 */
export async function runIdempotent<T, D extends StorageDeps = Deps>(
  deps: D,
  req: IdempotentRequest,
  work: (txDeps: D) => Promise<T>,
  stored: (body: T) => T = (b) => b,
): Promise<IdempotentOutcome<T>> {
  // One transaction for the key's row and the work; what the work defers (afterCommit) waits for its commit.
  const inUnitOfWork = <R>(fn: (txDeps: D) => Promise<R>) => inTransaction(deps.db, (trx) => fn({ ...deps, db: trx }));
  const key = req.key;
  if (key === undefined) return { body: await inUnitOfWork(work), replayed: false };
  const fingerprint = req.fingerprint ?? fingerprintOf(req.method, req.route, req.body);
  return inUnitOfWork(async (tx) => {
    const tenant = tenantOf(req);
    const now = deps.clock.now();
    const replay = (row: { fingerprint: string; responseBody: string }): IdempotentOutcome<T> => {
      if (row.fingerprint !== fingerprint) throw reusedKey(key);
      return { body: JSON.parse(row.responseBody) as T, replayed: true };
    };
    const existing = await findKeyRow(tx.db, tenant, key);
    if (existing && existing.createdAt > now - IDEMPOTENCY_WINDOW_MS) return replay(existing);
    if (existing) await deleteKeyRow(tx.db, tenant, key);
    if (!(await insertKeyRow(tx.db, tenant, key, fingerprint, now))) {
      // Another request with this key committed while we waited for its row.
      const winner = await findKeyRow(tx.db, tenant, key);
      if (winner) return replay(winner);
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', `A request with Idempotency-Key '${key}' is in progress; retry shortly.`);
    }
    const body = await work(tx);
    await storeResponse(tx.db, tenant, key, JSON.stringify(stored(body)));
    return { body, replayed: false };
  });
}

/**
 * For work that runs under runIdempotent elsewhere (the usage writer, on its own thread with
 * SQLite): a retry with a known key is replayed at once, from a read outside any transaction;
 * otherwise `run` gets the request to run under (null without a key), and runIdempotent settles
 * two racing requests with one key there.
 */
export async function replayOrRun<T>(
  deps: Deps,
  req: IdempotentRequest,
  run: (keyed: IdempotentRequest | null) => Promise<IdempotentOutcome<T>>,
): Promise<IdempotentOutcome<T>> {
  const stored = await findStoredResponse<T>(deps, req);
  if (stored) return stored;
  return run(req.key === undefined ? null : req);
}
