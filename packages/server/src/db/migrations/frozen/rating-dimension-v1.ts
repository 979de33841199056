/**
 * FROZEN: a copy of modules/usage/rating-dimension.ts's dimensionKeyOf as it stood when migration
 * 0010 was written, which computes the rating dimension of stored events with it. Never edit
 * this file: a migration must write tomorrow exactly what it wrote today. When the module's key
 * changes, the change ships with a new migration (and a v2 copy if it needs one).
 */
type MetadataValue = string | number | boolean | null;

const NO_DIMENSION = '';

const asString = (v: MetadataValue | undefined): string | null => (typeof v === 'string' ? v : null);

function dimensionKeyOf(metadata: Readonly<Record<string, MetadataValue>> | null): string {
  if (metadata === null) return NO_DIMENSION;
  const s = asString(metadata.executionStatus);
  const t = asString(metadata.tool);
  const e = asString(metadata.endpoint);
  if (s === null && t === null && e === null) return NO_DIMENSION;
  return JSON.stringify([s, t, e]);
}

/** The dimension key of a stored event's metadata column (JSON text of an object, or null). */
export function dimensionKeyOfStored(metadata: string | null): string {
  if (metadata === null) return NO_DIMENSION;
  const parsed = JSON.parse(metadata) as unknown;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? dimensionKeyOf(parsed as Record<string, MetadataValue>) : NO_DIMENSION;
}
