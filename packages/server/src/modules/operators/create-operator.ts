import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { Actor, AuditSource } from '../../lib/operation-context.js';
import type { OperatorRole } from '../../lib/principal.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { findWorkspace } from '../tenancy/workspace.repository.js';
import { normalizeEmail, type Operator } from './operator.js';
import { accountOrigin } from './operator-events.js';
import { findOperatorByEmail, insertOperator } from './operator.repository.js';
import { hashPassword, passwordCost, passwordProblem, type PasswordCost } from './password.js';

export interface CreateOperatorInput {
  workspaceId: string;
  email: string;
  name: string;
  role: OperatorRole;
  password: string;
}

type Origin = { actor: Actor | 'self'; correlationId: string; source: AuditSource };

/**
 * A new operator account (the CLI's `tollgate users create`, an accepted invitation, the demo).
 * The password is checked for length and kept only as its scrypt hash. `fieldPrefix` names the
 * fields in errors the way the caller's input names them (`body.` for the API, `--` for the CLI).
 */
export async function createOperator(deps: Deps, input: CreateOperatorInput, origin: Origin, fieldPrefix = 'body.'): Promise<Operator> {
  const prepared = await prepareOperator(input, passwordCost(deps.config.profile), fieldPrefix);
  return inTransaction(deps.db, (trx) => addOperator({ ...deps, db: trx }, prepared, origin));
}

export interface PreparedOperator {
  input: CreateOperatorInput & { email: string; name: string };
  passwordHash: string;
  fieldPrefix: string;
}

/** Checks the input and hashes the password: tens of milliseconds, so done before a transaction takes the write lock. */
export async function prepareOperator(input: CreateOperatorInput, cost: PasswordCost, fieldPrefix = 'body.'): Promise<PreparedOperator> {
  const problem = passwordProblem(input.password);
  if (problem) throw new AppError('VALIDATION_FAILED', problem, { field: `${fieldPrefix}password` });
  const name = input.name.trim();
  if (name === '') throw new AppError('VALIDATION_FAILED', 'The name must not be empty.', { field: `${fieldPrefix}name` });
  return { input: { ...input, email: normalizeEmail(input.email), name }, passwordHash: await hashPassword(input.password, cost), fieldPrefix };
}

/** Inserts a prepared account, in the caller's transaction. */
export async function addOperator(deps: Deps, prepared: PreparedOperator, origin: Origin): Promise<Operator> {
  const { input, fieldPrefix } = prepared;
  if (!(await findWorkspace(deps.db, input.workspaceId))) {
    throw new AppError('NOT_FOUND', `No workspace with id '${input.workspaceId}' exists.`, { field: `${fieldPrefix}workspace` });
  }
  if (await findOperatorByEmail(deps.db, input.workspaceId, input.email)) {
    throw new AppError('CONFLICT', `'${input.email}' already has an operator account in this workspace.`, { field: `${fieldPrefix}email` });
  }
  const operator: Operator = {
    id: deps.ids.next('operator'),
    workspaceId: input.workspaceId,
    email: input.email,
    name: input.name,
    role: input.role,
    createdAt: deps.clock.now(),
    removedAt: null,
  };
  await insertOperator(deps.db, operator, prepared.passwordHash);
  const actor = origin.actor === 'self' ? { type: 'OPERATOR' as const, id: operator.id } : origin.actor;
  await recordAudit(deps.db, deps, accountOrigin(operator.workspaceId, actor, origin.correlationId, origin.source), {
    eventType: 'operator.created',
    targetType: 'operator',
    targetId: operator.id,
    payload: { email: operator.email, role: operator.role },
  });
  return operator;
}
