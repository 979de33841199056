/**
 * Progress of long CLI work, on stderr only, so stdout (`--json`, NDJSON) stays clean. Shown when
 * stderr is a terminal, or with --progress (then as plain lines, for logs and tests). On a
 * terminal one line is redrawn in place; otherwise a line is written per phase and per tenth of
 * the work done, so a log is not flooded.
 */
export interface Progress {
  /** A step starts ("checking the copy"). */
  phase(text: string): void;
  /** How far the current step is; `unit` 'bytes' shows sizes, else counts. */
  update(label: string, done: number, total: number, unit?: 'bytes' | 'items'): void;
  /** Ends the redrawn line, if any. */
  end(): void;
}

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const BAR_WIDTH = 24;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

const amount = (n: number, unit: 'bytes' | 'items') => (unit === 'bytes' ? formatBytes(n) : n.toLocaleString('en-US'));

/** A progress reporter; `forced` is the --progress flag. Silent unless the stream is a terminal or forced. */
export function createProgress(stream: ProgressStream = process.stderr, forced = false): Progress {
  const tty = stream.isTTY === true;
  if (!tty && !forced) return { phase: () => undefined, update: () => undefined, end: () => undefined };
  let drawn = false;
  let lastTenth = -1;
  let lastLabel = '';
  const clear = () => {
    if (drawn) stream.write('\n');
    drawn = false;
  };
  return {
    phase(text) {
      clear();
      lastTenth = -1;
      stream.write(`${text}\n`);
    },
    update(label, done, total, unit = 'items') {
      const fraction = total > 0 ? Math.min(1, done / total) : 1;
      const pct = Math.floor(fraction * 100);
      const text = `${label} ${amount(done, unit)} of ${amount(total, unit)} (${pct}%)`;
      if (tty) {
        const filled = Math.round(fraction * BAR_WIDTH);
        const line = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${text}`;
        stream.write(`\r${line.slice(0, (stream.columns ?? 100) - 1)}\x1b[K`);
        drawn = true;
        return;
      }
      const tenth = Math.floor(fraction * 10);
      if (tenth === lastTenth && label === lastLabel) return;
      lastTenth = tenth;
      lastLabel = label;
      stream.write(`${text}\n`);
    },
    end: clear,
  };
}
