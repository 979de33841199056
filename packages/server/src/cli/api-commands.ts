import type { Command, Options } from './command.js';

// The implementations (and @tollgate/sdk) load only when a command runs: help stays instant.

/** The options every command through the HTTP API takes. */
export const apiOptions: Options = { 'api-url': { type: 'string' }, 'api-key': { type: 'string' } };

export const API_DETAILS = `--api-url URL   where Tollgate answers (default: TOLLGATE_API_URL, else http://127.0.0.1:8080)
--api-key KEY   a secret key, sk_test_… or sk_live_… (default: TOLLGATE_API_KEY; prefer the variable, which stays
                out of your shell history). The key is never printed.`;

export const apiCommands: Command[] = [
  {
    path: ['ingest'],
    args: 'FILE [--batch-size N] [--json] [--progress] [--api-url URL] [--api-key KEY]',
    summary: 'send the usage events of FILE (NDJSON or a JSON array)\nthrough POST /v1/ingest/batch, in batches of up to 1,000',
    details: `Each event is an object as the API takes it: {"customerId", "metricName", "quantity", "occurredAt", "eventId",
"metadata"} (occurredAt defaults to now; eventId to one made from the event's content and position, so sending a
file again counts nothing twice within 24 hours). Each batch carries its own X-Idempotency-Key, kept across retries
(429 and 503 are retried after Retry-After). Prints accepted, duplicate and rejected counts; each rejected event is
named by its line on stderr, and the command then exits 1.
--batch-size N  events per request, 1 to 1000 (default 1000)
--json          the summary as one JSON object
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate ingest usage.ndjson --progress`,
    options: { ...apiOptions, 'batch-size': { type: 'string' }, json: { type: 'boolean' }, progress: { type: 'boolean' } },
    positionals: 1,
    run: async (ctx) => (await import('./api-runs.js')).ingest(ctx),
  },
  {
    path: ['keys', 'rotate'],
    args: 'ID [--json] [--api-url URL] [--api-key KEY]',
    summary: 'rotate a customer API key (key_…) and print its new secret, once',
    details: `The old secret keeps working for its grace period (printed), then stops. A lost answer is not retried: the new
secret is shown only in it (rotate again if it never arrives).
--json  {"id", "secret", "previousKeyId", "previousKeyExpiresAt"} on one line
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate keys rotate key_01hxyz…`,
    options: { ...apiOptions, json: { type: 'boolean' } },
    positionals: 1,
    run: async (ctx) => (await import('./api-runs.js')).rotateKey(ctx),
  },
  {
    path: ['events', 'tail'],
    args: '[--json] [--api-url URL] [--api-key KEY]',
    summary: "print the workspace's audit events live, one line each,\nuntil Ctrl-C (GET /api/v1/events/stream)",
    details: `Each event as it commits: time, type, actor and target (--json: the event as one JSON line). A dropped connection
is resumed after the last event received (Last-Event-ID), so none is missed or printed twice.
The key needs the events:read scope.
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate events tail --json | grep api_key.`,
    options: { ...apiOptions, json: { type: 'boolean' } },
    run: async (ctx) => (await import('./api-runs.js')).tailEvents(ctx),
  },
  {
    path: ['invoices', 'list'],
    args: '[--customer ID] [--limit N] [--json] [--api-url URL] [--api-key KEY]',
    summary: 'list invoices, newest first, as a table or NDJSON',
    details: `--customer ID  only this customer's (its cus_… id or your externalId)
--limit N      at most N invoices (default 20, up to 10000), read in pages of up to 100
--json         one invoice per line, as the API returns it
${API_DETAILS}

Example: TOLLGATE_API_KEY=sk_test_… tollgate invoices list --limit 5`,
    options: { ...apiOptions, customer: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    run: async (ctx) => (await import('./api-runs.js')).listInvoices(ctx),
  },
];
