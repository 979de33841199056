import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { newOperatorSessionToken } from '../credentials/secrets.js';
import { findWorkspace } from '../tenancy/workspace.repository.js';
import {
  normalizeEmail,
  SESSION_SECONDS,
  SIGN_IN_ATTEMPTS_PER_EMAIL,
  SIGN_IN_ATTEMPTS_PER_IP,
  SIGN_IN_WINDOW_MS,
  type Operator,
  type SignInInput,
} from './operator.js';
import { accountOrigin } from './operator-events.js';
import type { OperatorSessionView } from './operator-session.js';
import { findOperatorsForSignIn, insertOperatorSession } from './operator.repository.js';
import { passwordCost, verifyAgainstNothing, verifyPassword } from './password.js';

export interface SignInRequest {
  ip: string;
  correlationId: string;
}

const WRONG = 'The e-mail or the password is not right.';

/**
 * Checks an e-mail and password and opens a console session. Attempts are limited per IP
 * address and e-mail and per IP address (429 with Retry-After), every outcome is audited, and
 * an unknown e-mail costs as much time as a wrong password, so neither the answer nor its
 * timing tells which e-mails have accounts.
 */
export async function signIn(deps: Deps, input: SignInInput, req: SignInRequest): Promise<{ session: OperatorSessionView; secret: string }> {
  const email = normalizeEmail(input.email);
  const candidates = (await findOperatorsForSignIn(deps.db, email)).filter((o) => input.workspaceId === undefined || o.workspaceId === input.workspaceId);
  await limitAttempts(deps, email, req, candidates.length === 1 ? (candidates[0] as Operator) : null);
  // The password is checked before anything is said about the e-mail's workspaces: asking
  // "which workspace?" first would tell anyone which e-mails are operators of several. Each
  // account has its own hash; they are checked side by side (scrypt runs on libuv's pool), so an
  // e-mail with several accounts costs about the time of one, like an unknown e-mail.
  const matches =
    candidates.length === 0
      ? await verifyAgainstNothing(input.password, passwordCost(deps.config.profile)).then(() => [])
      : (await Promise.all(candidates.map(async (c) => ((await verifyPassword(input.password, c.passwordHash)) ? c : null)))).filter((c) => c !== null);
  if (matches.length === 0) {
    // Audited in each account's workspace, so each workspace's admins see the attempts.
    if (candidates.length === 0) await recordFailure(deps, req, email, null, 'unknown_email');
    for (const c of candidates) await recordFailure(deps, req, email, c, 'wrong_password');
    throw new AppError('UNAUTHENTICATED', WRONG, { field: 'body.password' });
  }
  if (matches.length > 1) {
    // Only someone who knows the password gets here, so naming the ambiguity tells them nothing new.
    throw new AppError('VALIDATION_FAILED', `'${email}' is an operator of several workspaces with this password: say which one with workspaceId.`, {
      field: 'body.workspaceId',
    });
  }
  const { passwordHash: _hash, ...operator } = matches[0] as Operator & { passwordHash: string };
  return openSession(deps, operator, req);
}

/** A new console session for an operator who just proved who they are (sign-in, an accepted invitation). */
export async function openSession(deps: Deps, operator: Operator, req: SignInRequest): Promise<{ session: OperatorSessionView; secret: string }> {
  const secret = newOperatorSessionToken();
  const now = deps.clock.now();
  const session = { id: deps.ids.next('operatorSession'), expiresAt: now + SESSION_SECONDS * 1000 };
  const workspace = await inTransaction(deps.db, async (trx) => {
    const w = await findWorkspace(trx, operator.workspaceId);
    if (!w) throw new AppError('UNAUTHENTICATED', WRONG, { field: 'body.password' });
    await insertOperatorSession(trx, {
      id: session.id,
      workspaceId: operator.workspaceId,
      operatorId: operator.id,
      tokenHash: secret.hash,
      ip: req.ip,
      expiresAt: session.expiresAt,
      createdAt: now,
    });
    await recordAudit(trx, deps, accountOrigin(operator.workspaceId, { type: 'OPERATOR', id: operator.id }, req.correlationId, 'console'), {
      eventType: 'operator.signed_in',
      targetType: 'operator_session',
      targetId: session.id,
      payload: { email: operator.email, ip: req.ip },
    });
    return { id: w.id, name: w.name };
  });
  return { session: { ...session, operator, workspace }, secret: secret.plaintext };
}

async function limitAttempts(deps: Deps, email: string, req: SignInRequest, operator: Operator | null): Promise<void> {
  let results;
  try {
    results = await Promise.all([
      deps.limiter.hit(`signin:${req.ip}:${email}`, SIGN_IN_ATTEMPTS_PER_EMAIL, SIGN_IN_WINDOW_MS),
      deps.limiter.hit(`signin:${req.ip}`, SIGN_IN_ATTEMPTS_PER_IP, SIGN_IN_WINDOW_MS),
    ]);
  } catch (err) {
    // As every rate limit here: the store being down must not lock every operator out.
    deps.log.error({ err }, 'rate limiter unavailable; sign-in attempt allowed');
    return;
  }
  const refused = results.find((r) => !r.allowed);
  if (!refused) return;
  const retryAfter = Math.max(1, Math.ceil((refused.resetAt - deps.clock.now()) / 1000));
  // Written to the account's workspace when there is one, so its admins see the attempts.
  await recordFailure(deps, req, email, operator, 'rate_limited');
  throw new AppError('RATE_LIMITED', `Too many sign-in attempts from this address. Try again in ${retryAfter} seconds.`, {
    headers: { 'retry-after': String(retryAfter) },
  });
}

async function recordFailure(deps: Deps, req: SignInRequest, email: string, operator: Operator | null, reason: string): Promise<void> {
  await recordAudit(deps.db, deps, accountOrigin(operator?.workspaceId ?? null, { type: 'ANONYMOUS', id: req.ip }, req.correlationId, 'console'), {
    eventType: 'operator.sign_in_failed',
    severity: 'WARN',
    targetType: operator ? 'operator' : null,
    targetId: operator?.id ?? null,
    payload: { email, ip: req.ip, reason },
  });
}
