import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import type { AuditFilterQuery } from './audit-filter.js';

/** A saved audit search: a name and the filters of GET /v1/events. */
export interface AuditSearchPreset {
  id: string;
  name: string;
  filters: AuditFilterQuery;
  createdAt: number;
}

const filterFields = {
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        "Full text: every word must appear among the words of the event's type, its target's type and its payload's values (not keys, not ids: actorId, targetId and correlationId have filters of their own); case-insensitive whole words, a word being a run of letters and digits (words over 200 characters are not indexed); end a word with * for a prefix (rot*).",
    }),
  ),
  type: Type.Optional(Type.String({ maxLength: 200, description: 'An event type (api_key.rotated) or a prefix (api_key.*).' })),
  severity: Type.Optional(Type.String({ maxLength: 20, description: 'This severity and every higher one.' })),
  actorType: Type.Optional(Type.String({ maxLength: 50 })),
  actorId: Type.Optional(Type.String({ maxLength: 200 })),
  targetType: Type.Optional(Type.String({ maxLength: 100 })),
  targetId: Type.Optional(Type.String({ maxLength: 200 })),
  correlationId: Type.Optional(Type.String({ maxLength: 200 })),
  createdFrom: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 to the second; inclusive.' })),
  createdTo: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 to the second; exclusive.' })),
};
/** The filters GET /v1/events takes in its query string. */
export const AuditFiltersSchema = Type.Object(filterFields, { title: 'AuditFilters', additionalProperties: false });

export const AuditSearchPresetSchema = Type.Object(
  {
    id: Type.String({ description: 'asp_…' }),
    object: Type.Literal('audit_search_preset'),
    name: Type.String(),
    filters: AuditFiltersSchema,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'AuditSearchPreset' },
);

export const CreateAuditSearchPresetBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'Unique in the workspace and environment.' }), filters: AuditFiltersSchema },
  { additionalProperties: false },
);
export type CreateAuditSearchPresetInput = Static<typeof CreateAuditSearchPresetBody>;

export function presentPreset(p: AuditSearchPreset): Static<typeof AuditSearchPresetSchema> {
  return { id: p.id, object: 'audit_search_preset', name: p.name, filters: p.filters, createdAt: toIso(p.createdAt) };
}
