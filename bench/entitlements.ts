// Entitlement checks: GET /v1/entitlements/check at 50 connections against a bare route on the
// same server in the same run, over 100 customers (the answer cache holds each for 250 ms), and
// once more with the cache off to show the cost of a full decision. First, the bare route's own
// ceiling: a plain Fastify server answering the same JSON (bench/plain-fastify-server.ts), so the
// cost of the service's per-request hooks shows as the bare route's ratio to it.
// Then PREPAID against POSTPAID (issue 41): 100 subscribers of each, the PREPAID ones holding 10
// credit grants each, checked on one server in turn (POSTPAID, PREPAID, POSTPAID again), with the
// answer cache as deployed and off.
// Run: npm run bench:entitlements   (about 100 s; 127.0.0.1 only; stops by itself)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { cpuSecondsOf, startBenchServer } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;

async function run(url: string, requests: autocannon.Request[] | undefined, headers: Record<string, string>) {
  return autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers, ...(requests ? { requests } : {}) });
}

/**
 * One server: the bare route (the ceiling), then the checks; `checkCpuSeconds` is the server's CPU
 * during the checks (bench/compare.ts divides it by the requests answered).
 */
export async function measureChecks(label: string, env: Record<string, string>) {
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
    const cpu0 = cpuSecondsOf(server.child.pid!);
    const check = await run(`${url}/v1/entitlements/check`, requests, headers);
    const cpu1 = cpuSecondsOf(server.child.pid!);
    return { label, bare, check, checkCpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
  } finally {
    await server.stop();
    server.cleanup();
  }
}

/**
 * PREPAID against POSTPAID on one server (BENCH_PREPAID=1): each set of 100 subscribers sends a
 * usage event first, so that every check rates something and the PREPAID ones burn it against
 * their grants. POSTPAID is measured before and after PREPAID, and averaged.
 */
export async function measureBillingModes(label: string, env: Record<string, string>) {
  const server = await startBenchServer({ ...env, BENCH_PREPAID: '1' });
  try {
    const { url, secretKey, productId } = server.info;
    const postpaid = server.info.postpaidCustomerIds!;
    const prepaid = server.info.prepaidCustomerIds!;
    const headers = { authorization: `Bearer ${secretKey}` };
    const events = [...postpaid, ...prepaid].map((customerId, i) => ({
      customerId,
      metricName: 'api_calls',
      quantity: 5_000,
      eventId: `bench-usage-${i}`,
      occurredAt: new Date().toISOString(),
    }));
    const ingested = await fetch(`${url}/v1/ingest/batch`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    if (ingested.status !== 200) throw new Error(`usage not ingested: ${ingested.status} ${(await ingested.text()).slice(0, 500)}`);
    const requests = (ids: string[]): autocannon.Request[] =>
      ids.map((id) => ({ method: 'GET', path: `/v1/entitlements/check?accessorId=${id}&productId=${productId}` }));
    // Every answer must be allowed: a refused PREPAID check would be a cheaper path.
    const sample = (await (await fetch(`${url}/v1/entitlements/check?accessorId=${prepaid[0]}&productId=${productId}`, { headers })).json()) as {
      allowed: boolean;
      creditsRemaining: string | null;
    };
    if (sample.allowed !== true || sample.creditsRemaining === null)
      throw new Error(`a PREPAID check should be allowed with credits: ${JSON.stringify(sample)}`);
    await run(`${url}/v1/entitlements/check`, requests(postpaid), headers); // warm-up
    const before = await run(`${url}/v1/entitlements/check`, requests(postpaid), headers);
    const pre = await run(`${url}/v1/entitlements/check`, requests(prepaid), headers);
    const after = await run(`${url}/v1/entitlements/check`, requests(postpaid), headers);
    return { label, before, prepaid: pre, after };
  } finally {
    await server.stop();
    server.cleanup();
  }
}

/** A plain Fastify route answering the bare route's JSON, and the server's CPU seconds during the measured run. */
export async function measurePlainFastify() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/plain-fastify-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { url } = JSON.parse(line) as { url: string };
    await run(`${url}/__bench/bare`, undefined, {}); // warm-up
    const cpu0 = cpuSecondsOf(child.pid!);
    const plain = await run(`${url}/__bench/bare`, undefined, {});
    const cpu1 = cpuSecondsOf(child.pid!);
    return { plain, cpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

/** The two runs' environments: the answer cache as deployed, and off (a full decision each time). */
export const CHECK_RUNS = { cached: {}, uncached: { ENTITLEMENT_CACHE_TTL_MS: '0' } } as const;

async function main() {
  const plain = await measurePlainFastify();
  const results = [await measureChecks('answer cache 250 ms (default)', CHECK_RUNS.cached), await measureChecks('answer cache off', CHECK_RUNS.uncached)];
  console.log(`\nEntitlement checks, ${CONNECTIONS} connections, ${SECONDS} s each, SQLite, load generator in a second process`);
  console.log('| run | route | requests/s | ratio to bare | p50 ms | p99 ms | non-2xx |');
  console.log('|---|---|---|---|---|---|---|');
  const p = plain.plain;
  console.log(
    `| plain Fastify 5, no hooks | bare GET (ceiling of the bare route) | ${Math.round(p.requests.average).toLocaleString('en-US')} | - | ${p.latency.p50} | ${p.latency.p99} | ${p.non2xx} |`,
  );
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
  console.log(
    `\nThe service's bare route over plain Fastify, same run: ${results.map((r) => `${(r.bare.requests.average / p.requests.average).toFixed(2)} (${r.label})`).join(', ')}.`,
  );

  const modes = [
    await measureBillingModes('answer cache 250 ms (default)', CHECK_RUNS.cached),
    await measureBillingModes('answer cache off', CHECK_RUNS.uncached),
  ];
  console.log(`\nPREPAID (10 grants each) against POSTPAID subscribers, 100 of each, one server per row, ${SECONDS} s per run`);
  console.log('| run | POSTPAID before req/s | PREPAID req/s | POSTPAID after req/s | PREPAID / POSTPAID (mean) | PREPAID p99 ms | non-2xx |');
  console.log('|---|---|---|---|---|---|---|');
  for (const m of modes) {
    const post = (m.before.requests.average + m.after.requests.average) / 2;
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    console.log(
      `| ${m.label} | ${fmt(m.before.requests.average)} | ${fmt(m.prepaid.requests.average)} | ${fmt(m.after.requests.average)} | ${(m.prepaid.requests.average / post).toFixed(2)} | ${m.prepaid.latency.p99} | ${m.before.non2xx + m.prepaid.non2xx + m.after.non2xx} |`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
