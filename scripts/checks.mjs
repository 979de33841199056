#!/usr/bin/env node
// The static checks CI runs before the tests (CONTRIBUTING.md, "What CI checks"), as many at once
// as there are cores: each is one node process that mostly computes, so on two cores two at a time
// take about half as long as one after the other. Each check's output is printed when it ends,
// with its time; the exit status is non-zero when any failed, and the failures are named last.
// Usage: node scripts/checks.mjs [name…]   (default: all; names as in package.json's scripts)
import { spawn } from 'node:child_process';
import os from 'node:os';

const CHECKS = ['typecheck', 'lint', 'format:check', 'deps:check', 'openapi:lint'];
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !CHECKS.includes(w));
if (unknown.length) {
  console.error(`checks.mjs: no check named ${unknown.join(', ')}; the checks are ${CHECKS.join(', ')}`);
  process.exit(2);
}
const queue = wanted.length ? wanted : [...CHECKS];
// The slowest first (lint and typecheck take a minute or more each; the rest seconds).
const concurrency = Number(process.env.CHECKS_CONCURRENCY ?? Math.max(1, os.availableParallelism()));
const failed = [];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(name) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('close', (code) => {
      const s = ((Date.now() - t0) / 1000).toFixed(1);
      console.log(`${code === 0 ? '✔' : '✖'} npm run ${name} (${s} s)`);
      if (out.trim()) console.log(out.replace(/\n*$/, ''));
      if (code !== 0) failed.push(name);
      resolve();
    });
  });
}

const started = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (next < queue.length) await run(queue[next++]);
  }),
);
console.log(`static checks: ${queue.length - failed.length} passed, ${failed.length} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
if (failed.length) {
  console.log(`failed: ${failed.map((f) => `npm run ${f}`).join(', ')}`);
  process.exit(1);
}
