/**
 * The API's error envelope ({success: false, errors: [{code, message, field?}]}) as the console
 * shows it: each error next to the input it names, the rest above the form. Pure, so the mapping
 * is tested with tables of cases.
 */
export interface ApiErrorDetail {
  code: string;
  message: string;
  /** The API's path of the field: `body.email`, `body.tiers.0.unitPrice`, `query.limit`. */
  field?: string;
}

/** A failed request: the HTTP status (0 when the server was not reached), its errors, and Retry-After in seconds if sent. */
export interface ApiProblem {
  status: number;
  errors: ApiErrorDetail[];
  retryAfterSeconds: number | null;
}

const isDetail = (e: unknown): e is ApiErrorDetail =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as ApiErrorDetail).code === 'string' &&
  typeof (e as ApiErrorDetail).message === 'string' &&
  ((e as ApiErrorDetail).field === undefined || typeof (e as ApiErrorDetail).field === 'string');

/** Words for a status whose body is not the envelope (a proxy's page, an empty body). */
function fallbackMessage(status: number): string {
  if (status === 0) return 'The server could not be reached. Check your connection and try again.';
  if (status === 401) return 'You are signed out. Sign in again.';
  if (status === 403) return 'You are not allowed to do this.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many requests.';
  if (status >= 500) return `The server could not answer (HTTP ${status}). Try again in a moment.`;
  return `The request failed (HTTP ${status}).`;
}

/**
 * Retry-After in whole seconds: delta-seconds, or an HTTP date measured from `nowMs` (passed in,
 * so the function reads no clock). Absent, malformed or past: null.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | null {
  if (header === null || header === undefined) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
  const seconds = Math.ceil((at - nowMs) / 1000);
  return seconds > 0 ? seconds : null;
}

/** The problem of a non-2xx answer from its parsed body (anything: the envelope is checked, not trusted). */
export function problemFrom(status: number, body: unknown, retryAfterSeconds: number | null = null): ApiProblem {
  const listed = typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined;
  const errors = Array.isArray(listed) ? listed.filter(isDetail).map((e) => ({ ...e })) : [];
  if (errors.length === 0) errors.push({ code: status === 0 ? 'NETWORK_ERROR' : `HTTP_${status}`, message: fallbackMessage(status) });
  return { status, errors, retryAfterSeconds };
}

/**
 * The form input an error's field names: the part after `body.` or `query.` (`body.name` is
 * `name`, `body.tiers.0.unitPrice` is `tiers.0.unitPrice`); null for none (a header, the body as
 * a whole).
 */
export function inputNameOf(field: string | undefined): string | null {
  if (field === undefined) return null;
  const m = /^(?:body|query)\.(.+)$/.exec(field);
  return m ? (m[1] as string) : null;
}

export interface FormErrors {
  /** Messages by input name, for the inputs the form has. */
  byInput: Record<string, string[]>;
  /** Everything else: shown above the form, so no error is dropped. */
  general: string[];
}

/** Splits a problem's errors between the form's inputs and the general list. */
export function formErrors(problem: ApiProblem | null, inputs: readonly string[]): FormErrors {
  const out: FormErrors = { byInput: {}, general: [] };
  if (!problem) return out;
  for (const e of problem.errors) {
    const name = inputNameOf(e.field);
    if (name !== null && inputs.includes(name)) (out.byInput[name] ??= []).push(e.message);
    else out.general.push(e.message);
  }
  return out;
}

/** "Try again in 1 second.", "… in 45 seconds.", "… in 15 minutes.", "… in 2 minutes 5 seconds." */
export function retryText(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return `Try again in ${plural(seconds, 'second')}.`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `Try again in ${plural(m, 'minute')}${s === 0 ? '' : ` ${plural(s, 'second')}`}.`;
}
