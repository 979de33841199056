import secureJson from 'secure-json-parse';
import type { Deps } from '../../deps.js';
import type { WebhookWriter } from './write-webhook.js';
import { describeJsonProblem, findJsonProblem } from '../../lib/json-limits.js';
import { numberToDecimal } from '../../lib/money.js';
import { monthStart } from '../../lib/periods.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { ResolvedEvent } from '../usage/aggregate-batch.js';
import { checkEventShape, isRejection } from '../usage/check-event-shape.js';
import { dimensionKeyOf } from '../usage/rating-dimension.js';
import { resolveCustomerRefsCached } from '../customers/customer-refs.js';
import { MAX_BATCH_EVENTS } from '../usage/usage-event.js';
import { extractEvent, selectValue } from './field-mapping.js';
import type { DeliverySource } from './delivery-source.js';
import { encodeBody, headersForLog, type WebhookLogEntry } from './webhook-log.js';
import { webhookResponseBody, type EventOutcome, type VerificationState } from './webhook-outcome.js';
import type { WebhookWriteJob } from './write-webhook.js';

/** The spec's rule: a webhook event more than 90 days old is rejected (with 422, MAPPING rules). */
export const WEBHOOK_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A request as it reached a known source, and what verification said. */
export interface VerifiedRequest {
  body: Buffer;
  headers: Headers;
  contentType: string | null;
  url: string;
  receivedAt: number;
  /** The occurredAt of events whose timestamp is not mapped: receipt time, or for a replay the original's. */
  defaultOccurredAt: number;
  correlationId: string;
  verification: VerificationState;
  logId: string;
  replayOf: string | null;
}

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
  logId: string;
}

export function sourceContext(d: DeliverySource, correlationId: string): OperationContext {
  return {
    workspaceId: d.source.workspaceId,
    environment: d.source.environment,
    actor: { type: 'WEBHOOK_SOURCE', id: d.source.id },
    correlationId,
    source: 'webhook',
  };
}

function logEntryBase(d: DeliverySource, r: VerifiedRequest, eventType: string | null): WebhookWriteJob['entry'] {
  return {
    id: r.logId,
    workspaceId: d.source.workspaceId,
    environment: d.source.environment,
    sourceId: d.source.id,
    // The name now, kept with the entry (webhook-log.ts says why).
    sourceDisplayName: d.source.displayName,
    receivedAt: r.receivedAt,
    verification: r.verification,
    eventType,
    headers: headersForLog(r.headers, d.signatureHeaders),
    ...encodeBody(r.body),
    url: r.url,
    replayOf: r.replayOf,
    correlationId: r.correlationId,
  };
}

/** A request refused whole (bad signature, unreadable body): logged, audited, never processed. */
export async function refuseWebhook(
  deps: Deps,
  writer: WebhookWriter,
  d: DeliverySource,
  r: VerifiedRequest,
  refusal: { httpStatus: number; code: string; message: string; errorCode: string; field?: string },
): Promise<WebhookAnswer> {
  await writer.writeWebhook({
    now: deps.clock.now(),
    ctx: sourceContext(d, r.correlationId),
    sourceId: d.source.id,
    dedupWindowMs: d.source.dedupWindowHours * 3_600_000,
    candidates: [],
    settled: [],
    entry: logEntryBase(d, r, null),
    refusal: { httpStatus: refusal.httpStatus, code: refusal.code, message: refusal.message },
  });
  const error = { code: refusal.errorCode, message: refusal.message, ...(refusal.field ? { field: refusal.field } : {}) };
  return { status: refusal.httpStatus, body: { success: false, errors: [error] }, logId: r.logId };
}

type ParsedBody = { ok: true; value: unknown } | { ok: false; errorCode: 'INVALID_JSON' | 'VALIDATION_FAILED'; message: string; field?: string };

