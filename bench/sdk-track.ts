/**
 * The SDK's track() overhead per event, without the network (issue 18: at most 2 µs). A stub
 * fetch acknowledges each batch at once. Events go in rounds of one batch (1,000): the track()
 * calls of a round are timed, then the round is flushed untimed, so memory stays what a running
 * client holds (a batch or two) rather than millions of retained events. Prints ns/event.
 */
import { Tollgate } from '../packages/sdk/src/index.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000_000);
const BATCH = 1_000;
const ok = new Response('{"accepted":1000,"duplicates":0}');
const tg = new Tollgate({
  apiKey: 'sk_test_bench',
  baseUrl: 'http://127.0.0.1:1',
  fetch: async () => ok.clone(),
  flushOnExit: false,
  // Rounds end just short of a batch, so track() never starts a send inside the timed part.
  batchSize: BATCH,
});

async function run(label: string, make: (i: number) => Parameters<Tollgate['track']>[0]): Promise<void> {
  let timed = 0n;
  let counted = 0;
  for (let n = 0; counted < EVENTS; n += BATCH - 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH - 1; i++) tg.track(make(n + i));
    const spent = process.hrtime.bigint() - start;
    // The first 50,000 warm up.
    if (n >= 50_000) {
      timed += spent;
      counted += BATCH - 1;
    }
    await tg.flush();
  }
  console.log(`${label}: ${(Number(timed) / counted).toFixed(0)} ns/event (${counted.toLocaleString('en-US')} events)`);
}

const at = new Date().toISOString();
await run('track(), SDK sets occurredAt and eventId', (i) => ({ customerId: 'acme', metricName: 'api_calls', quantity: i & 7 }));
await run('track(), caller gives occurredAt and eventId', (i) => ({
  customerId: 'acme',
  metricName: 'api_calls',
  quantity: 1,
  occurredAt: at,
  eventId: `e${i}`,
}));
await run('track() with metadata', (i) => ({
  customerId: 'acme',
  metricName: 'api_calls',
  quantity: 1,
  metadata: { method: 'GET', path: '/v1/x', statusCode: 200, latencyMs: i & 63 },
}));
await tg.close();
