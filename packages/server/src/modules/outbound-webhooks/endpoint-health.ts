/**
 * What one attempt's outcome does to its endpoint. Pure; the sender writes only transitions.
 *
 * - 2xx: success. A failing endpoint becomes healthy (failing_since cleared).
 * - 410 Gone: the receiver says the endpoint is gone: disabled at once (reason gone).
 * - Anything else (other statuses, network errors, timeouts, refused redirects and addresses):
 *   a failure. The first sets failing_since; an endpoint with no success for DISABLE_AFTER since
 *   then is disabled (reason failing), as Svix does after 5 days.
 */
export type AttemptOutcome = 'success' | 'gone' | 'failure';

export function outcomeOf(responseStatus: number | null): AttemptOutcome {
  if (responseStatus !== null && responseStatus >= 200 && responseStatus < 300) return 'success';
  if (responseStatus === 410) return 'gone';
  return 'failure';
}

export type DisabledReason = 'manual' | 'failing' | 'gone';

export type HealthTransition =
  { kind: 'none' } | { kind: 'recovered' } | { kind: 'failing'; since: number } | { kind: 'disable'; reason: Exclude<DisabledReason, 'manual'> };

export function healthAfter(failingSince: number | null, outcome: AttemptOutcome, now: number, disableAfterMs: number): HealthTransition {
  if (outcome === 'success') return failingSince === null ? { kind: 'none' } : { kind: 'recovered' };
  if (outcome === 'gone') return { kind: 'disable', reason: 'gone' };
  if (failingSince === null) return { kind: 'failing', since: now };
  return now - failingSince >= disableAfterMs ? { kind: 'disable', reason: 'failing' } : { kind: 'none' };
}
