// The pure part of bench/compare.ts: its arguments, the order of its runs, and the table it prints
// (tested in packages/server/test/bench-compare.test.ts; no I/O here).

export const PATHS = [
  { key: 'ingest', group: 'ingest', label: 'ingestion (SQLite, 8 clients, occurredAt now)', ceiling: 'raw insert, same database', unit: '1,000 events' },
  { key: 'checks-cached', group: 'checks', label: 'entitlement checks, answer cache on', ceiling: 'bare GET, same server', unit: 'check' },
  { key: 'checks-uncached', group: 'checks', label: 'entitlement checks, answer cache off', ceiling: 'bare GET, same server', unit: 'check' },
  { key: 'keys', group: 'keys', label: 'key verification', ceiling: 'bare GET, same server', unit: 'verification' },
  { key: 'webhooks', group: 'webhooks', label: 'inbound webhooks', ceiling: 'bare POST, same server', unit: 'webhook accepted' },
  { key: 'outbound', group: 'outbound', label: 'outbound deliveries (SQLite)', ceiling: 'raw POSTs to the same receiver', unit: 'delivery' },
] as const;

export type PathKey = (typeof PATHS)[number]['key'];
export type PathSpec = (typeof PATHS)[number];
export type Side = 'ref' | 'tree';

/** tree/REF of the figure-to-ceiling ratio below this is flagged. */
export const RATIO_REGRESSION = 0.95;
/** tree/REF of the server's CPU per unit above this is flagged. */
export const CPU_REGRESSION = 1.05;

export interface CompareOptions {
  ref: string;
  paths: PathKey[];
  rounds: number;
  /** Seconds of each load run (BENCH_SECONDS of the bench scripts). */
  seconds: number;
  /** The outbound backlog (BENCH_MESSAGES of bench/outbound-webhooks.ts). */
  messages: number;
}

export const USAGE = `npm run bench:compare REF [-- --only ingest,checks,keys,webhooks,outbound] [--rounds N] [--seconds N] [--messages N]

Runs the hot-path benchmarks against a server from REF (any git ref) and one from the working tree,
alternating, and prints a markdown table of each figure's ratio to its ceiling on both sides.
  --only      a subset: ${[...new Set(PATHS.map((p) => p.group))].join(', ')} or single paths (${PATHS.map((p) => p.key).join(', ')})
  --rounds    rounds of REF and tree per path (default 2)
  --seconds   seconds per load run (default BENCH_SECONDS or 4)
  --messages  outbound deliveries backlog (default BENCH_MESSAGES or 5000)`;

const positiveInt = (name: string, text: string | undefined): number | string => {
  const n = Number(text);
  return text !== undefined && /^\d+$/.test(text) && n >= 1 ? n : `${name} wants a whole number of at least 1, got ${JSON.stringify(text)}`;
};

/** The options, or what is wrong with the arguments (printed with USAGE). `help` when asked for. */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): CompareOptions | { error: string } | 'help' {
  const positional: string[] = [];
  const values: Record<string, string | undefined> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (!['only', 'rounds', 'seconds', 'messages'].includes(name)) return { error: `unknown option --${name}` };
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) return { error: `--${name} wants a value` };
    values[name] = value;
  }
  if (positional.length !== 1) return { error: positional.length === 0 ? 'which git ref to compare with? (REF)' : `one REF only, got ${positional.join(' ')}` };
  let paths: PathKey[] = PATHS.map((p) => p.key);
  if ('only' in values) {
    const asked = (values.only ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = asked.filter((a) => !PATHS.some((p) => p.key === a || p.group === a));
    if (asked.length === 0 || unknown.length > 0) return { error: `--only: unknown path ${unknown.join(', ') || '(none given)'}` };
    paths = PATHS.filter((p) => asked.includes(p.key) || asked.includes(p.group)).map((p) => p.key);
  }
  const rounds = positiveInt('--rounds', values.rounds ?? '2');
  const seconds = positiveInt('--seconds', values.seconds ?? env.BENCH_SECONDS ?? '4');
  const messages = positiveInt('--messages', values.messages ?? env.BENCH_MESSAGES ?? '5000');
  for (const v of [rounds, seconds, messages]) if (typeof v === 'string') return { error: v };
  return { ref: positional[0]!, paths, rounds: rounds as number, seconds: seconds as number, messages: messages as number };
}

/**
 * The runs in order: every round goes over the paths, each path once on each side, REF first in
 * odd rounds and the tree first in even ones (A B B A), so that a load that rises or falls steadily
 * through the run weighs on both sides alike.
 */
export function schedule(paths: readonly PathKey[], rounds: number): Array<{ round: number; path: PathKey; side: Side }> {
  const out: Array<{ round: number; path: PathKey; side: Side }> = [];
  for (let round = 1; round <= rounds; round++)
    for (const path of paths) for (const side of round % 2 === 1 ? (['ref', 'tree'] as const) : (['tree', 'ref'] as const)) out.push({ round, path, side });
  return out;
}

