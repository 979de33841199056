// Entitlement checks: GET /v1/entitlements/check at 50 connections against a bare route on the
// same server in the same run, over 100 customers (the answer cache holds each for 250 ms), and
// once more with the cache off to show the cost of a full decision.
// Run: npm run bench:entitlements   (about 40 s; 127.0.0.1 only; stops by itself)
import autocannon from 'autocannon';
import { startBenchServer } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;

async function run(url: string, requests: autocannon.Request[] | undefined, headers: Record<string, string>) {
  return autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers, ...(requests ? { requests } : {}) });
}

async function measure(label: string, env: Record<string, string>) {
  const server = await startBenchServer(env);
  try {
    const { url, secretKey, productId, customerIds, customerId } = server.info;
    // The demo customer holds the subscription; the 100 others answer allowed=false (no
    // subscription), which takes the same path through customer, product and subscription.
    const ids = [customerId, ...customerIds];
    // Fixed requests, which autocannon encodes once: a per-request setupRequest callback would
    // cost the load generator (on the same two cores) more than the bare route it compares with.
    const requests: autocannon.Request[] = ids.map((id) => ({ method: 'GET', path: `/v1/entitlements/check?accessorId=${id}&productId=${productId}` }));
    const headers = { authorization: `Bearer ${secretKey}` };
    await run(`${url}/__bench/bare`, undefined, {}); // warm-up
    const bare = await run(`${url}/__bench/bare`, undefined, {});
    const check = await run(`${url}/v1/entitlements/check`, requests, headers);
    return { label, bare, check };
  } finally {
    await server.stop();
    server.cleanup();
  }
}

const results = [await measure('answer cache 250 ms (default)', {}), await measure('answer cache off', { ENTITLEMENT_CACHE_TTL_MS: '0' })];
console.log(`\nEntitlement checks, ${CONNECTIONS} connections, ${SECONDS} s each, SQLite, load generator in a second process`);
console.log('| run | route | requests/s | ratio to bare | p50 ms | p99 ms | non-2xx |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results) {
  for (const [name, x] of [
    ['bare GET (ceiling)', r.bare],
    ['GET /v1/entitlements/check', r.check],
  ] as const) {
    console.log(
      `| ${r.label} | ${name} | ${Math.round(x.requests.average).toLocaleString('en-US')} | ${(x.requests.average / r.bare.requests.average).toFixed(2)} | ${x.latency.p50} | ${x.latency.p99} | ${x.non2xx} |`,
    );
  }
}
