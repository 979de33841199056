// Plain Fastify 5 answering the bare route's JSON, with some of the service's per-request features
// added, named in BENCH_FEATURES (comma-separated): bench/bare-gap.ts measures each step's CPU per
// request, to find where the service's bare route spends what plain Fastify does not. Features:
// - logger: the service's logger instance (pino at info, here to stderr) with Fastify's request logging off, as
//   app.ts has it: Fastify then makes a child logger per request;
// - reqid: request ids from the service's id generator (genReqId);
// - hooks: as many no-op synchronous hooks as the service registers on every route (4 onRequest,
//   1 preValidation, 3 onResponse): Fastify's dispatch of each, without the hooks' own work;
// - header: the X-Request-Id answer header;
// - timeouts: the service's headersTimeout and a 1 s connectionsCheckingInterval.
// Prints one JSON line with its URL, then serves until killed.
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { systemClock } from '../packages/server/src/lib/clock.js';
import { createIdGenerator } from '../packages/server/src/lib/ids.js';

const features = new Set((process.env.BENCH_FEATURES ?? '').split(',').filter(Boolean));
const ids = createIdGenerator(systemClock);
const app = Fastify({
  logger: false,
  ...(features.has('logger')
    ? { loggerInstance: pino({ level: 'info' }, pino.destination(2)), logController: new LogController({ disableRequestLogging: true }) }
    : {}),
  ...(features.has('reqid') ? { genReqId: () => ids.next('request') } : {}),
  ...(features.has('timeouts') ? { http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000 } } : {}),
});
const noop = (_request: FastifyRequest, _reply: FastifyReply, done: () => void) => done();
if (features.has('hooks')) {
  for (let i = 0; i < 4; i++) app.addHook('onRequest', noop);
  app.addHook('preValidation', noop);
  for (let i = 0; i < 3; i++) app.addHook('onResponse', noop);
}
if (features.has('header'))
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
app.get('/__bench/bare', async () => ({ ok: true }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
