import type { ParseArgsConfig } from 'node:util';
import type { Progress } from './progress.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

/** What a command's run() gets: its parsed options and positionals, and the ways out. */
export interface CommandContext {
  values: Values;
  positionals: string[];
  /** Progress on stderr (a terminal, or --progress). */
  progress: Progress;
  /** Prints `tollgate: message` and this command's usage line on stderr and exits 2: the command was called wrongly. */
  fail: (message: string) => never;
}

/** One row of the command table: `tollgate <path…> [options]`. */
export interface Command {
  /** ['workspace', 'create']. */
  path: readonly string[];
  /** Arguments and options after the path, as the usage line shows them ("--name NAME [--json]"). */
  args: string;
  /** One line or a few, for `tollgate --help`. */
  summary: string;
  /** More for `tollgate help <command>`: flags, environment, an example. */
  details?: string;
  options?: Options;
  /** Positional arguments it takes (FILE, ID); more is an error. */
  positionals?: number;
  /** Does the work; only called once the arguments are parsed, so a mistyped command touches no storage. */
  run(ctx: CommandContext): Promise<void>;
}

export const name = (c: Command) => c.path.join(' ');

const COLUMN = 42;

/** The command's line of the overview: usage, then the summary aligned (on the next line when the usage is long). */
export function overviewLine(c: Command): string {
  const left = `  ${[name(c), c.args].filter(Boolean).join(' ')}`;
  const lines = c.summary.split('\n');
  const pad = ' '.repeat(COLUMN);
  const rest = lines.slice(1).map((l) => pad + l);
  if (left.length < COLUMN) return [left.padEnd(COLUMN) + lines[0], ...rest].join('\n');
  return [left, pad + lines[0], ...rest].join('\n');
}

/** One line for a command called wrongly: its usage, and where the rest is. */
export const usageLine = (c: Command) => `Usage: tollgate ${[name(c), c.args].filter(Boolean).join(' ')}; tollgate help ${name(c)} says more`;

/** `tollgate help <command>`: its usage line, what it does and its details. */
export function commandHelp(c: Command): string {
  const usage = `Usage: tollgate ${[name(c), c.args].filter(Boolean).join(' ')}`;
  const summary = c.summary.replace(/\n\s*/g, ' ');
  return [usage, '', summary, ...(c.details ? ['', c.details] : [])].join('\n');
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The closest of `candidates` to `word`, if it is close enough to be a typo (a third of its letters at most). */
export function closest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}
