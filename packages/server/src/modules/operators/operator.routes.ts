import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { clearedCookie, parseCookies, sessionCookie } from '../../http/cookies.js';
import { bearerSecurity, errors, IdParams, ListOf, ListQuery, publicSecurity } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { findWorkspace } from '../tenancy/workspace.repository.js';
import { acceptInvitation } from './accept-invitation.js';
import { inviteOperator } from './invite-operator.js';
import {
  AcceptInvitationBody,
  CONSOLE_COOKIE,
  CreatedOperatorInvitationSchema,
  InviteOperatorBody,
  OperatorSchema,
  OperatorSessionSchema,
  presentInvitation,
  presentOperator,
  SignInBody,
} from './operator.js';
import { presentOperatorSession, type OperatorSessionView } from './operator-session.js';
import { findOperator, listOperators } from './operator.repository.js';
import { removeOperator } from './remove-operator.js';
import { signIn } from './sign-in.js';
import { signOut } from './sign-out.js';

const consoleOnly = { auth: { kind: 'console' } } as const;
const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const consoleSecurity = [{ consoleSession: [] }];
const tags = ['Operators'];

const SignedOutSchema = Type.Object(
  { id: Type.String(), object: Type.Literal('operator_session'), deleted: Type.Literal(true) },
  { title: 'DeletedOperatorSession' },
);

/** Where the console lives, for links sent to people: PUBLIC_URL, else this request's own origin. */
function baseUrl(deps: Deps, req: FastifyRequest): string {
  return deps.config.publicUrl ?? `${req.protocol}://${req.headers.host ?? req.hostname}`;
}

function startSession(reply: FastifyReply, view: OperatorSessionView, secret: string, now: number) {
  reply.header('set-cookie', sessionCookie(CONSOLE_COOKIE, secret, (view.expiresAt - now) / 1000));
  reply.header('cache-control', 'no-store');
  return presentOperatorSession(view, secret);
}

export async function operatorRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/operator_sessions', {
    schema: {
      operationId: 'createOperatorSession',
      summary: 'Sign in to the console',
      description:
        'Checks an operator’s e-mail and password and sets the console’s session cookie (`__Host-tollgate_console`: HttpOnly, Secure, SameSite=Strict, 12 hours). With the cookie, the workspace routes work without an API key; POST, PATCH, PUT and DELETE must also send the returned `csrfToken` as `X-CSRF-Token`, and `X-Tollgate-Environment: test|live` picks the environment (default test). A wrong e-mail or password gets 401 (the answer does not say which). At most 5 attempts per IP address and e-mail and 50 per IP address in 15 minutes (429 with Retry-After). Every attempt is audited.',
      tags,
      security: publicSecurity,
      body: SignInBody,
      response: { 200: OperatorSessionSchema, ...errors(401) },
    },
    handler: async (req, reply) => {
      const { session, secret } = await signIn(deps, req.body, { ip: req.ip, correlationId: req.correlationId });
      return startSession(reply, session, secret, deps.clock.now());
    },
  });

  app.get('/api/v1/operator_sessions/current', {
    config: consoleOnly,
    schema: {
      operationId: 'retrieveCurrentOperatorSession',
      summary: 'The console session this browser holds',
      description:
        'Who is signed in, to which workspace, until when, and the CSRF token to send on changes. 401 when the cookie is missing, expired or signed out.',
      tags,
      security: consoleSecurity,
      response: { 200: OperatorSessionSchema },
    },
    handler: async (req, reply) => {
      const c = req.credential;
      const secret = parseCookies(req.headers.cookie).get(CONSOLE_COOKIE);
      if (c?.type !== 'operator_session' || secret === undefined) throw new Error('operator session route reached without a console session');
      const [operator, workspace] = await Promise.all([findOperator(deps.db, c.workspaceId, c.operatorId), findWorkspace(deps.db, c.workspaceId)]);
      if (!operator || !workspace) throw new AppError('UNAUTHENTICATED', 'Your console session has ended; sign in again.');
      reply.header('cache-control', 'no-store');
      return presentOperatorSession({ id: c.id, operator, workspace: { id: workspace.id, name: workspace.name }, expiresAt: c.expiresAt ?? 0 }, secret);
    },
  });

  app.delete('/api/v1/operator_sessions/current', {
    config: consoleOnly,
    schema: {
      operationId: 'deleteCurrentOperatorSession',
      summary: 'Sign out of the console',
      description: 'Ends the session at once on every node and clears the cookie. Needs X-CSRF-Token, like every change made with the cookie.',
      tags,
      security: consoleSecurity,
      response: { 200: SignedOutSchema, ...errors(403) },
    },
    handler: async (req, reply) => {
      const id = req.credential?.id ?? '';
      await signOut(deps, req.ctx, id);
      reply.header('set-cookie', clearedCookie(CONSOLE_COOKIE));
      return { id, object: 'operator_session' as const, deleted: true as const };
    },
  });

  app.get('/api/v1/operators', {
    config: admin,
    schema: {
      operationId: 'listOperators',
      summary: 'List the workspace’s operators',
      description: 'The people who can sign in to this workspace’s console, newest first. Operators belong to the workspace, not to an environment.',
      tags,
      security: bearerSecurity,
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(OperatorSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listOperators(deps.db, req.ctx.workspaceId, req.query);
      return { object: 'list' as const, data: page.items.map(presentOperator), hasMore: page.hasMore };
    },
  });

  app.delete('/api/v1/operators/:id', {
    config: admin,
    schema: {
      operationId: 'deleteOperator',
      summary: 'Remove an operator',
      description:
        'They cannot sign in again, and their open console sessions end at once on every node. The last admin cannot be removed (409). The account’s row is kept for the audit trail; the e-mail may be invited again.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: OperatorSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentOperator(await removeOperator(deps, req.ctx, req.params.id)),
  });

  app.post('/api/v1/operator_invitations', {
    config: admin,
    schema: {
      operationId: 'createOperatorInvitation',
      summary: 'Invite an operator',
      description:
        'Returns a link to send to the person (by your own e-mail or chat: Tollgate sends none). Opening it within 7 days, they choose a name and a password and are signed in with the role given here. The token is shown only in this answer and works once. 409 when the e-mail is already an operator of the workspace.',
      tags,
      security: bearerSecurity,
      body: InviteOperatorBody,
      response: { 200: CreatedOperatorInvitationSchema, ...errors(403, 409) },
    },
    handler: async (req) => {
      const { invitation, token } = await inviteOperator(deps, req.ctx, req.body);
      return { ...presentInvitation(invitation), token, url: `${baseUrl(deps, req)}/console/accept#${token}` };
    },
  });

  app.post('/api/v1/operator_invitations/accept', {
    schema: {
      operationId: 'acceptOperatorInvitation',
      summary: 'Accept an invitation and sign in',
      description:
        'Creates the invited operator’s account with the name and password given (at least 12 characters) and signs them in, as `POST /api/v1/operator_sessions` does. The link works once; a used, expired or unknown one gets 401.',
      tags,
      security: publicSecurity,
      body: AcceptInvitationBody,
      response: { 200: OperatorSessionSchema, ...errors(401) },
    },
    handler: async (req, reply) => {
      const { session, secret } = await acceptInvitation(deps, req.body, { ip: req.ip, correlationId: req.correlationId });
      return startSession(reply, session, secret, deps.clock.now());
    },
  });
}
