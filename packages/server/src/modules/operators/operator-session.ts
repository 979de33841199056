import type { Static } from '@sinclair/typebox';
import { sha256Hex } from '../../lib/crypto.js';
import { toIso } from '../../lib/clock.js';
import { presentOperator, type Operator, type OperatorSessionSchema } from './operator.js';

/**
 * The CSRF token of a console session, derived from its cookie's secret: the page (same origin)
 * reads it from the session's JSON and sends it as X-CSRF-Token; another site can neither read
 * that JSON nor the HttpOnly cookie, so it cannot forge the header. Derived, so nothing more is
 * stored, and it lasts exactly as long as the session.
 */
export function csrfTokenFor(sessionSecret: string): string {
  return sha256Hex(`tollgate-console-csrf:${sessionSecret}`);
}

export interface OperatorSessionView {
  id: string;
  operator: Operator;
  workspace: { id: string; name: string };
  expiresAt: number;
}

export function presentOperatorSession(s: OperatorSessionView, sessionSecret: string): Static<typeof OperatorSessionSchema> {
  return {
    id: s.id,
    object: 'operator_session',
    operator: presentOperator(s.operator),
    workspace: s.workspace,
    csrfToken: csrfTokenFor(sessionSecret),
    expiresAt: toIso(s.expiresAt),
  };
}
