import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { severities, type AuditEvent } from './audit-event.js';
import { actorTypes } from '../../lib/operation-context.js';

export const AuditEventSchema = Type.Object(
  {
    object: Type.Literal('audit_event'),
    eventId: Type.String({ description: 'evt_…, time-sortable; the cursor for pagination.' }),
    tenantId: Type.String({ description: 'The workspace (ws_…).' }),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    eventType: Type.String({ description: 'Dotted, e.g. api_key.rotated, webhook.rejected, usage.batch_ingested.' }),
    source: Type.String({ description: 'api, widget, hub, cli, system, oauth or webhook.' }),
    severity: Type.Union(
      severities.map((s) => Type.Literal(s)),
      { description: `Lowest first: ${severities.join(', ')}.` },
    ),
    actorType: Type.Union(actorTypes.map((a) => Type.Literal(a))),
    actorId: Type.String(),
    targetType: Type.Union([Type.String(), Type.Null()]),
    targetId: Type.Union([Type.String(), Type.Null()]),
    payload: Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form; never a secret.' }),
    correlationId: Type.String({ description: 'X-Correlation-Id of the request that caused it, or its request id.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'AuditEvent' },
);

export function presentAuditEvent(e: AuditEvent): Static<typeof AuditEventSchema> {
  return {
    object: 'audit_event',
    eventId: e.eventId,
    tenantId: e.tenantId ?? '',
    environment: e.environment ?? 'test',
    eventType: e.eventType,
    source: e.source,
    severity: e.severity,
    actorType: e.actorType,
    actorId: e.actorId,
    targetType: e.targetType,
    targetId: e.targetId,
    payload: e.payload,
    correlationId: e.correlationId,
    createdAt: toIso(e.createdAt),
  };
}
