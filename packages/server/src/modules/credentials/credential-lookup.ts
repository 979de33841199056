import type { AliasableExpression, Expression } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Credential } from '../../lib/principal.js';

/**
 * The workspace's own rate limit (null: the configured default) as a scalar subquery on a
 * workspace id. Tenancy owns that table and supplies it (modules/authentication hands it over):
 * tenancy sits above the credential kinds, since a new workspace gets keys.
 */
export type WorkspaceRateLimitOf = (db: Db, workspaceId: Expression<string>) => AliasableExpression<number | null>;

/**
 * Each kind's repository finds its own credentials by the SHA-256 of the secret, whatever their
 * state, with the workspace's rate limit in the same query: one query per cache miss.
 */
export type FindCredentialByHash = (db: Db, hash: string, rateLimitOf: WorkspaceRateLimitOf) => Promise<Credential | null>;
