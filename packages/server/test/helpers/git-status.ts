import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Ignored output that a test of the docs' commands is not answerable for: the builds commands run
 * (a package's dist/, `tollgate`'s rebuild of a stale server with its temporary folder), the lock
 * beside them, and what the suite's other files write while it runs (test-artifacts/).
 */
const BUILD_OUTPUT = /^!! (packages\/[^/]+\/dist\/|packages\/server\/dist\.|test-artifacts\/|packages\/sdk\/\.pack\.lock)/;

export type GitStatus = { entries: string[] } | { unavailable: string };

/**
 * `git status` of the repository with untracked and ignored entries, build output left out, or why
 * it cannot be had (no git, no work tree): what the README's and the docs' commands must leave as
 * they found it.
 */
export function gitStatus(): GitStatus {
  const r = spawnSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=normal'], { cwd: root, encoding: 'utf8' });
  if (r.error) return { unavailable: `git cannot be run: ${r.error.message}` };
  if (r.status !== 0) return { unavailable: `git status failed: ${r.stderr.trim()}` };
  return { entries: r.stdout.split('\n').filter((e) => e !== '' && !BUILD_OUTPUT.test(e)) };
}

/** The entries of `after` that `before` did not have; or why there is no answer. */
export function newEntries(before: GitStatus, after: GitStatus): { entries: string[] } | { unavailable: string } {
  if ('unavailable' in before) return before;
  if ('unavailable' in after) return after;
  const had = new Set(before.entries);
  return { entries: after.entries.filter((e) => !had.has(e)) };
}
