// Overload: what ingestion does to everything else on one server. 1,000-event batches from 8
// and then 50 clients (most of the 50 are shed with 503 and retry after Retry-After), and
// entitlement checks from 8 clients alone and then alongside the 50 ingesting clients. The
// target: the checks' p99 alongside 50 ingesting clients stays within 2x of their p99 alone.
// The ceiling of the same run is a bare GET route on the same server at 50 connections.
// Run: npm run bench:overload   (about 60 s; 127.0.0.1 only; stops by itself)
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { BATCH, batchBodies, closedLoop, percentile, startBenchServer, tsWorker, type LoadResult } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

interface IngestLoad {
  url: string;
  secretKey: string;
  customerIds: string[];
  connections: number;
  seconds: number;
}

/**
 * The ingesting clients run on a thread of their own: building and sending 200 KB bodies keeps an
 * event loop busy, and on the checks' loop that time would be counted as the server's latency.
 * (Real clients are other machines; here they share the cores, and that stays in the figures.)
 */
function ingestLoad({ url, secretKey, customerIds, connections, seconds }: IngestLoad): Promise<LoadResult> {
  // Live traffic: every event of a batch occurred when the batch is sent (see ingest.ts on why
  // replaying fixed timestamps measures something else since the index of issue 14).
  const AT = '@@occurredAt@@';
  const templates = batchBodies(customerIds, 16, AT).map((b) => b.split(AT));
  const headers = { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' };
  return closedLoop({
    connections,
    seconds,
    request: (i) => ({
      url: `${url}/v1/ingest/batch`,
      init: { method: 'POST', headers, body: templates[i % templates.length]!.join(new Date().toISOString()) },
    }),
  });
}

function ingestOnThread(load: IngestLoad): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = tsWorker(import.meta.url, load);
    w.once('message', resolve);
    w.once('error', reject);
  });
}

async function main() {
  const server = await startBenchServer({ INGEST_MAX_IN_FLIGHT: process.env.INGEST_MAX_IN_FLIGHT ?? '4' });
  const { url, secretKey, customerIds, customerId, productId } = server.info;
  const auth = { authorization: `Bearer ${secretKey}` };
  const ingest = (connections: number, seconds: number) => ingestOnThread({ url, secretKey, customerIds, connections, seconds });
  const ids = [customerId, ...customerIds];
  const check = (i: number) => ({ url: `${url}/v1/entitlements/check?accessorId=${ids[i % ids.length]}&productId=${productId}`, init: { headers: auth } });
  const bare = () => ({ url: `${url}/__bench/bare`, init: {} });
  const rows: string[] = [];
  const row = (what: string, r: LoadResult, perRequest = 1) =>
    rows.push(
      `| ${what} | ${Math.round((r.ok * perRequest) / r.seconds).toLocaleString('en-US')} | ${fmt(percentile(r.latenciesOk, 50))} | ${fmt(percentile(r.latenciesOk, 99))} | ${r.refused} | ${r.other} |`,
    );
  let checksAlone: LoadResult;
  let checksLoaded: LoadResult;
  let ingest8: LoadResult;
  let ingest50: LoadResult;
  let ceiling: LoadResult;
  try {
    await ingest(4, 2); // warm-up
    await closedLoop({ connections: 4, seconds: 1, request: check });
    ceiling = await closedLoop({ connections: 50, seconds: SECONDS / 2, request: bare });
    row('bare GET, 50 connections (ceiling)', ceiling);
    checksAlone = await closedLoop({ connections: 8, seconds: SECONDS, request: check });
    row('entitlement checks, 8 clients, alone', checksAlone);
    ingest8 = await ingest(8, SECONDS);
    row('ingestion, 8 clients (events/s)', ingest8, BATCH);
    ingest50 = await ingest(50, SECONDS);
    row('ingestion, 50 clients (events/s)', ingest50, BATCH);
    [ingest50, checksLoaded] = await Promise.all([ingest(50, SECONDS), closedLoop({ connections: 8, seconds: SECONDS, request: check })]);
    row('ingestion, 50 clients, with checks alongside (events/s)', ingest50, BATCH);
    row('entitlement checks, 8 clients, alongside 50 ingesting', checksLoaded);
  } finally {
    await server.stop();
    server.cleanup();
  }
  console.log(
    `\nOverload, SQLite (WAL, synchronous=FULL), INGEST_MAX_IN_FLIGHT=${process.env.INGEST_MAX_IN_FLIGHT ?? '4'}, ${SECONDS} s per run; 503s wait Retry-After`,
  );
  console.log('| load | requests/s (or events/s) | p50 ms | p99 ms | 503 answers | other errors |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  const ratio = percentile(checksLoaded.latenciesOk, 99) / percentile(checksAlone.latenciesOk, 99);
  const ingestRatio = percentile(ingest50.latenciesOk, 99) / percentile(ingest8.latenciesOk, 99);
  console.log(`\nChecks' p99 alongside 50 ingesting clients / alone: ${ratio.toFixed(2)} (target: at most 2)`);
  console.log(`Ingestion p99 at 50 clients (with checks) / at 8 clients: ${ingestRatio.toFixed(2)}`);
  console.log(
    `Ceiling, same run: bare GET ${Math.round(ceiling.ok / ceiling.seconds).toLocaleString('en-US')} requests/s, p99 ${fmt(percentile(ceiling.latenciesOk, 99))} ms`,
  );
}

if (isMainThread) await main();
else parentPort!.postMessage(await ingestLoad(workerData as IngestLoad));