/**
 * The body after verification: form-encoded bodies (the messaging provider, Slack's slash
 * commands) become an object of strings; anything else must be JSON, whatever its Content-Type
 * says. Prototype-poisoning keys are refused like everywhere else, and so are, as for the API's
 * bodies, nesting beyond MAX_JSON_DEPTH and NUL characters (lib/json-limits.ts): mapped values
 * reach PostgreSQL, and recursive code the mapped values.
 */
export function parseWebhookBody(body: Buffer, contentType: string | null): ParsedBody {
  const parsed = parseBodyText(body, contentType);
  if (!parsed.ok) return parsed;
  const problem = findJsonProblem(parsed.value, 'body');
  if (!problem) return parsed;
  const { field, message } = describeJsonProblem(problem, 'body');
  return { ok: false, errorCode: problem.kind === 'too_deep' ? 'INVALID_JSON' : 'VALIDATION_FAILED', message, field };
}

function parseBodyText(body: Buffer, contentType: string | null): ParsedBody {
  const text = body.toString('utf8');
  if (contentType !== null && contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(text)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    return { ok: true, value: out };
  }
  try {
    return { ok: true, value: secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) };
  } catch (err) {
    return { ok: false, errorCode: 'INVALID_JSON', message: `The body is neither form-encoded nor valid JSON: ${(err as Error).message}.` };
  }
}

const SHAPE_FIELD: Record<string, string> = {
  customerId: 'field_mappings.tenant_id',
  quantity: 'field_mappings.quantity',
  occurredAt: 'field_mappings.timestamp',
  metadata: 'field_mappings.properties',
  eventId: 'field_mappings.event_id',
};

/** The usage event rules name fields of an API event; a webhook's sender needs the mapping's names. */
function renameShapeField(field: string): string {
  const [, name = '', rest = ''] = /^event\.([A-Za-z]+)(.*)$/.exec(field) ?? [];
  return SHAPE_FIELD[name] ? `${SHAPE_FIELD[name]}${rest}` : field;
}

const eventTypeText = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/**
 * A verified request becomes usage: parse, filter by event type, map fields, check them with the
 * usage event rules (90 days instead of 35), resolve tenant_id to a customer, then store through
 * the writer (dedup, usage, log entry in one transaction). Replays enter here too.
 */
