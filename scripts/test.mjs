#!/usr/bin/env node
// Runs every test file, each in its own node process, a few at a time:
// - every package's test files run as bundles made by one esbuild build at the start
//   (scripts/test-bundle.mjs: the same code, loaded in ~0.5 s of CPU instead of ~2 s through tsx);
//   TEST_LOADER=tsx (or --tsx) runs them all through tsx instead;
// - a server test that touches storage (its imports reach the test app, the CLI's processes or the
//   backend's settings) runs on SQLite, and again on PostgreSQL (+ Redis when REDIS_URL is set)
//   when TEST_DATABASE_URL is set; a pure file, a browser test and a client package's test run
//   once (onBothBackends says why), and so does a server file with the one-pass marker
//   (`// scripts/test.mjs: one pass: <why>` on a line of its own; the run's header names each
//   such file with its reason, and CONTRIBUTING.md says when it is right);
// - the slowest files start first (durations from the last run, else scripts/test-durations.json),
//   so the run is not left waiting on one long file at the end;
// - each file prints one line when it ends (its failures in full), the 20 slowest files are listed
//   at the end, and the closing line is "tests: N passed, N failed, N skipped".
// Usage: node scripts/test.mjs [substring…] [--sqlite-only] [--concurrency N] [--list] [--tsx]
// (--list prints the runs it would make, in order, and runs nothing)
// --conditions=tollgate-source makes @tollgate/sdk resolve to its TypeScript source (the forwarder
// imports it by name).
import { spawn } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTestBundles, bundles } from './test-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  args.splice(i, 1);
  return true;
};
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  return value;
};
const sqliteOnly = flag('--sqlite-only') ?? false;
const tsxOnly = (flag('--tsx') ?? false) || process.env.TEST_LOADER === 'tsx';
const listOnly = flag('--list') ?? false;
// Two cores: a file mostly waits on its server, a database or a browser, so three or four at once
// keep both cores busy without one file starving another (measured in CONTRIBUTING.md).
const concurrency = Number(option('--concurrency') ?? process.env.TEST_CONCURRENCY ?? Math.max(2, os.availableParallelism() + 1));
const filter = args;
/** A bound on a hung file, never a measure: the slowest file takes a minute or two on a busy machine. */
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 10 * 60_000);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = readdirSync(path.join(root, 'packages'))
  .flatMap((pkg) => findTests(path.join(root, 'packages', pkg)))
  .map((f) => path.relative(root, f))
  // Filters match the path inside the repository, so a clone in a folder named like one (wt-console) does not match every file.
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort();

// --- Which files touch storage: those whose relative imports reach a file naming the backend. ---
// The test helpers choose the backend by these (the server's own config reads REDIS_URL too, so
// that name alone marks nothing).
const BACKEND_MARK = /TOLLGATE_TEST_BACKEND|TEST_DATABASE_URL/;
const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const reaches = new Map();
function touchesStorage(file, seen = new Set()) {
  if (reaches.has(file)) return reaches.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  let text;
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    return false;
  }
  let result = BACKEND_MARK.test(text);
  for (const m of text.matchAll(IMPORT)) {
    if (result) break;
    const target = path.join(path.dirname(file), m[1]);
    const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target];
    const found = candidates.find((c) => existsSync(path.join(root, c)) && statSync(path.join(root, c)).isFile());
    if (found && touchesStorage(found, seen)) result = true;
  }
  reaches.set(file, result);
  return result;
}

/**
 * A server test file that says, in a line of its own, `// scripts/test.mjs: one pass: <why>` runs on
 * the SQLite pass only: for a file whose subject is not the storage (the docs' commands, say), whose
 * storage the server's own tests cover on both backends, and whose PostgreSQL-only parts run
 * whenever PostgreSQL answers. The reason is printed with the run's header.
 */
