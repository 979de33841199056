import type { Db } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { parseJsonBody } from '../../lib/json-body.js';
import type { Tenant } from '../../lib/tenant.js';
import type { ResolvedEvent } from './aggregate-batch.js';
import { checkBatch, rejectedBatch } from './check-batch.js';
import type { ShapeRules } from './check-event-shape.js';
import { MAX_BATCH_EVENTS } from './usage-event.js';

/** The batch body's envelope: an object with one field, events, holding 1 to 1,000 events. */
export function eventsOf(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('VALIDATION_FAILED', 'The body must be a JSON object {"events": [...]}.', { field: 'body' });
  }
  for (const key of Object.keys(body)) {
    if (key !== 'events')
      throw new AppError('VALIDATION_FAILED', `body.${key} is not a known field; the body has one field, events.`, { field: `body.${key}` });
  }
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events)) throw new AppError('VALIDATION_FAILED', 'body.events must be an array of usage events.', { field: 'body.events' });
  if (events.length === 0) throw new AppError('VALIDATION_FAILED', 'body.events must hold at least one event.', { field: 'body.events' });
  if (events.length > MAX_BATCH_EVENTS) {
    throw new AppError('TOO_MANY_EVENTS', `A batch holds at most ${MAX_BATCH_EVENTS} events; this one has ${events.length}. Split it.`, {
      field: 'body.events',
    });
  }
  return events;
}

/** How a rejection names an event of a batch. */
export const batchAt = (i: number) => `events[${i}]`;

/**
 * A batch body as sent (its bytes) to the events to write, or the AppError to answer: the same
 * UTF-8 decoding as the body parser's (a bad sequence reads as U+FFFD), then the same parse,
 * envelope and event checks the main thread runs for a parsed body. The SQLite writer's checker
 * thread runs this, so a 200 KB batch costs the main thread only handing its bytes over.
 */
export async function checkBatchText(db: Db, tenant: Tenant, body: Uint8Array, rules: ShapeRules): Promise<ResolvedEvent[]> {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const events = eventsOf(parseJsonBody(text));
  const { resolved, rejected } = await checkBatch(db, tenant, events, rules, batchAt);
  if (rejected.length > 0) throw rejectedBatch(rejected);
  return resolved;
}
