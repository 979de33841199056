#!/usr/bin/env node
// The static checks CI runs before the tests (CONTRIBUTING.md, "What CI checks"), as many at once
// as there are cores: each is one node process that mostly computes, so on two cores two at a time
// take about half as long as one after the other. Each check's output is printed when it ends,
// with its time; the exit status is non-zero when any failed, and the failures are named last.
// Usage: node scripts/checks.mjs [name…]   (default: all; names as in package.json's scripts)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One command to its end: its exit code and everything it printed. */
function exec(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('error', (err) => resolve({ code: 1, out: `${out}${err}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

// --- typecheck: package.json's own tsc commands, incremental -----------------------------------
// `npm run typecheck` is seven `tsc -p <project> --noEmit`, each checking every file of its
// program from scratch (the server's sources once per package that imports them). Here the same
// commands run with --incremental: tsc records in a .tsbuildinfo file, per source file, its hash
// and its diagnostics, and on the next run checks again only the files that changed and those whose
// imports changed; the others' diagnostics (errors included) are reported from the record. The
// same checks, the same errors: a first run takes as long as before.
// The records live in node_modules/.cache/tollgate-checks (inside the clone: paths in them are
// relative to it) and are kept between clones in TOLLGATE_CHECKS_CACHE (default
// ~/.cache/tollgate-checks, beside npm's own cache), so CI's fresh clone starts from the last run's.
// A record from another TypeScript version or other options is ignored by tsc itself.
const TSC_COMMAND = /^tsc -p (\S+) --noEmit$/;
const localCache = path.join(root, 'node_modules/.cache/tollgate-checks/tsc');
const keptCache = path.join(process.env.TOLLGATE_CHECKS_CACHE || path.join(os.homedir(), '.cache/tollgate-checks'), 'tsc');

function tscProjects() {
  const script = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.typecheck ?? '';
  const projects = script.split('&&').map((c) => TSC_COMMAND.exec(c.trim())?.[1]);
  // Anything else in the script than these commands: run the script as it is.
  return projects.length > 0 && projects.every(Boolean) ? projects : null;
}

/** Copies `from` over `to` whole (written beside it, then renamed: a reader never sees half a file). */
function copyWhole(from, to) {
  mkdirSync(path.dirname(to), { recursive: true });
  const partial = `${to}.${process.pid}.partial`;
  copyFileSync(from, partial);
  renameSync(partial, to);
}

async function typecheck() {
  const projects = tscProjects();
  if (!projects) return exec(npm, ['run', '--silent', 'typecheck']);
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  let out = '';
  for (const project of projects) {
    const name = `${project.replace(/[^\w.-]+/g, '_')}.tsbuildinfo`;
    const record = path.join(localCache, name);
    const kept = path.join(keptCache, name);
    try {
      if (!existsSync(record) && existsSync(kept)) copyWhole(kept, record);
    } catch {
      /* no record: a full check */
    }
    const t0 = Date.now();
    const r = await exec(process.execPath, [tsc, '-p', project, '--noEmit', '--incremental', '--tsBuildInfoFile', record]);
    out += `tsc -p ${project} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n${r.out}`;
    // Like npm's `&&`: the first project with errors ends the check.
    if (r.code !== 0) return { code: r.code, out };
    try {
      copyWhole(record, kept);
    } catch {
      /* the next clone checks in full */
    }
  }
  return { code: 0, out };
}

// --- format:check: Prettier with its cache ------------------------------------------------------
// Prettier's own cache (--cache, by content): a file whose text, Prettier version and options are
// those of a file it found formatted last time is not formatted again. Its record names files by
// absolute path, so the copy kept between clones is per clone folder (a clone elsewhere checks in full).
const PRETTIER_COMMAND = /^prettier --check \.$/;

async function formatCheck() {
  const script = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.['format:check'] ?? '';
  if (!PRETTIER_COMMAND.test(script.trim())) return exec(npm, ['run', '--silent', 'format:check']);
  const name = `prettier-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.cache`;
  const record = path.join(localCache, '..', name);
  const kept = path.join(keptCache, '..', name);
  try {
    if (!existsSync(record) && existsSync(kept)) copyWhole(kept, record);
  } catch {
    /* no record: every file is checked */
  }
  const prettier = path.join(root, 'node_modules/prettier/bin/prettier.cjs');
  const r = await exec(process.execPath, [prettier, '--check', '.', '--cache', '--cache-strategy', 'content', '--cache-location', record]);
  try {
    if (existsSync(record)) copyWhole(record, kept);
  } catch {
    /* the next clone checks every file */
  }
  return r;
}

function run(name) {
  const t0 = Date.now();
  const check = name === 'typecheck' ? typecheck() : name === 'format:check' ? formatCheck() : exec(npm, ['run', '--silent', name]);
  return check.then(({ code, out }) => {
    const s = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(`${code === 0 ? '✔' : '✖'} npm run ${name} (${s} s)`);
    if (out.trim()) console.log(out.replace(/\n*$/, ''));
    if (code !== 0) failed.push(name);
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
