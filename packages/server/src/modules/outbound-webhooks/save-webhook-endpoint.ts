import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, capDetails, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { checkEventTypeFilters } from './event-catalog.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { checkDestination, type HostResolver } from './resolve-destination.js';
import { generateSigningSecret, signingKeyOf, signingSecretHint } from './signing-secret.js';
import { secretAssociatedData, type CreateWebhookEndpointInput, type UpdateWebhookEndpointInput, type WebhookEndpoint } from './webhook-endpoint.js';
import {
  countWebhookEndpoints,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  markWebhookEndpointDeleted,
  updateWebhookEndpointRow,
} from './webhook-endpoint.repository.js';
import { failPendingDeliveries } from './webhook-message.repository.js';
import { ENDPOINT_DELETED_ERROR } from './webhook-message.js';

/**
 * Create, update and delete of outbound webhook endpoints. The URL's form, its filters and (with
 * the SSRF guard on) its addresses are checked before any transaction opens: resolving a name
 * may take up to 2 s, and no write lock waits for DNS. Each write records its audit event in the
 * same transaction, never the secret.
 */

const ADDRESS_WORDS: Record<string, string> = {
  unspecified: 'an unspecified',
  loopback: 'a loopback',
  private: 'a private',
  link_local: 'a link-local',
  metadata: 'a cloud metadata',
  shared: 'a shared (carrier-grade NAT)',
  reserved: 'a reserved',
  documentation: 'a documentation',
  multicast: 'a multicast',
  translated: 'an IPv4-translating (NAT64 or 6to4)',
};

/** The canonical URL, or the 400 (malformed) or 422 URL_NOT_ALLOWED (a policy) naming body.url. */
export async function checkUrlAllowed(deps: Pick<Deps, 'config'>, raw: string, resolver: HostResolver): Promise<string> {
  const checked = checkEndpointUrl(raw, { allowHttp: deps.config.outboundWebhookAllowHttp });
  if (!checked.ok)
    throw new AppError(checked.reason === 'scheme' ? 'URL_NOT_ALLOWED' : 'VALIDATION_FAILED', `body.url ${checked.message}`, { field: 'body.url' });
  if (!deps.config.outboundWebhookAllowPrivateAddresses) {
    const v = await checkDestination(checked.host, resolver);
    if (!v.allowed)
      throw new AppError(
        'URL_NOT_ALLOWED',
        `body.url reaches ${v.address}, ${ADDRESS_WORDS[v.class] ?? 'a refused'} address: webhook endpoints must be public (OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES is off).`,
        { field: 'body.url' },
      );
  }
  return checked.url;
}

export function checkFilters(eventTypes: readonly string[]): string[] {
  const r = checkEventTypeFilters(eventTypes, 'body.eventTypes');
  if (r.ok) return r.value;
  const details = r.errors.map((e) => ({ code: 'VALIDATION_FAILED' as const, field: e.field, message: `${e.field}: ${e.message}` }));
  throw new AppError('VALIDATION_FAILED', details.length === 1 ? details[0]!.message : `${details.length} event types are invalid; see errors.`, {
    details: capDetails(details, 'body'),
  });
}

/** A secret the operator brings, or a new one. */
export function checkSecret(secret: string | undefined, field: string): string {
  if (secret === undefined) return generateSigningSecret();
  if (signingKeyOf(secret) === null)
    throw new AppError('VALIDATION_FAILED', `${field} must be whsec_ followed by the base64 of 24 to 64 random bytes (or omit it to have one generated).`, {
      field,
    });
  return secret;
}

/** A create's body, checked (with DNS) before the transaction that writes it. */
export interface CheckedEndpoint {
  input: CreateWebhookEndpointInput;
  url: string;
  eventTypes: string[];
  secret: string;
}

export async function checkNewEndpoint(deps: Pick<Deps, 'config'>, input: CreateWebhookEndpointInput, resolver: HostResolver): Promise<CheckedEndpoint> {
  const eventTypes = checkFilters(input.eventTypes);
  const secret = checkSecret(input.secret, 'body.secret');
  return { input, url: await checkUrlAllowed(deps, input.url, resolver), eventTypes, secret };
}

