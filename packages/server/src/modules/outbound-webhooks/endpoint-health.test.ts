import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { healthAfter, outcomeOf, type AttemptOutcome, type HealthTransition } from './endpoint-health.js';

const H = 3600_000;
const NOW = Date.UTC(2026, 10, 23, 12);
const DISABLE_AFTER = 120 * H;

describe('outbound-webhooks.outcomeOf: what an answer counts as', () => {
  const cases: Array<[rule: string, status: number | null, outcome: AttemptOutcome]> = [
    ['200 is a success', 200, 'success'],
    ['204 is a success', 204, 'success'],
    ['299 is a success', 299, 'success'],
    ['410 Gone disables at once', 410, 'gone'],
    ['a 3xx is a failure (redirects are never followed)', 302, 'failure'],
    ['404 is a failure', 404, 'failure'],
    ['429 is a failure', 429, 'failure'],
    ['500 is a failure', 500, 'failure'],
    ['no answer (network error, timeout) is a failure', null, 'failure'],
  ];
  for (const [rule, status, outcome] of cases) it(rule, () => assert.equal(outcomeOf(status), outcome));
});

describe('outbound-webhooks.healthAfter: an endpoint failing for 5 days is disabled', () => {
  const cases: Array<[rule: string, failingSince: number | null, outcome: AttemptOutcome, expected: HealthTransition]> = [
    ['a success on a healthy endpoint changes nothing', null, 'success', { kind: 'none' }],
    ['a success on a failing endpoint recovers it', NOW - H, 'success', { kind: 'recovered' }],
    ['the first failure starts the failing period', null, 'failure', { kind: 'failing', since: NOW }],
    ['a failure within 5 days changes nothing', NOW - DISABLE_AFTER + 1, 'failure', { kind: 'none' }],
    ['a failure 5 days after the first disables (failing)', NOW - DISABLE_AFTER, 'failure', { kind: 'disable', reason: 'failing' }],
    ['410 disables a healthy endpoint at once (gone)', null, 'gone', { kind: 'disable', reason: 'gone' }],
    ['410 disables a failing endpoint at once (gone)', NOW - H, 'gone', { kind: 'disable', reason: 'gone' }],
  ];
  for (const [rule, since, outcome, expected] of cases) it(rule, () => assert.deepEqual(healthAfter(since, outcome, NOW, DISABLE_AFTER), expected));
});
