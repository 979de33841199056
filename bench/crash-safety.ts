// Crash safety of ingestion under SIGKILL: see bench/crash-check.ts for what is sent and checked.
// Run: npm run bench:crash   (about 45 s; 127.0.0.1 only; stops by itself; exits 1 if anything is off)
//   CRASH_SECONDS=30   load time in seconds
//   CRASH_KILLS=5      at least this many kills (the load goes on until then)
//   CRASH_CLIENTS=6    concurrent clients
//   DATABASE_URL=postgres://…   run on a scratch database made on that server (dropped at the end)
import { formatReport, runCrashCheck } from './crash-check.js';

const int = (name: string, fallback: number, min: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) {
    console.error(`${name} must be a whole number of at least ${min}, got '${raw}'`);
    process.exit(2);
  }
  return v;
};

const controller = new AbortController();
// Ctrl-C ends the run early; the servers, scratch database and temp dir are still cleaned up.
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());

const started = new Date();
const report = await runCrashCheck({
  seconds: int('CRASH_SECONDS', 30, 1),
  minKills: int('CRASH_KILLS', 5, 0),
  clients: int('CRASH_CLIENTS', 6, 1),
  databaseUrl: process.env.DATABASE_URL || null,
  log: (line) => console.error(`[${((Date.now() - started.getTime()) / 1000).toFixed(1)} s] ${line}`),
  signal: controller.signal,
});
console.log(`\n${started.toISOString().slice(0, 10)}, Node ${process.versions.node}`);
console.log(formatReport(report));
process.exit(report.ok ? 0 : 1);
