// The ceiling of the service's own per-request work: a plain Fastify 5 server (the same version,
// default options, no hooks) answering the bare route's JSON. bench/entitlements.ts measures the
// service's bare route against it. Prints one JSON line with its URL, then serves until killed.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/__bench/bare', async () => ({ ok: true }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