export async function processVerifiedWebhook(deps: Deps, writer: WebhookWriter, d: DeliverySource, r: VerifiedRequest): Promise<WebhookAnswer> {
  const parsed = parseWebhookBody(r.body, r.contentType);
  if (!parsed.ok) {
    const { errorCode, message, field } = parsed;
    return refuseWebhook(deps, writer, d, r, { httpStatus: 400, code: 'INVALID_BODY', errorCode, message, ...(field ? { field } : {}) });
  }
  const doc = parsed.value;
  // Slack checks a new Events API URL with a signed challenge that must be echoed.
  if (d.source.provider === 'chat' && isObject(doc) && doc.type === 'url_verification' && typeof doc.challenge === 'string') {
    await writer.writeWebhook(
      writeJob(d, r, 'url_verification', [], [{ index: 0, status: 'discarded', eventType: 'url_verification', reason: 'url_verification' }]),
    );
    return { status: 200, body: { challenge: doc.challenge }, logId: r.logId };
  }
  const isArray = Array.isArray(doc);
  const elements: unknown[] = isArray ? doc : [doc];
  if (elements.length > MAX_BATCH_EVENTS) {
    return refuseWebhook(deps, writer, d, r, {
      httpStatus: 413,
      code: 'TOO_MANY_EVENTS',
      errorCode: 'TOO_MANY_EVENTS',
      message: `A webhook body holds at most ${MAX_BATCH_EVENTS} events; this one has ${elements.length}.`,
    });
  }

  const settled: EventOutcome[] = [];
  const mapped: Array<{ index: number; tenantId: string; eventId: string; quantity: number; occurredAt: number; metadata: Record<string, unknown> | null }> =
    [];
  let firstType: string | null = null;
  elements.forEach((element, index) => {
    const selected = selectValue(d.eventType, element, r.headers);
    const eventType = selected.kind === 'one' ? eventTypeText(selected.value) : null;
    firstType ??= eventType;
    const filter = d.source.eventFilter;
    if (filter.length > 0 && (eventType === null || !filter.includes(eventType))) {
      settled.push({ index, status: 'discarded', eventType, reason: eventType === null ? 'no_event_type' : 'filtered' });
      return;
    }
    const x = extractEvent(d.mappings, element, r.headers, r.defaultOccurredAt);
    if ('code' in x) {
      settled.push({ index, status: 'rejected', code: x.code, field: x.field, message: x.message });
      return;
    }
    // The same rules as an event sent to the API, with the webhook's 90-day age limit.
    const shaped = checkEventShape(
      {
        customerId: x.tenantId,
        metricName: d.metricName,
        quantity: x.quantity,
        occurredAt: new Date(x.occurredAt).toISOString(),
        ...(x.properties ? { metadata: x.properties } : {}),
        eventId: x.eventId,
      },
      index,
      'event',
      { now: r.receivedAt, enforceMaxAge: true, maxAgeMs: WEBHOOK_MAX_AGE_MS },
    );
    if (isRejection(shaped)) {
      const field = renameShapeField(shaped.field);
      settled.push({ index, status: 'rejected', code: shaped.code, field, message: `${field}${shaped.message.slice(shaped.field.length)}` });
      return;
    }
    mapped.push({ index, tenantId: x.tenantId, eventId: x.eventId, quantity: x.quantity, occurredAt: shaped.occurredAt, metadata: shaped.metadata });
  });

  const ctx = sourceContext(d, r.correlationId);
  const customers = await resolveCustomerRefsCached(deps, ctx, [...new Set(mapped.map((m) => m.tenantId))]);
  const candidates: WebhookWriteJob['candidates'] = [];
  for (const m of mapped) {
    const customerId = customers.get(m.tenantId);
    if (customerId === undefined) {
      settled.push({
        index: m.index,
        status: 'rejected',
        code: 'UNKNOWN_CUSTOMER',
        field: 'field_mappings.tenant_id',
        message: `field_mappings.tenant_id: '${m.tenantId}' is neither the externalId nor the id of a customer in this workspace and environment. Create the customer with this externalId, then replay the log entry (or let the provider retry).`,
      });
      continue;
    }
    const metadata = m.metadata === null ? null : JSON.stringify(m.metadata);
    const event: ResolvedEvent = {
      customerId,
      metricName: d.metricName,
      quantity: m.quantity,
      quantityText: numberToDecimal(m.quantity),
      occurredAt: m.occurredAt,
      periodStart: monthStart(m.occurredAt),
      eventId: m.eventId,
      metadata,
      dimension: dimensionKeyOf(m.metadata as never, d.dimensions),
    };
    candidates.push({
      index: m.index,
      customerId,
      fields: { eventId: m.eventId, tenantId: m.tenantId, quantity: m.quantity, metricId: d.source.metricId },
      event,
    });
  }

  const result = await writer.writeWebhook(writeJob(d, r, firstType, candidates, settled));
  return { status: result.summary.httpStatus, body: webhookResponseBody(result.outcomes, isArray, result.summary), logId: r.logId };
}

function writeJob(
  d: DeliverySource,
  r: VerifiedRequest,
  eventType: string | null,
  candidates: WebhookWriteJob['candidates'],
  settled: EventOutcome[],
): WebhookWriteJob {
  return {
    now: r.receivedAt,
    ctx: sourceContext(d, r.correlationId),
    sourceId: d.source.id,
    dedupWindowMs: d.source.dedupWindowHours * 3_600_000,
    candidates,
    settled,
    entry: logEntryBase(d, r, eventType),
    refusal: null,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type { WebhookLogEntry };