const ONE_PASS = /^\/\/ scripts\/test\.mjs: one pass: (.+)$/m;
function onePassReason(file) {
  try {
    return ONE_PASS.exec(readFileSync(path.join(root, file), 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * Where a second pass means something: the server's own tests that touch storage. A browser test
 * checks a page, and the SDK's, the forwarder's, the console's and the widget's tests check a
 * client; they start a server only as a fixture, whose storage the server's tests cover on both
 * backends, so they run once. So does a file marked for one pass (above).
 */
function onBothBackends(file) {
  return file.startsWith('packages/server/') && !file.includes('.browser.') && touchesStorage(file) && onePassReason(file) === null;
}

const postgres = Boolean(process.env.TEST_DATABASE_URL) && !sqliteOnly;
const pgLabel = `postgres${process.env.REDIS_URL ? '+redis' : ''}`;
const jobs = [];
for (const file of files) {
  jobs.push({ file, backend: 'sqlite', label: 'sqlite' });
  if (postgres && onBothBackends(file)) jobs.push({ file, backend: 'postgres', label: pgLabel });
}

// --- Longest first, by the last run's durations. ---
const artifacts = path.join(root, 'test-artifacts');
const lastRun = path.join(artifacts, 'test-durations.json');
const committed = path.join(root, 'scripts/test-durations.json');
let known = {};
for (const f of [committed, lastRun]) {
  try {
    Object.assign(known, JSON.parse(readFileSync(f, 'utf8')));
  } catch {
    /* none yet */
  }
}
const keyOf = (job) => `${job.label.startsWith('postgres') ? 'postgres' : 'sqlite'} ${job.file}`;
const estimate = (job) => known[keyOf(job)] ?? known[`sqlite ${job.file}`] ?? (job.file.includes('.browser.') ? 30_000 : 5_000);
jobs.sort((a, b) => estimate(b) - estimate(a));

if (listOnly) {
  for (const job of jobs) console.log(`${job.label.padEnd(14)} ${job.file}`);
  process.exit(0);
}

// --- Run. ---
const started = Date.now();
// PostgreSQL on these machines runs with autovacuum off, and every run creates and drops some
// 300 schemas: their catalog rows stay as dead rows (pg_attribute grew from under 1 MB to 198 MB,
// 940,000 dead rows, in a day's runs), and every schema made after that costs PostgreSQL more.
// The catalogs are vacuumed first (about 2 s); a database that refuses prints why and the run goes on.
if (postgres) await vacuumCatalogs(process.env.TEST_DATABASE_URL);

async function vacuumCatalogs(url) {
  const t0 = Date.now();
  const catalogs = [
    'pg_attribute',
    'pg_class',
    'pg_type',
    'pg_depend',
    'pg_constraint',
    'pg_index',
    'pg_attrdef',
    'pg_namespace',
    'pg_statistic',
    'pg_sequence',
    'pg_trigger',
  ];
  let client;
  try {
    const { default: pg } = await import('pg');
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`VACUUM ${catalogs.map((c) => `pg_catalog.${c}`).join(', ')}`);
    console.log(`Vacuumed PostgreSQL's catalogs in ${Date.now() - t0} ms (autovacuum may be off: dropped test schemas leave dead rows)`);
  } catch (err) {
    console.log(`PostgreSQL's catalogs were not vacuumed (${err instanceof Error ? err.message : String(err)}): the run goes on`);
  } finally {
    await client?.end().catch(() => {});
  }
}
// Tests that start `tollgate` as a process run packages/server/dist: build it now if the sources
// changed, once, rather than in every process that starts (bin/tollgate.js would).
const { ensureBuilt } = await import('../packages/server/scripts/build.mjs');
await ensureBuilt({ quiet: false });
// The test files run as bundles (scripts/test-bundle.mjs says why and what stays the same).
const toBundle = tsxOnly ? [] : [...new Set(jobs.map((j) => j.file))].filter(bundles);
let built = { bundles: new Map(), ms: 0, remove: () => {} };
if (toBundle.length > 0) {
  built = await buildTestBundles(root, toBundle);
  console.log(`Bundled ${toBundle.length} test files in ${built.ms} ms (TEST_LOADER=tsx runs them through tsx instead)`);
}
process.on('exit', () => built.remove());
const results = [];
const totals = { pass: 0, fail: 0, skipped: 0 };
const byLabel = new Map();
let next = 0;
let done = 0;

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The files running now: stopped with the runner (Ctrl-C), each with what it started. */
const running = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    built.remove();
    process.exit(130);
  });
}

function runJob(job) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const bundle = built.bundles.get(job.file);
    const loader = bundle ? ['--enable-source-maps'] : ['--import', 'tsx'];
    const child = spawn(
      process.execPath,
      ['--conditions=tollgate-source', ...loader, `--test-reporter=${path.join(root, 'scripts/test-reporter.mjs')}`, bundle ?? job.file],
      // Its own process group, so that a hung file is ended with everything it started.
      { cwd: root, env: { ...process.env, TOLLGATE_TEST_BACKEND: job.backend }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    running.add(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, sig) => {
      running.delete(child);
      clearTimeout(timer);
      const ms = Date.now() - t0;
      const m = /^##tollgate (\{.*\})$/m.exec(out);
      const counts = m ? JSON.parse(m[1]) : { pass: 0, fail: 0, skipped: 0 };
      const body = out.replace(/^##tollgate .*\n?/m, '');
      // A file that exits non-zero with no failed test (a crash, a hook, a leak) counts as one failure.
      if (code !== 0 && counts.fail === 0) counts.fail = 1;
      const failed = counts.fail > 0;
      resolve({ ...job, ms, counts, failed, body, code, sig, timedOut });
    });
  });
}

