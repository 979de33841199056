/**
 * What became of one webhook request, and of each event in it (a JSON array body, as the email
 * provider sends, holds several). Pure: the receiver, the writer and replay share these rules.
 */
export type LogStatus = 'accepted' | 'duplicate' | 'discarded' | 'rejected';
export type VerificationState = 'passed' | 'failed' | 'skipped';

export interface MappedFields {
  eventId: string;
  tenantId: string;
  quantity: number;
  metricId: string;
}

export type EventOutcome =
  | ({ index: number; status: 'accepted'; customerId: string } & MappedFields)
  | ({ index: number; status: 'duplicate'; customerId: string } & MappedFields)
  | { index: number; status: 'discarded'; eventType: string | null; reason: string }
  | { index: number; status: 'rejected'; code: string; field: string | null; message: string };

export interface Summary {
  status: LogStatus;
  httpStatus: number;
  reasonCode: string | null;
  reasonMessage: string | null;
}

/**
 * A request's status from its events: accepted when any event was stored; otherwise rejected
 * when any was refused, then duplicate, then discarded. Any refused event makes the answer 422,
 * even when others were stored: providers retry non-2xx answers, a retry is safe (stored events
 * come back as duplicates), and it gives the refused ones another chance (a customer created
 * since, say).
 */
export function summarizeOutcomes(outcomes: readonly EventOutcome[]): Summary {
  const rejected = outcomes.find((o) => o.status === 'rejected');
  const has = (s: LogStatus) => outcomes.some((o) => o.status === s);
  const status: LogStatus = has('accepted') ? 'accepted' : rejected ? 'rejected' : has('duplicate') ? 'duplicate' : 'discarded';
  if (rejected && rejected.status === 'rejected') {
    return { status, httpStatus: 422, reasonCode: rejected.code, reasonMessage: rejected.message };
  }
  if (outcomes.length === 0) return { status, httpStatus: 200, reasonCode: 'empty_batch', reasonMessage: 'The body is an empty array: nothing to ingest.' };
  const discarded = outcomes.find((o) => o.status === 'discarded');
  if (status === 'discarded' && discarded && discarded.status === 'discarded') {
    return { status, httpStatus: 200, reasonCode: discarded.reason, reasonMessage: null };
  }
  return { status, httpStatus: 200, reasonCode: null, reasonMessage: null };
}

/** The spec's accepted-webhook response for one event (duplicates answer the same way, with their status). */
export function presentOutcome(o: EventOutcome): Record<string, unknown> {
  switch (o.status) {
    case 'accepted':
    case 'duplicate':
      return { status: o.status, event_id: o.eventId, metric_id: o.metricId, quantity: o.quantity, tenant_id: o.tenantId };
    case 'discarded':
      return { status: 'discarded', event_type: o.eventType, reason: o.reason };
    case 'rejected':
      return { status: 'rejected', code: o.code, message: o.message, ...(o.field ? { field: o.field } : {}) };
  }
}

/**
 * The HTTP answer. One event (a JSON object body): the accepted response, or the error envelope
 * naming the field. A JSON array: every event's outcome under `events`, in the error envelope
 * when any was refused.
 */
export function webhookResponseBody(outcomes: readonly EventOutcome[], isArray: boolean, summary: Summary): Record<string, unknown> {
  const refused = outcomes.filter((o): o is Extract<EventOutcome, { status: 'rejected' }> => o.status === 'rejected');
  const errors = refused.map((o) => ({ code: o.code, message: o.message, ...(o.field ? { field: o.field } : {}), ...(isArray ? { index: o.index } : {}) }));
  if (!isArray) {
    const only = outcomes[0];
    if (only === undefined) return { status: summary.status };
    return only.status === 'rejected' ? { success: false, errors } : presentOutcome(only);
  }
  const events = outcomes.map(presentOutcome);
  return refused.length > 0 ? { success: false, errors, events } : { status: summary.status, events };
}
