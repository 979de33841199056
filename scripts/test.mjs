#!/usr/bin/env node
// Runs every test file with node's test runner (through tsx): once on SQLite, and once more on
// PostgreSQL (and Redis, when REDIS_URL is set) when TEST_DATABASE_URL is set. Ends with one
// line that sums both passes: "tests: N passed, N failed, N skipped". --conditions=tollgate-source
// makes @tollgate/sdk resolve to its TypeScript source (the forwarder imports it by name).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const filter = process.argv.slice(2);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = readdirSync(path.join(root, 'packages'))
  .flatMap((pkg) => findTests(path.join(root, 'packages', pkg)))
  // Filters match the path inside the repository, so a clone in a folder named like one (wt-console) does not match every file.
  .filter((f) => filter.length === 0 || filter.some((x) => path.relative(root, f).includes(x)))
  .sort();

const totals = { pass: 0, fail: 0, skipped: 0 };

function run(label, env) {
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  const r = spawnSync(
    process.execPath,
    ['--conditions=tollgate-source', '--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=3', ...files],
    {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  const count = (name) => Number(/^ℹ (\w+) (\d+)$/m.test(r.stdout) ? (r.stdout.match(new RegExp(`^ℹ ${name} (\\d+)$`, 'm'))?.[1] ?? 0) : 0);
  const pass = count('pass');
  const fail = count('fail') + (r.status !== 0 && count('fail') === 0 ? 1 : 0);
  const skipped = count('skipped');
  totals.pass += pass;
  totals.fail += fail;
  totals.skipped += skipped;
  console.log(`${label}: ${pass} passed, ${fail} failed, ${skipped} skipped`);
}

run('SQLite', { TOLLGATE_TEST_BACKEND: 'sqlite' });
if (process.env.TEST_DATABASE_URL) {
  run(`PostgreSQL${process.env.REDIS_URL ? ' + Redis' : ''}`, { TOLLGATE_TEST_BACKEND: 'postgres' });
} else {
  console.log('\nPostgreSQL pass skipped: TEST_DATABASE_URL is not set (CI sets it when PostgreSQL answers on 127.0.0.1:5432).');
}
console.log(`\ntests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(totals.fail > 0 ? 1 : 0);
