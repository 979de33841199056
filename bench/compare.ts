// The guard against creeping back (issue 40): the hot-path benchmarks against a server from a git
// ref (REF) and one from the working tree, alternating, printed as one markdown table of ratios.
// Run: npm run bench:compare REF [-- --only checks,keys --rounds 2 --seconds 4 --messages 5000]
//      (the defaults: about 15 minutes on the busy 2-core machine; 127.0.0.1 only; stops by itself)
//
// How it compares, and why:
// - Same load generator, different server. The working tree's drivers (bench/ingest.ts,
//   entitlements.ts, key-verification.ts, webhooks.ts, outbound-webhooks.ts, through the
//   measure…() functions they export) run in this process against bench/bench-server.ts started
//   in REF's checkout (BENCH_SERVER_ROOT, lib.ts) and in the working tree. REF's own
//   bench-server.ts runs (its imports are relative paths into its packages/server/src); the output
//   says when it differs from the tree's, since its seeding and ceiling routes are then not the
//   same. The outbound bench fills the outbox with the server code of the side being measured.
// - REF's checkout is a detached `git worktree` in a temporary directory, removed at the end (also
//   on Ctrl-C). Its dependencies: a plain symlink to the root node_modules would resolve
//   @tollgate/pricing (a relative symlink, ../../packages/pricing) to the working tree's package,
//   not REF's, once Node follows the link. So node_modules in the worktree is a real directory of
//   links: every third-party entry to the installed one, @tollgate/* to the worktree's own
//   packages. No install, no network. REF then runs with the working tree's installed third-party
//   versions: when REF's package-lock.json differs from the tree's, the output says so and lists
//   the packages whose versions differ (those differences are in the comparison).
// - Every figure is a ratio to its ceiling measured in the same run (as each bench prints it), so
//   a load that changes between runs weighs less; beside it the server process's CPU time (all its
//   threads, /proc) per unit of work during the measured load, which hardly depends on how busy
//   the machine is. Runs alternate A B B A per path (compare-report.ts, schedule) so that a steady
//   drift in the machine's load weighs on both sides alike; each cell is the median over rounds.
// - Short runs (4 s of load, a 5,000-message backlog) keep the whole compare to minutes: it is a
//   tripwire for a change's description, not the record in bench/README.md.
// Exit code 0 whatever the figures (a measurement, not a gate); 2 when it could not run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { formatTable, parseArgs, PATHS, schedule, USAGE, type PathKey, type PathResult, type Sample } from './compare-report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const progress = (line: string) => process.stderr.write(`bench:compare: ${line}\n`);

function fail(why: string): never {
  console.error(`bench:compare: ${why}`);
  process.exit(2);
}

/** REF checked out beside the tree, removed by `remove` (idempotent, synchronous so it can run on exit). */
function refCheckout(sha: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tollgate-compare-'));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      try {
        git('worktree', 'prune');
      } catch {
        /* nothing left to prune */
      }
    }
  };
  git('worktree', 'add', '--detach', '--quiet', dir, sha);
  try {
    linkDependencies(dir);
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, remove };
}

/** node_modules in the worktree: links to the installed packages, @tollgate/* to the worktree's own. */
function linkDependencies(dir: string): void {
  const modules = path.join(root, 'node_modules');
  mkdirSync(path.join(dir, 'node_modules'));
  for (const name of readdirSync(modules)) {
    if (name === '@tollgate') continue;
    symlinkSync(path.join(modules, name), path.join(dir, 'node_modules', name));
  }
  mkdirSync(path.join(dir, 'node_modules/@tollgate'));
  for (const pkg of readdirSync(path.join(dir, 'packages'))) {
    const manifest = path.join(dir, 'packages', pkg, 'package.json');
    if (!existsSync(manifest)) continue;
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
    if (name?.startsWith('@tollgate/')) symlinkSync(path.join('../../packages', pkg), path.join(dir, 'node_modules', name));
    // A package's own node_modules (npm nests a version that differs from the root's) holds
    // third-party packages only: the installed one serves.
    const nested = path.join(root, 'packages', pkg, 'node_modules');
    if (existsSync(nested)) symlinkSync(nested, path.join(dir, 'packages', pkg, 'node_modules'));
  }
}

