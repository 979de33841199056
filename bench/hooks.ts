// The per-request hooks measured alone (issue 40): each piece of work the service does on every
// request, outside HTTP, timed over 200,000 calls, the best of 7 rounds (the least disturbed by
// whatever else the machine runs). The ceiling printed with it is an empty callback hook, the
// least any hook costs; bench/entitlements.ts measures all of them together, over HTTP, as the
// bare route against a plain Fastify route.
// Run: node --import tsx bench/hooks.ts   (about 10 s; no network)
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { createIdGenerator } from '../packages/server/src/lib/ids.js';
import { Metrics } from '../packages/server/src/lib/metrics.js';
import { ApiRequestSummaryAccumulator } from '../packages/server/src/modules/audit/api-request-summary.js';
import { checkUrlAndHeaders } from '../packages/server/src/http/check-url-and-headers.js';
import { clearBodyDeadline, startBodyDeadline } from '../packages/server/src/http/slow-clients.js';

const CALLS = 200_000;

function best(fn: (i: number) => unknown): number {
  let min = Infinity;
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) fn(i);
    min = Math.min(min, performance.now() - t0);
  }
  return (min * 1000) / CALLS;
}

const done = () => {};
const ids = createIdGenerator({ now: () => Date.now() });
const metrics = new Metrics({ version: 'bench', node: 'bench', dialect: 'sqlite', processMetrics: false });
const summaries = new ApiRequestSummaryAccumulator(0);
const log = pino({ level: 'warn' });
const headers = { host: '127.0.0.1:3000', authorization: 'Bearer sk_test_0123456789abcdefghijklmnopqrstuv', 'user-agent': 'autocannon', accept: '*/*' };
const url = '/v1/entitlements/check?accessorId=cus_01jabcdefghjkmnpqrstvwxyz&productId=prod_01jabcdefghjkmnpqrstvwxy';
const request = { headers, url, raw: { url, headers }, routeOptions: { config: {} } } as never;
const deadline = startBodyDeadline(10_000);
const empty = (_req: unknown, _reply: unknown, next: () => void) => next();

const rows: Array<[string, number]> = [
  ['an empty callback hook (ceiling)', best(() => empty(request, null, done))],
  ['request id (ids.next)', best(() => ids.next('request'))],
  ["Fastify's child logger per request (pino child)", best((i) => log.child({ reqId: i }))],
  ['HTTP metrics (count and duration)', best((i) => metrics.httpRequest('GET', '/v1/entitlements/check', 200, (i % 7) / 1000))],
  [
    "the audit log's request summary",
    best((i) => summaries.add({ workspaceId: 'ws_01jabc', environment: 'test', route: 'GET /v1/entitlements/check', status: 200, elapsedMs: i % 13 })),
  ],
  ['URL and header check', best(() => checkUrlAndHeaders(request, null as never, done))],
  ['body deadline, start and clear (no body)', best(() => (deadline(request, null as never, done), clearBodyDeadline(request, null as never, done)))],
];
console.log('\nPer-request hooks measured alone: µs per call, best of 7 rounds of 200,000');
console.log('| work | µs per request |');
console.log('|---|---|');
for (const [name, us] of rows) console.log(`| ${name} | ${us.toFixed(3)} |`);
const sum = rows.slice(1).reduce((a, [, us]) => a + us, 0);
console.log(`\nAll of them: ${sum.toFixed(2)} µs a request (the ceiling, an empty hook: ${rows[0]![1].toFixed(3)} µs).`);