export async function createWebhookEndpoint(
  deps: Deps,
  ctx: OperationContext,
  checked: CheckedEndpoint,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const { input } = checked;
  return inTransaction(deps.db, async (trx) => {
    const max = deps.config.outboundWebhookMaxEndpoints;
    if ((await countWebhookEndpoints(trx, ctx)) >= max)
      throw new AppError(
        'TOO_MANY_ENDPOINTS',
        `This workspace and environment already hold ${max} webhook endpoints (OUTBOUND_WEBHOOK_MAX_ENDPOINTS): delete one, or subscribe an existing one to more event types.`,
      );
    const now = deps.clock.now();
    const id = deps.ids.next('webhookEndpoint');
    const enabled = input.enabled ?? true;
    const endpoint: WebhookEndpoint = {
      id,
      workspaceId: ctx.workspaceId,
      environment: ctx.environment,
      url: checked.url,
      description: input.description ?? '',
      metadata: input.metadata ?? {},
      eventTypes: checked.eventTypes,
      status: enabled ? 'enabled' : 'disabled',
      disabledReason: enabled ? null : 'manual',
      disabledAt: enabled ? null : now,
      failingSince: null,
      maxConcurrency: input.maxConcurrency ?? deps.config.outboundWebhookEndpointConcurrency,
      secret: { ...deps.secrets.seal(checked.secret, secretAssociatedData(id)), hint: signingSecretHint(checked.secret) },
      previousSecret: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertWebhookEndpoint(trx, endpoint);
    await recordAudit(trx, deps, ctx, {
      eventType: 'webhook_endpoint.created',
      targetType: 'webhook_endpoint',
      targetId: id,
      payload: { url: endpoint.url, eventTypes: endpoint.eventTypes, status: endpoint.status, secretGiven: input.secret !== undefined },
    });
    return { endpoint, secret: checked.secret };
  });
}

export async function updateWebhookEndpoint(
  deps: Deps,
  ctx: OperationContext,
  id: string,
  input: UpdateWebhookEndpointInput,
  resolver: HostResolver,
): Promise<WebhookEndpoint> {
  const eventTypes = input.eventTypes === undefined ? undefined : checkFilters(input.eventTypes);
  const url = input.url === undefined ? undefined : await checkUrlAllowed(deps, input.url, resolver);
  return inTransaction(deps.db, async (trx) => {
    const current = await findWebhookEndpoint(trx, ctx, id);
    if (!current) throw notFound('webhook endpoint', id);
    const now = deps.clock.now();
    const next: WebhookEndpoint = {
      ...current,
      url: url ?? current.url,
      eventTypes: eventTypes ?? current.eventTypes,
      description: input.description ?? current.description,
      metadata: input.metadata ?? current.metadata,
      maxConcurrency: input.maxConcurrency ?? current.maxConcurrency,
      updatedAt: now,
    };
    const toggled = input.enabled !== undefined && input.enabled !== (current.status === 'enabled');
    if (toggled && input.enabled === false) {
      Object.assign(next, { status: 'disabled', disabledReason: 'manual', disabledAt: now });
      // Nothing more is sent; a replay after re-enabling sends what was pending.
      await failPendingDeliveries(trx, ctx, id, now);
    } else if (toggled) {
      Object.assign(next, { status: 'enabled', disabledReason: null, disabledAt: null, failingSince: null });
    }
    await updateWebhookEndpointRow(trx, next);
    await recordAudit(trx, deps, ctx, {
      eventType: toggled ? (input.enabled ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled') : 'webhook_endpoint.updated',
      targetType: 'webhook_endpoint',
      targetId: id,
      payload: { changed: Object.keys(input), ...(url !== undefined ? { url } : {}), ...(toggled && !input.enabled ? { reason: 'manual' } : {}) },
    });
    return next;
  });
}

/** Nothing more is sent to it; its pending deliveries fail (endpoint_deleted); its log stays until retention. */
export async function deleteWebhookEndpoint(deps: Deps, ctx: OperationContext, id: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    if (!(await markWebhookEndpointDeleted(trx, ctx, id, now))) throw notFound('webhook endpoint', id);
    await failPendingDeliveries(trx, ctx, id, now, ENDPOINT_DELETED_ERROR);
    await recordAudit(trx, deps, ctx, { eventType: 'webhook_endpoint.deleted', targetType: 'webhook_endpoint', targetId: id });
  });
}