/** This process's child processes, from /proc (none where there is no /proc). */
function childPids(): number[] {
  try {
    return readdirSync('/proc/self/task').flatMap((tid) => readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** The installed packages whose versions differ between REF's lockfile and the tree's, as lines. */
function lockfileDifferences(sha: string): string[] {
  const tree = readFileSync(path.join(root, 'package-lock.json'), 'utf8');
  let ref: string;
  try {
    ref = git('show', `${sha}:package-lock.json`);
  } catch {
    return ['REF has no package-lock.json'];
  }
  if (ref === tree.trim()) return [];
  type Lock = { packages?: Record<string, { version?: string }> };
  const a = (JSON.parse(ref) as Lock).packages ?? {};
  const b = (JSON.parse(tree) as Lock).packages ?? {};
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((n) => n.startsWith('node_modules/') && a[n]?.version !== b[n]?.version).sort();
  if (names.length === 0) return ['the lockfiles differ, but in no installed package version (workspace manifests or metadata)'];
  const shown = names
    .slice(0, 12)
    .map((n) => `${n.slice('node_modules/'.length)} ${a[n]?.version ?? '(absent)'} on REF, ${b[n]?.version ?? '(absent)'} in the tree`);
  return names.length > shown.length ? [...shown, `and ${names.length - shown.length} more`] : shown;
}

async function main(): Promise<void> {
  const parsed = parseArgs(process.argv.slice(2), process.env);
  if (parsed === 'help') {
    console.log(USAGE);
    return;
  }
  if ('error' in parsed) fail(`${parsed.error}\n\n${USAGE}`);
  const opts = parsed;
  let sha: string;
  try {
    sha = git('rev-parse', '--verify', '--quiet', `${opts.ref}^{commit}`);
  } catch {
    fail(`${opts.ref} is not a commit of this repository`);
  }
  const head = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const short = sha.slice(0, 9);
  const lockNotes = lockfileDifferences(sha);
  const benchServerDiffers = git('diff', '--name-only', sha, '--', 'bench/bench-server.ts') !== '';

  progress('loading the bench drivers');
  // The drivers read these when they load: set before importing them.
  process.env.BENCH_SECONDS = String(opts.seconds);
  delete process.env.BENCH_DATABASE_URL; // the table's ingestion and deliveries are SQLite's
  delete process.env.BENCH_BARE;
  delete process.env.BENCH_SERVER_ROOT;
  const [ingest, checks, keys, webhooks, outbound] = await Promise.all([
    import('./ingest.js'),
    import('./entitlements.js'),
    import('./key-verification.js'),
    import('./webhooks.js'),
    import('./outbound-webhooks.js'),
  ]);
  const perUnit = (cpuSeconds: number | null, units: number) => (cpuSeconds === null || units <= 0 ? null : (cpuSeconds * 1000) / units);
  const measure: Record<PathKey, () => Promise<Sample>> = {
    async ingest() {
      const m = await ingest.measureIngest({ clients: [8], fresh: true, withoutIndex: false });
      const run = m.runs[0]!;
      const problems = run.result.other > 0 ? [`${run.result.other} answers neither 200 nor 503`] : [];
      return { ratio: run.eventsPerSecond / m.ceiling, cpuMsPerUnit: perUnit(run.cpuSeconds, run.result.ok), problems };
    },
    'checks-cached': () => checkSample(checks.CHECK_RUNS.cached),
    'checks-uncached': () => checkSample(checks.CHECK_RUNS.uncached),
    async keys() {
      const m = await keys.measureKeyVerification({ authed: false });
      const problems = m.verify.non2xx > 0 ? [`${m.verify.non2xx} verifications answered other than 2xx`] : [];
      return { ratio: m.verify.requests.average / m.bare.requests.average, cpuMsPerUnit: perUnit(m.verifyCpuSeconds, m.verify.requests.total), problems };
    },
    async webhooks() {
      const m = await webhooks.measureWebhooks();
      return { ratio: m.hookRate / m.bareRate, cpuMsPerUnit: perUnit(m.cpuSeconds, m.hook.accepted), problems: m.problems.map(String) };
    },
    async outbound() {
      const m = await outbound.measureOutbound({ messages: opts.messages, latency: false });
      return {
        ratio: m.throughput.recordedPerSecond / m.ceiling.perSecond,
        cpuMsPerUnit: perUnit(m.throughput.serverCpuSeconds, m.messages),
        problems: m.problems,
      };
    },
  };
  async function checkSample(env: Record<string, string>): Promise<Sample> {
    const m = await checks.measureChecks('compare', env);
    const problems = m.check.non2xx > 0 ? [`${m.check.non2xx} checks answered other than 2xx`] : [];
    return { ratio: m.check.requests.average / m.bare.requests.average, cpuMsPerUnit: perUnit(m.checkCpuSeconds, m.check.requests.total), problems };
  }

  const loadAtStart = loadavg();
  const started = performance.now();
  progress(`checking out ${opts.ref} (${short}) in a temporary worktree`);
  const checkout = refCheckout(sha);
  // Removed however this process ends: normally, on an error, on a signal. A signal also stops
  // the bench server running (this process's child, by its PID: a Ctrl-C reaches it anyway, a kill
  // of this PID alone would not).
  process.once('exit', checkout.remove);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const pid of childPids()) process.kill(pid, 'SIGTERM');
      checkout.remove();
      process.exit(130);
    });

  const results = new Map<PathKey, PathResult>(opts.paths.map((p) => [p, { path: p, ref: [], tree: [] }]));
  const runs = schedule(opts.paths, opts.rounds);
  try {
    for (const [i, run] of runs.entries()) {
      const where = run.side === 'ref' ? `REF (${short})` : 'the tree';
      progress(`[${i + 1}/${runs.length}] round ${run.round}, ${run.path}, on ${where}; load average ${loadavg()}`);
      if (run.side === 'ref') process.env.BENCH_SERVER_ROOT = checkout.dir;
      else delete process.env.BENCH_SERVER_ROOT;
      const t0 = performance.now();
      let sample: Sample;
      try {
        sample = await measure[run.path]();
      } catch (err) {
        sample = { ratio: null, cpuMsPerUnit: null, error: (err as Error).message.split('\n')[0]! };
      }
      const unit = PATHS.find((p) => p.key === run.path)!.unit;
      progress(
        `    ${sample.error ? `failed: ${sample.error}` : `ratio ${sample.ratio?.toFixed(2) ?? 'n/a'}, server CPU ${sample.cpuMsPerUnit?.toPrecision(3) ?? 'n/a'} ms per ${unit}`} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
      results.get(run.path)![run.side].push(sample);
    }
  } finally {
    delete process.env.BENCH_SERVER_ROOT;
    checkout.remove();
  }

  const cpu = os.cpus();
  const out = [
    `### bench:compare: ${opts.ref} (${short}) against the working tree (${head}${dirty ? ' with uncommitted changes' : ''})`,
    '',
    `${opts.rounds} round${opts.rounds === 1 ? '' : 's'}, ${opts.seconds} s of load per run, outbound backlog ${opts.messages.toLocaleString('en-US')} messages; ` +
      `${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), Node ${process.version}; load average at start ${loadAtStart}, at end ${loadavg()}; ` +
      `${((performance.now() - started) / 60_000).toFixed(1)} min`,
    ...(benchServerDiffers ? ['', 'Note: bench/bench-server.ts differs between REF and the tree: each side seeds and serves its ceilings with its own.'] : []),
    ...(lockNotes.length > 0
      ? [
          '',
          "**REF's package-lock.json differs from the tree's**: REF's server ran with the tree's installed dependencies, so these differences are not compared:",
          ...lockNotes.map((l) => `- ${l}`),
        ]
      : []),
    '',
    ...formatTable([...results.values()]),
  ];
  console.log(`\n${out.join('\n')}`);
}

await main();
