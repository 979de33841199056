/**
 * How the Webhooks and Outbound screens word and shape what they send and show: list inputs, the
 * payload as readable text, the errors of list inputs, the body of an edit, the outcome of a
 * replay or an attempt. Pure, so each is a table of cases in test/webhook-text.test.ts.
 */
import { formErrors, type ApiProblem, type FormErrors } from './errors.js';

/** A form's text input by name ('' for none, or for a file). */
export function formText(data: FormData, name: string): string {
  const v = data.get(name);
  return typeof v === 'string' ? v : '';
}

/** "a, b\nc" as ['a', 'b', 'c']: commas or new lines, blanks dropped, each once. */
export function splitList(text: string): string[] {
  const items = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...new Set(items)];
}

/**
 * A body as text to read: JSON pretty-printed with two spaces (the bytes received are one long
 * line more often than not), other text as received, and a body that is not UTF-8 as its base64
 * (the API sends it so), said as much. The page sets it as text, so nothing in it is markup.
 */
export function readablePayload(body: string, encoding: 'utf8' | 'base64' = 'utf8'): { text: string; note: string | null } {
  if (encoding === 'base64') return { text: body, note: 'Not UTF-8 text: shown as base64, as stored.' };
  if (body === '') return { text: '', note: 'The body was empty.' };
  try {
    return { text: JSON.stringify(JSON.parse(body), null, 2), note: null };
  } catch {
    return { text: body, note: null };
  }
}

/**
 * formErrors for a form whose inputs hold lists: an error at `body.eventTypes.3` belongs next to
 * the eventTypes input (which has no input per item), saying which item.
 */
export function listFormErrors(problem: ApiProblem | null, inputs: readonly string[]): FormErrors {
  if (!problem) return formErrors(null, inputs);
  const errors = problem.errors.map((e) => {
    const m = e.field === undefined ? null : /^(body\.[^.]+)\.(\d+)$/.exec(e.field);
    if (!m || !inputs.includes((m[1] as string).slice('body.'.length))) return e;
    return { ...e, field: m[1], message: `Item ${Number(m[2]) + 1}: ${e.message}` };
  });
  return formErrors({ ...problem, errors }, inputs);
}

export interface SourceEdit {
  displayName: string;
  metricName: string;
  signingSecret: string;
  eventFilter: string;
  dedupWindowHours: string;
}

export interface SourceNow {
  displayName: string;
  metricName: string;
  eventFilter: string[];
  dedupWindowHours: number;
}

/**
 * The PATCH body of a source's edit form: only what changed (an empty secret keeps the current
 * one; the API refuses an empty one). A window that is not a whole number is sent as typed, so the
 * API's error names the field. null: nothing changed.
 */
export function sourcePatch(form: SourceEdit, now: SourceNow): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  const name = form.displayName.trim();
  if (name !== now.displayName) out.displayName = name;
  const metric = form.metricName.trim();
  if (metric !== now.metricName) out.metricName = metric;
  if (form.signingSecret !== '') out.signingSecret = form.signingSecret;
  const filter = splitList(form.eventFilter);
  if (filter.join('\n') !== now.eventFilter.join('\n')) out.eventFilter = filter;
  const window = form.dedupWindowHours.trim();
  if (window !== String(now.dedupWindowHours)) out.dedupWindowHours = /^\d+$/.test(window) ? Number(window) : window;
  return Object.keys(out).length === 0 ? null : out;
}

/** What a received webhook's status means, in a sentence. */
export function ingestionOutcome(entry: { status: string; httpStatus: number; reasonCode: string | null; reasonMessage: string | null }): string {
  const why = entry.reasonMessage ?? entry.reasonCode;
  const said = `the sender got HTTP ${entry.httpStatus}`;
  switch (entry.status) {
    case 'accepted':
      return `Accepted: stored as usage (${said}).`;
    case 'duplicate':
      return `Duplicate: its event was stored before, within the source's window, so nothing was added (${said}).`;
    case 'discarded':
      return `Discarded: its event type is outside the source's filter (${said}).`;
    default:
      return `Rejected${why ? `: ${why}` : ''} (${said}).`;
  }
}

export interface AttemptLike {
  status: string;
  responseStatus: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
}

/** One attempt's answer: "HTTP 200 in 12 ms", "HTTP 500 in 80 ms: The endpoint answered 500.", "No answer after 10000 ms: timeout". */
export function attemptAnswer(a: AttemptLike): string {
  const why = a.errorMessage ?? a.errorCode;
  const head = a.responseStatus === null ? `No answer after ${a.latencyMs} ms` : `HTTP ${a.responseStatus} in ${a.latencyMs} ms`;
  return a.status === 'succeeded' || !why ? head : `${head}: ${why}`;
}

export interface DeliveryLike {
  endpointId: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
}

/** The delivery of a message to one endpoint, or null when it had none. */
export const deliveryTo = <D extends DeliveryLike>(deliveries: readonly D[], endpointId: string): D | null =>
  deliveries.find((d) => d.endpointId === endpointId) ?? null;

/** A delivery's state in a few words: "succeeded after 1 attempt", "failed after 8 attempts (http_500)", "pending, no attempt yet". */
export function deliveryState(d: DeliveryLike | null): string {
  if (!d) return 'not sent to this endpoint';
  const n = `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  if (d.status === 'pending') return d.attempts === 0 ? 'pending, no attempt yet' : `pending, ${n} so far`;
  const tries = d.attempts === 0 ? 'without an attempt' : `after ${n}`;
  return `${d.status} ${tries}${d.status === 'failed' && d.lastError ? ` (${d.lastError})` : ''}`;
}