/** One measurement: the figure over its ceiling from the same run, and the server's CPU per unit of work. */
export interface Sample {
  ratio: number | null;
  cpuMsPerUnit: number | null;
  /** Why there is no figure (the run failed), or a problem the run's own checks found. */
  error?: string;
  problems?: string[];
}

export function median(xs: readonly (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

export interface Flags {
  ratio: boolean;
  cpu: boolean;
}

/** Whether tree/REF counts as a regression, for the figure's ratio and for the CPU per unit. */
export function regression(ratioTreeOverRef: number | null, cpuTreeOverRef: number | null): Flags {
  return {
    ratio: ratioTreeOverRef !== null && ratioTreeOverRef < RATIO_REGRESSION,
    cpu: cpuTreeOverRef !== null && cpuTreeOverRef > CPU_REGRESSION,
  };
}

const two = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
const cpuMs = (x: number | null) => (x === null ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toPrecision(3));

/** A side's cell: the median, and the spread over the rounds when there are several. */
function cell(samples: readonly Sample[], pick: (s: Sample) => number | null, fmt: (x: number | null) => string): string {
  const m = median(samples.map(pick));
  if (m === null) return samples.some((s) => s.error) ? 'failed' : 'n/a';
  const v = samples.map(pick).filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length > 1 ? `${fmt(m)} (${fmt(Math.min(...v))}–${fmt(Math.max(...v))})` : fmt(m);
}

export interface PathResult {
  path: PathKey;
  ref: Sample[];
  tree: Sample[];
}

/** The markdown table, the legend under it, and the failures and check problems, line by line. */
export function formatTable(results: readonly PathResult[]): string[] {
  const lines = ['| path | REF ratio | tree ratio | tree/REF | REF CPU ms/unit | tree CPU ms/unit | CPU tree/REF |', '|---|---|---|---|---|---|---|'];
  const notes: string[] = [];
  let flagged = 0;
  for (const r of results) {
    const spec = PATHS.find((p) => p.key === r.path)!;
    const refRatio = median(r.ref.map((s) => s.ratio));
    const treeRatio = median(r.tree.map((s) => s.ratio));
    const refCpu = median(r.ref.map((s) => s.cpuMsPerUnit));
    const treeCpu = median(r.tree.map((s) => s.cpuMsPerUnit));
    const ratioRel = refRatio !== null && treeRatio !== null && refRatio > 0 ? treeRatio / refRatio : null;
    const cpuRel = refCpu !== null && treeCpu !== null && refCpu > 0 ? treeCpu / refCpu : null;
    const flag = regression(ratioRel, cpuRel);
    if (flag.ratio || flag.cpu) flagged += 1;
    const mark = (text: string, on: boolean) => (on ? `**${text}** ⚠` : text);
    lines.push(
      `| ${spec.key}: ${spec.label} | ${cell(r.ref, (s) => s.ratio, two)} | ${cell(r.tree, (s) => s.ratio, two)} | ${mark(two(ratioRel), flag.ratio)} | ` +
        `${cell(r.ref, (s) => s.cpuMsPerUnit, cpuMs)} | ${cell(r.tree, (s) => s.cpuMsPerUnit, cpuMs)} | ${mark(two(cpuRel), flag.cpu)} |`,
    );
    for (const [side, samples] of [
      ['REF', r.ref],
      ['tree', r.tree],
    ] as const)
      samples.forEach((s, i) => {
        if (s.error) notes.push(`- ${spec.key} on ${side}, run ${i + 1}: failed: ${s.error}`);
        for (const p of s.problems ?? []) notes.push(`- ${spec.key} on ${side}, run ${i + 1}: check failed: ${p}`);
      });
  }
  lines.push(
    '',
    'ratio: the figure over its ceiling measured in the same run (median over the rounds, their range in brackets); ' +
      "CPU ms/unit: the server process's CPU time (all threads) during the measured load, per unit of work.",
    ...results.map((r) => {
      const spec = PATHS.find((p) => p.key === r.path)!;
      return `- ${spec.key}: ceiling ${spec.ceiling}; unit ${spec.unit}`;
    }),
    `Regression (⚠): tree/REF of the ratio below ${RATIO_REGRESSION}, or of the CPU per unit above ${CPU_REGRESSION}. ` +
      'On a busy machine the CPU per unit is the steadier of the two; confirm a flag with more rounds (--rounds 4).',
    flagged === 0 ? 'Flagged: none.' : `Flagged: ${flagged} of ${results.length} paths.`,
  );
  if (notes.length > 0) lines.push('', 'Failures and checks:', ...notes);
  return lines;
}
