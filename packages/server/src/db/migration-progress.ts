/**
 * Progress of a long migration step (re-indexing a large table), reported every few seconds so
 * a start that takes minutes says why. Migrations keep Kysely's `up(db)` signature, so the
 * reporter is set around a run by migrateToLatest rather than passed in. There is one per
 * process: runs at the same time in one process (only tests do that) share whichever was set last,
 * which affects only where progress lines go.
 */
export interface MigrationProgressEvent {
  migration: string;
  /** What is counted, e.g. "audit events re-indexed". */
  what: string;
  done: number;
  total: number;
}

export type MigrationProgressReporter = (e: MigrationProgressEvent) => void;

let reporter: MigrationProgressReporter | null = null;

/** Sets the reporter for the migrations run from now on; null stops reporting. */
export function setMigrationProgressReporter(fn: MigrationProgressReporter | null): void {
  reporter = fn;
}

/**
 * A function to call with the count done so far: it reports at most every `everyMs`, and once at
 * the end if anything was reported before, so short migrations stay silent.
 */
export function reportMigrationProgress(migration: string, what: string, total: number, everyMs = 5000, now: () => number = Date.now): (done: number) => void {
  let last = now();
  let reported = false;
  return (done) => {
    if (!reporter) return;
    const t = now();
    const finished = done >= total;
    if ((finished && reported) || (!finished && t - last >= everyMs)) {
      reporter({ migration, what, done, total });
      last = t;
      reported = true;
    }
  };
}
