// Start to first answer (issue 37, target 1.5 s): `tollgate serve` started as a user starts it
// (node packages/server/bin/tollgate.js serve, development profile, SQLite in a new data
// directory), timed from the spawn until GET /health first answers 200, polled every 5 ms.
// - compiled: the default, running packages/server/dist (built before the first run, untimed);
// - from source: TOLLGATE_FROM_SOURCE=1, the TypeScript through tsx, as every start was before;
// - ceiling: a bare node process that listens and answers the same GET, started the same way.
// Each start is on an existing database (its first start, with migrations and the demo
// workspace, is made once beforehand, untimed, and reported apart). Runs are interleaved; each
// server is stopped by its PID. BENCH_RUNS (default 10).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { percentile } from './lib.js';

const runs = Number(process.env.BENCH_RUNS ?? 10);
const bin = path.resolve('packages/server/bin/tollgate.js');
const BARE = `require('node:http').createServer((q, s) => s.end('{"status":"ok"}')).listen(Number(process.env.PORT), '127.0.0.1')`;
/** A port nothing listens on now: the OS picks it, and it is given back at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function timeStart(args: string[], env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const deadline = t0 + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode} before answering`);
      if (performance.now() > deadline) throw new Error(`${args.join(' ')} did not answer within 60 s`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    await exited;
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tollgate-bench-start-'));
try {
  const serve = [bin, 'serve'];
  const env = { DATA_DIR: dataDir };
  // Builds dist/ if the sources changed (not timed), then the database's first start.
  const first = await timeStart(serve, env);
  const cases: Array<[string, string[], Record<string, string>]> = [
    ['ceiling: bare node http server', ['-e', BARE], {}],
    ['tollgate serve (compiled, dist/)', serve, env],
    ['tollgate serve (from source, tsx)', serve, { ...env, TOLLGATE_FROM_SOURCE: '1' }],
  ];
  const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let i = 0; i < runs; i++) for (const [name, args, e] of cases) times.get(name)!.push(await timeStart(args, e));
  for (const t of times.values()) t.sort((a, b) => a - b);
  const ceiling = percentile(times.get(cases[0]![0])!, 50);
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${runs} runs each, interleaved`,
  );
  console.log(`first start of a new database (migrations, demo workspace, build check): ${first.toFixed(0)} ms`);
  console.log('| start | p50 ms | max ms | p50 / ceiling |');
  console.log('|---|---|---|---|');
  for (const [name] of cases) {
    const t = times.get(name)!;
    const p50 = percentile(t, 50);
    console.log(`| ${name} | ${p50.toFixed(0)} | ${t.at(-1)!.toFixed(0)} | ${(p50 / ceiling).toFixed(1)} |`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
