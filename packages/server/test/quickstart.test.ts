/**
 * The README's quick start is docs/quickstart.sh, so it cannot drift: its blocks of commands are the
 * script's, in order and all of them (but the part that starts a server of its own), and its
 * blocks of expected output are what the script prints, run here as a newcomer runs it: `bash
 * docs/quickstart.sh`, no TOLLGATE_URL, so on a server of its own on SQLite in a temporary
 * directory. The run leaves `git status` as it found it (the script writes only into its temporary
 * directory). It needs no test app and no backend of the runner's, so the runner runs it once.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitStatus, newEntries, type GitStatus } from './helpers/git-status.js';
import { runInOwnGroup, type GroupRun } from './helpers/process-group.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = 'docs/quickstart.sh';
/** Only a bound on a hang: the run takes 20 to 40 s on a busy 2-core machine, a first start of the server more. */
const RUN_BOUND_MS = 5 * 60_000;

// --- What the page shows ---------------------------------------------------------------------------

const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const block = (() => {
  const begin = readme.indexOf('<!-- quickstart:begin -->');
  const end = readme.indexOf('<!-- quickstart:end -->');
  assert.ok(begin >= 0 && end > begin, 'README.md has a <!-- quickstart:begin --> … <!-- quickstart:end --> block');
  return readme.slice(begin, end);
})();

/** The lines of every ```LANG block of the quick start, in order, blank lines left out. */
function fenced(lang: string): string[] {
  const lines: string[] = [];
  for (const m of block.matchAll(new RegExp(`^\`\`\`${lang}\\n([^]*?)^\`\`\`$`, 'gm'))) lines.push(...m[1]!.split('\n'));
  return lines.filter((l) => l.trim() !== '');
}

/** The lines of the script that README.md shows: after its "README.md shows" line, but for the part marked "not shown". */
function shownScriptLines(): string[] {
  const lines = readFileSync(path.join(root, script), 'utf8').split('\n');
  const from = lines.findIndex((l) => l.startsWith('# --- README.md shows'));
  assert.ok(from >= 0, `${script} has a "# --- README.md shows" line`);
  const shown: string[] = [];
  let hidden = false;
  for (const line of lines.slice(from + 1)) {
    if (line.startsWith('# --- not shown')) hidden = true;
    else if (line.startsWith('# --- shown')) hidden = false;
    else if (!hidden && line.trim() !== '') shown.push(line);
  }
  return shown;
}

// --- One run of the script -----------------------------------------------------------------------

type Run = GroupRun;

/**
 * `bash docs/quickstart.sh` from the repository root with only PATH, HOME, TMPDIR and LANG: no
 * TOLLGATE_URL or TOLLGATE_KEY, nor the runner's database. Its own process group: a run that hangs
 * is ended (the script then stops its server by PID) and fails here.
 */
async function runScript(): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k]) env[k] = process.env[k];
  const run = await runInOwnGroup('bash', [script], env, RUN_BOUND_MS);
  if (run.timedOut) throw new Error(`bash ${script} did not finish in ${RUN_BOUND_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return run;
}

// --- The tests -----------------------------------------------------------------------------------

describe('the quick start (README.md) is docs/quickstart.sh', () => {
  it('its blocks of commands are the lines of the script, in order, all of them but the server start', () => {
    const shown = fenced('sh');
    assert.ok(shown.length > 0, 'the quick start has ```sh blocks');
    assert.deepEqual(shown, shownScriptLines());
  });

  it('it has fourteen steps, and its expected output numbers them in order', () => {
    const steps = fenced('sh').flatMap((l) => /^# (\d+)\. /.exec(l)?.[1] ?? []);
    assert.deepEqual(
      steps.map(Number),
      Array.from({ length: 14 }, (_, i) => i + 1),
    );
    const numbers = fenced('text').map((l) => Number(/^(\d+)\. /.exec(l)?.[1]));
    assert.ok(numbers.length > 0, 'the quick start has ```text blocks');
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
      'every expected line starts with its step number, in order',
    );
    assert.deepEqual([...new Set(numbers)], steps.map(Number), 'every step prints at least one line');
  });
});

describe('bash docs/quickstart.sh, on a server of its own (SQLite)', () => {
  let run: Run;
  let statusBefore: GitStatus;
  let statusAfter: GitStatus;

  before(
    async () => {
      statusBefore = gitStatus();
      run = await runScript();
      statusAfter = gitStatus();
    },
    { timeout: RUN_BOUND_MS + 30_000 },
  );
  it('exits 0', () => {
    assert.equal(run.code, 0, `exit ${run.code} (signal ${run.signal})\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  });

  it("prints the README's expected lines, in order", () => {
    assert.deepEqual(run.stdout.split('\n').filter(Boolean), fenced('text'), `stderr:\n${run.stderr}`);
  });

  it('leaves git status as it was: nothing new in the repository, ignored files included', (t) => {
    const appeared = newEntries(statusBefore, statusAfter);
    if ('unavailable' in appeared) return t.skip(appeared.unavailable);
    assert.deepEqual(
      appeared.entries,
      [],
      'entries of git status that appeared during the run (edits someone made to the working tree meanwhile show here too)',
    );
  });
});
