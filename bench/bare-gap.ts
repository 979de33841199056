// Where the service's bare route spends what a plain Fastify route does not (issue 40): server
// CPU per request, at 50 connections, for plain Fastify 5, then plain Fastify with the service's
// per-request features added one at a time (bench/fastify-variants-server.ts says what each is),
// then the service's own bare route (bench/bench-server.ts, every hook and background job). Each
// variant runs in its own process, in rounds that alternate the order; the figure is the median
// of the rounds. Requests/s are printed too, but on two cores the load generator shares the
// machine: CPU per request is the comparable figure.
// Run: npm run bench:bare-gap   (about 2 minutes; 127.0.0.1 only; stops by itself)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { cpuSecondsOf, startBenchServer } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Each step adds one feature to the one before. */
const STEPS: Array<{ name: string; features: string }> = [
  { name: 'plain Fastify 5', features: '' },
  { name: '+ timeouts', features: 'timeouts' },
  { name: '+ logger instance (child per request)', features: 'timeouts,logger' },
  { name: '+ request ids', features: 'timeouts,logger,reqid' },
  { name: '+ X-Request-Id header', features: 'timeouts,logger,reqid,header' },
  { name: "+ no-op hooks (the service's count)", features: 'timeouts,logger,reqid,header,hooks' },
];

interface Server {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

async function startVariant(features: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/fastify-variants-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_FEATURES: features },
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function startService(): Promise<Server> {
  const s = await startBenchServer({});
  return {
    url: s.info.url,
    pid: s.child.pid!,
    stop: async () => {
      await s.stop();
      s.cleanup();
    },
  };
}

/** Server CPU µs per request and requests/s of one measured run after a warm-up. */
async function measure(server: Server): Promise<{ cpuUs: number; rps: number }> {
  const url = `${server.url}/__bench/bare`;
  await autocannon({ url, connections: 50, duration: 2 });
  const c0 = cpuSecondsOf(server.pid);
  const r = await autocannon({ url, connections: 50, duration: SECONDS });
  const c1 = cpuSecondsOf(server.pid);
  if (c0 === null || c1 === null) throw new Error('cannot read the server process CPU time (/proc)');
  return { cpuUs: ((c1 - c0) * 1e6) / r.requests.total, rps: r.requests.average };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureBareGap(rounds = ROUNDS) {
  const rows = [
    ...STEPS.map((s) => ({ name: s.name, start: () => startVariant(s.features) })),
    { name: "the service's bare route (every hook, background jobs)", start: startService },
  ];
  const results = new Map<string, Array<{ cpuUs: number; rps: number }>>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? rows : [...rows].reverse();
    for (const row of order) {
      const server = await row.start();
      try {
        const r = await measure(server);
        results.set(row.name, [...(results.get(row.name) ?? []), r]);
        process.stderr.write(`round ${round + 1}: ${row.name}: ${r.cpuUs.toFixed(1)} µs/request, ${Math.round(r.rps)}/s\n`);
      } finally {
        await server.stop();
      }
    }
  }
  return rows.map((row) => {
    const rs = results.get(row.name)!;
    return { name: row.name, cpuUs: median(rs.map((r) => r.cpuUs)), rps: median(rs.map((r) => r.rps)) };
  });
}

async function main() {
  const rows = await measureBareGap();
  const base = rows[0]!.cpuUs;
  console.log(`\nThe bare route: server CPU per request, 50 connections, ${SECONDS} s, median of ${ROUNDS} rounds`);
  console.log('| server | CPU µs/request | vs plain | requests/s |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.cpuUs.toFixed(1)} | ${(r.cpuUs / base).toFixed(2)} | ${Math.round(r.rps).toLocaleString('en-US')} |`);
  console.log(`\nCeiling (plain Fastify): ${Math.round(rows[0]!.rps).toLocaleString('en-US')} requests/s, ${base.toFixed(1)} µs of CPU a request.`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