function report(r) {
  done += 1;
  results.push(r);
  const t = byLabel.get(r.label) ?? { pass: 0, fail: 0, skipped: 0 };
  byLabel.set(r.label, t);
  for (const k of ['pass', 'fail', 'skipped']) {
    t[k] += r.counts[k] ?? 0;
    totals[k] += r.counts[k] ?? 0;
  }
  const what = `${r.counts.pass} passed${r.counts.fail ? `, ${r.counts.fail} failed` : ''}${r.counts.skipped ? `, ${r.counts.skipped} skipped` : ''}`;
  const progress = `[${String(done).padStart(String(jobs.length).length)}/${jobs.length}]`;
  console.log(`${r.failed ? '✖' : '✔'} ${progress} ${r.label.padEnd(14)} ${r.file} (${seconds(r.ms)}): ${what}`);
  if (r.failed) {
    if (r.timedOut) console.log(`  ended after ${seconds(FILE_TIMEOUT_MS)}: the file did not finish (TEST_FILE_TIMEOUT_MS)`);
    else if (r.code !== 0 && !/✖/.test(r.body)) console.log(`  the process exited with ${r.code ?? r.sig}`);
    console.log(r.body.replace(/\n*$/, ''));
  } else {
    // Skips say why, so nothing is skipped silently.
    for (const line of r.body.split('\n')) if (line.startsWith('  - skipped')) console.log(line);
  }
}

console.log(`${files.length} test files, ${jobs.length} runs (${[...new Set(jobs.map((j) => j.label))].join(', ')}), ${concurrency} at a time`);
if (!postgres) {
  console.log(
    sqliteOnly
      ? 'PostgreSQL pass left out: --sqlite-only'
      : 'PostgreSQL pass skipped: TEST_DATABASE_URL is not set (CI sets it when PostgreSQL answers on 127.0.0.1:5432).',
  );
} else {
  // Not silent: the files that leave the PostgreSQL pass out say so, and why.
  for (const file of files) {
    const why = file.startsWith('packages/server/') && touchesStorage(file) ? onePassReason(file) : null;
    if (why) console.log(`One pass (SQLite) for ${file}: ${why}`);
  }
}

async function worker() {
  while (next < jobs.length) {
    const job = jobs[next++];
    report(await runJob(job));
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));

// --- What took longest, and the totals. ---
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 20);
const cpu = results.reduce((sum, r) => sum + (r.counts.cpuMs ?? 0), 0);
console.log(`\nThe 20 slowest files (of ${results.length} runs in ${seconds(Date.now() - started)}, ${seconds(cpu)} of CPU):`);
console.log(`      time       CPU  pass           file`);
for (const r of slowest) console.log(`  ${seconds(r.ms).padStart(8)}  ${seconds(r.counts.cpuMs ?? 0).padStart(8)}  ${r.label.padEnd(14)} ${r.file}`);
if (filter.length === 0) {
  mkdirSync(artifacts, { recursive: true });
  const durations = {};
  for (const r of results) durations[keyOf(r)] = r.ms;
  // The CPU each file used, for finding what to make cheaper (the list above is by time).
  writeFileSync(path.join(artifacts, 'test-cpu.json'), `${JSON.stringify(Object.fromEntries(results.map((r) => [keyOf(r), r.counts.cpuMs ?? 0])), null, 1)}\n`);
  writeFileSync(lastRun, `${JSON.stringify(durations, null, 1)}\n`);
}
const failedFiles = results.filter((r) => r.failed);
if (failedFiles.length) {
  console.log('\nFailed:');
  for (const r of failedFiles) console.log(`  ✖ ${r.label} ${r.file}`);
}
console.log('');
for (const [label, t] of byLabel) console.log(`${label}: ${t.pass} passed, ${t.fail} failed, ${t.skipped} skipped`);
console.log(`tests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(totals.fail > 0 ? 1 : 0);
