#!/usr/bin/env node
// The static checks CI runs before the tests (CONTRIBUTING.md, "What CI checks"), as many at once
// as there are cores: each is one node process that mostly computes, so on two cores two at a time
// take about half as long as one after the other. Lint, the longest, runs as two ESLint processes
// (below), so that it is not one core's work while the other has finished. Each check's output is
// printed when it ends, with its time; the exit status is non-zero when any failed, and the
// failures are named last.
// Usage: node scripts/checks.mjs [name…]   (default: all; names as in package.json's scripts)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
const names = wanted.length ? wanted : [...CHECKS];
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
// `npm run typecheck` is five `tsc -p <project> --noEmit`, each checking every file of its
// program from scratch (the server's sources once per program that imports them: the SDK's, and
// tsconfig.check.json's, which holds the server, the forwarder and the benches). Here the same
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

// --- lint: ESLint as two processes, and not again on files it passed as they are --------------
// `eslint .` is the longest check (about two minutes of one core): its type-aware rules build a
// TypeScript program per tsconfig. It runs here as two ESLint processes side by side, one for
// packages/server and one for everything else (`eslint .` less packages/server): together the
// same files, each linted with the same rules and the same type information (a file's program is
// its own tsconfig's either way), on two cores once the shorter checks are done. The price: the
// SDK's program and the one the forwarder and bench share (tsconfig.check.json, eslint.config.js
// says why) take in the server's sources, which the second process parses again.
//
// ESLint's own --cache is not used: it keys each file on its own text, but a type-aware rule's
// findings in a file depend on the types of everything it imports (typescript-eslint#4694), so an
// edit in one file could leave another's stale findings standing. What is kept instead is for the
// whole tree: a digest of every file lint or TypeScript can read (sources, configs, JSON, the
// lockfile; not node_modules, which the lockfile pins, nor build output), with Node's and the lint
// packages' versions. When lint passed on a tree with the same digest before, on this machine
// (the record is kept beside the type check's, in TOLLGATE_CHECKS_CACHE), nothing it reads has
// changed and it is not run again, saying so; any change to any such file runs it in full. So
// `npm run check` before pushing makes CI's lint of the same tree free, and nothing else.
const LINT_COMMAND = /^eslint \.$/;
const LINT_PARTS = [
  { label: 'packages/server', args: ['packages/server'] },
  { label: 'everything but packages/server', args: ['.', '--ignore-pattern', 'packages/server/'] },
];
/**
 * What lint never reads: the dependencies (the lockfile pins them), and what eslint.config.js
 * ignores and no source imports: the packages' build output, the database folders, test output.
 */
const notRead = (rel, name) => name === '.git' || name === 'node_modules' || name === 'data' || /^(coverage|test-artifacts|packages\/[^/]+\/dist)$/.test(rel);
/** What ESLint or TypeScript may read: sources, declarations, configs and JSON (resolveJsonModule). */
const READ = /\.(?:[cm]?[jt]sx?|json)$/;
const LINT_PACKAGES = ['eslint', '@eslint/js', 'typescript', 'typescript-eslint', '@typescript-eslint/parser', '@typescript-eslint/eslint-plugin'];
const lintRecord = path.join(localCache, '..', 'lint-passed.json');
const keptLintRecord = path.join(keptCache, '..', 'lint-passed.json');

/** The digest of everything lint reads (above): file names relative to the clone, so another clone of the same tree has the same. */
function lintInputsDigest() {
  const h = createHash('sha256');
  h.update(`node ${process.version}\n`);
  for (const pkg of LINT_PACKAGES) {
    let version = 'missing';
    try {
      version = JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    } catch {
      /* not installed: part of the digest all the same */
    }
    h.update(`${pkg} ${version}\n`);
  }
  const walk = (dir) => {
    for (const d of readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const rel = dir ? `${dir}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (!notRead(rel, d.name)) walk(rel);
      } else if (READ.test(d.name)) {
        h.update(`${rel}\0`)
          .update(readFileSync(path.join(root, rel)))
          .update('\0');
      }
    }
  };
  walk('');
  return h.digest('hex');
}

function passedDigests() {
  for (const file of [lintRecord, keptLintRecord]) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      /* no record here */
    }
  }
  return [];
}

function recordPassed(digest) {
  const digests = [digest, ...passedDigests().filter((d) => d !== digest)].slice(0, 20);
  try {
    mkdirSync(path.dirname(lintRecord), { recursive: true });
    writeFileSync(lintRecord, `${JSON.stringify(digests)}\n`);
    copyWhole(lintRecord, keptLintRecord);
  } catch {
    /* the next run lints in full */
  }
}

/** The jobs of `lint`: one that says why nothing is linted, or its two parts (else the script as it is). */
function lintJobs() {
  const script = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.lint ?? '';
  if (!LINT_COMMAND.test(script.trim())) return [{ name: 'lint', label: 'lint', start: () => exec(npm, ['run', '--silent', 'lint']) }];
  let digest = null;
  try {
    digest = lintInputsDigest();
  } catch {
    /* unreadable: lint in full, record nothing */
  }
  if (digest && passedDigests().includes(digest)) {
    const out = `every file lint reads is as it was when lint last passed on this machine (digest ${digest.slice(0, 12)}): not linted again`;
    return [{ name: 'lint', label: 'lint', start: async () => ({ code: 0, out }) }];
  }
  const eslint = path.join(root, 'node_modules/eslint/bin/eslint.js');
  let left = LINT_PARTS.length;
  let allPassed = true;
  return LINT_PARTS.map((part) => ({
    name: 'lint',
    label: `lint: ${part.label}`,
    start: async () => {
      const r = await exec(process.execPath, [eslint, ...part.args]);
      if (r.code !== 0) allPassed = false;
      left -= 1;
      // Both parts passed, and no file changed while they ran: this tree needs no lint again.
      if (left === 0 && allPassed && digest) {
        try {
          if (lintInputsDigest() === digest) recordPassed(digest);
        } catch {
          /* not recorded */
        }
      }
      return r;
    },
  }));
}

function job(name) {
  if (name === 'typecheck') return [{ name, label: name, start: typecheck }];
  if (name === 'format:check') return [{ name, label: name, start: formatCheck }];
  if (name === 'lint') return lintJobs();
  return [{ name, label: name, start: () => exec(npm, ['run', '--silent', name]) }];
}

// The longest first: lint's server half, then the type check beside it, then lint's other half.
const ORDER = ['lint: packages/server', 'typecheck', 'lint: everything but packages/server'];
const rank = (j) => (ORDER.includes(j.label) ? ORDER.indexOf(j.label) : ORDER.length);
const queue = names.flatMap(job).sort((a, b) => rank(a) - rank(b));

function run(j) {
  const t0 = Date.now();
  return j.start().then(({ code, out }) => {
    const s = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(`${code === 0 ? '✔' : '✖'} npm run ${j.label} (${s} s)`);
    if (out.trim()) console.log(out.replace(/\n*$/, ''));
    if (code !== 0 && !failed.includes(j.name)) failed.push(j.name);
  });
}

const started = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (next < queue.length) await run(queue[next++]);
  }),
);
console.log(`static checks: ${names.length - failed.length} passed, ${failed.length} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
if (failed.length) {
  console.log(`failed: ${failed.map((f) => `npm run ${f}`).join(', ')}`);
  process.exit(1);
}
