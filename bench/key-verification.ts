// Key verification: how fast POST /v1/keys/verify answers, against the ceiling of a bare route
// on the same server in the same run, and the server time of one verification in process.
// Run: node --import tsx bench/key-verification.ts   (about 40 s; 127.0.0.1 only; stops itself)
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import autocannon from 'autocannon';
import { cpuSecondsOf, startBenchServer } from './lib.js';
import { compose } from '../packages/server/src/compose.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { loadConfig } from '../packages/server/src/lib/config.js';
import { sha256Hex } from '../packages/server/src/lib/crypto.js';
import { verifyKey } from '../packages/server/src/modules/authentication/verify-key.js';
import { createDemoWorkspace } from '../packages/server/src/demo/create-demo-workspace.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 32;

async function inProcess(): Promise<{ verifyNs: number; hashNs: number }> {
  const config = { ...loadConfig({ TOLLGATE_PROFILE: 'test' }), logLevel: 'silent', redisUrl: null };
  const opened = openDatabase({ databaseUrl: null, sqlitePath: ':memory:' });
  await migrateToLatest(opened.db);
  const composition = await compose({ config, db: opened.db, dialect: opened.dialect, closeDb: opened.close, log: pino({ level: 'silent' }) });
  const { deps } = composition;
  const demo = await createDemoWorkspace(deps, { actor: { type: 'SYSTEM', id: 'bench' }, source: 'system', correlationId: 'bench' });
  const tenant = { workspaceId: demo.workspaceId, environment: 'test' as const };
  const key = demo.environments.test.productKey;
  const n = 200_000;
  for (let i = 0; i < 10_000; i++) await verifyKey(deps, tenant, key); // warm the cache and the JIT
  let t0 = performance.now();
  for (let i = 0; i < n; i++) await verifyKey(deps, tenant, key);
  const verifyNs = ((performance.now() - t0) * 1e6) / n;
  t0 = performance.now();
  for (let i = 0; i < n; i++) sha256Hex(key);
  const hashNs = ((performance.now() - t0) * 1e6) / n;
  await composition.close();
  return { verifyNs, hashNs };
}

function load(url: string, opts: Partial<autocannon.Options>): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...opts });
}

/**
 * Over HTTP on one server: the bare route (the ceiling), verification, an authenticated read;
 * `verifyCpuSeconds` is the server's CPU during verification (bench/compare.ts divides it by the
 * requests answered). `authed: false` leaves out the authenticated read.
 */
export async function measureKeyVerification(opts: { authed?: boolean } = {}) {
  const server = await startBenchServer();
  try {
    const { url, secretKey, productKey } = server.info;
    const auth = { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' };
    await load(`${url}/__bench/bare`, { duration: 2 }); // warm-up
    const bare = await load(`${url}/__bench/bare`, {});
    const cpu0 = cpuSecondsOf(server.child.pid!);
    const verify = await load(`${url}/v1/keys/verify`, { method: 'POST', headers: auth, body: JSON.stringify({ key: productKey }) });
    const cpu1 = cpuSecondsOf(server.child.pid!);
    const authed = opts.authed === false ? null : await load(`${url}/api/v1/workspace`, { headers: auth });
    return { bare, verify, authed, verifyCpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
  } finally {
    await server.stop();
    server.cleanup();
  }
}

async function main() {
  const micro = await inProcess();
  const { bare, verify, authed } = await measureKeyVerification();
  const row = (name: string, r: autocannon.Result) =>
    `| ${name} | ${Math.round(r.requests.average).toLocaleString('en-US')} | ${(r.requests.average / bare.requests.average).toFixed(2)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} |`;
  console.log(`\nHTTP, ${CONNECTIONS} connections, ${DURATION_S} s each, load generator in a second process`);
  console.log('| route | requests/s | ratio to bare route | p50 ms | p99 ms | non-2xx |');
  console.log('|---|---|---|---|---|---|');
  console.log(row('GET /__bench/bare (ceiling)', bare));
  console.log(row('POST /v1/keys/verify (cached key)', verify));
  console.log(row('GET /api/v1/workspace (auth + rate limit + 1 query)', authed!));
  console.log('\nIn process, one verification with the key cached (server time, no HTTP)');
  console.log('| measure | ns per call |');
  console.log('|---|---|');
  console.log(`| verifyKey (format check, SHA-256, cache hit, state check) | ${Math.round(micro.verifyNs)} |`);
  console.log(`| SHA-256 of the key alone (ceiling) | ${Math.round(micro.hashNs)} |`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
