import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { registerFormParser } from '../../http/body-parsers.js';
import { errorHandler } from '../../http/error-handler.js';
import type { App } from '../../http/types.js';
import { publicSecurity } from '../../http/schemas.js';
import { describeValidationErrors } from '../../http/validation.js';
import { AppError, type ErrorDetail } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { issueAccessToken } from './issue-access-token.js';

// RFC 6749 section 5.2 error bodies, with our envelope alongside so every client finds its field.
const OAuthError = Type.Object({
  error: Type.String({ description: 'invalid_request, invalid_client or unsupported_grant_type' }),
  error_description: Type.String(),
  success: Type.Literal(false),
  errors: Type.Array(Type.Object({ code: Type.String(), message: Type.String(), field: Type.Optional(Type.String()) })),
});

const TokenBody = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ maxLength: 100, description: 'client_credentials' })),
    client_id: Type.Optional(Type.String({ maxLength: 100 })),
    client_secret: Type.Optional(Type.String({ maxLength: 200 })),
    scope: Type.Optional(Type.String({ maxLength: 1000, description: 'Accepted and ignored: the credential’s subscription decides access.' })),
  },
  { additionalProperties: true, maxProperties: 20 },
);

function oauthError(reply: FastifyReply, status: number, error: string, description: string, field?: string) {
  if (error === 'invalid_client') reply.header('www-authenticate', 'Basic realm="tollgate", charset="UTF-8"');
  reply.header('cache-control', 'no-store');
  return reply.code(status).send({
    error,
    error_description: description,
    success: false as const,
    errors: [{ code: error === 'invalid_client' ? 'UNAUTHENTICATED' : 'INVALID_REQUEST', message: description, ...(field ? { field } : {}) }],
  });
}

/**
 * A body that fails before the handler (malformed JSON, a field of the wrong type, none at all)
 * gets RFC 6749's invalid_request. The shared handler's envelope lacks `error`, so the 400
 * schema above could not serialize it and the client would get a 500.
 */
function tokenErrorHandler(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  let details: ErrorDetail[] | null = null;
  const fe = error as FastifyError;
  if (error instanceof AppError && error.status === 400) details = error.details;
  else if (fe.validation) details = describeValidationErrors(fe.validationContext ?? 'body', fe.validation);
  if (!details) return errorHandler(error, request, reply);
  reply.header('cache-control', 'no-store');
  return reply.code(400).send({
    error: 'invalid_request',
    error_description: details.map((d) => d.message).join(' '),
    success: false as const,
    errors: details,
  });
}

/** Client credentials from HTTP Basic (each part form-url-encoded, RFC 6749 2.3.1) or the body. */
function presentedCredentials(req: FastifyRequest<{ Body: Record<string, string | undefined> | undefined }>) {
  const header = req.headers.authorization;
  const body = req.body ?? {};
  let basic: { id: string; secret: string } | null = null;
  if (header && /^Basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      try {
        basic = {
          id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
          secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
        };
      } catch {
        basic = null;
      }
    }
  }
  return { basic, bodyId: body.client_id, bodySecret: body.client_secret };
}

export async function oauthRoutes(app: App, deps: Deps): Promise<void> {
  // Its own scope: the form parser RFC 6749 requires serves this endpoint only.
  await app.register(async (scope) => tokenRoute(scope as unknown as App, deps));
}

function tokenRoute(app: App, deps: Deps): void {
  registerFormParser(app);
  app.post('/oauth/token', {
    config: { auth: { kind: 'none' } },
    schema: {
      operationId: 'createAccessToken',
      summary: 'OAuth 2.0 client-credentials grant (RFC 6749 section 4.4)',
      description:
        'For AI_AGENT and MCP_SERVER products. Send grant_type=client_credentials as application/x-www-form-urlencoded, with the client ID and secret in HTTP Basic or as client_id and client_secret. Returns a short-lived bearer token that POST /v1/keys/verify accepts like a product key.',
      tags: ['OAuth'],
      security: publicSecurity,
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: TokenBody,
      response: {
        200: Type.Object({
          access_token: Type.String(),
          token_type: Type.Literal('Bearer'),
          expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
        }),
        400: OAuthError,
        401: OAuthError,
      },
    },
    // Fastify types a route's errorHandler as returning void, yet its error handling treats a returned
    // thenable (here the reply) as the handler's result, as for the app-wide handler; returning nothing would change that path.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the returned reply is part of Fastify's contract at runtime
    errorHandler: tokenErrorHandler,
    handler: async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, string | undefined>;
      const { basic, bodyId, bodySecret } = presentedCredentials(req as never);
      if (!body.grant_type) return oauthError(reply, 400, 'invalid_request', 'grant_type is required.', 'body.grant_type');
      if (body.grant_type !== 'client_credentials') {
        return oauthError(reply, 400, 'unsupported_grant_type', `grant_type '${body.grant_type}' is not supported; use client_credentials.`, 'body.grant_type');
      }
      if (basic && (bodyId !== undefined || bodySecret !== undefined)) {
        return oauthError(reply, 400, 'invalid_request', 'Send the client credentials either in HTTP Basic or in the body, not both.');
      }
      const id = basic?.id ?? bodyId;
      const secret = basic?.secret ?? bodySecret;
      if (!id || !secret) {
        return oauthError(
          reply,
          401,
          'invalid_client',
          'Client authentication failed: send the client ID and secret (HTTP Basic or client_id and client_secret).',
        );
      }
      const result = await issueAccessToken(deps, id, secret, req.correlationId);
      if (!result.ok) {
        await recordAudit(
          deps.db,
          deps,
          {
            workspaceId: result.tenant?.workspaceId ?? null,
            environment: result.tenant?.environment ?? null,
            actor: { type: 'ANONYMOUS', id: req.ip },
            correlationId: req.correlationId,
            source: 'oauth',
          },
          {
            eventType: 'auth.failed',
            severity: 'WARN',
            targetType: 'client_credential',
            targetId: result.tenant ? id : null,
            payload: { reason: result.reason, ip: req.ip, route: '/oauth/token' },
          },
        );
        return oauthError(reply, 401, 'invalid_client', 'Client authentication failed.');
      }
      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
      return { access_token: result.grant.accessToken, token_type: 'Bearer' as const, expires_in: result.grant.expiresIn };
    },
  });
}
