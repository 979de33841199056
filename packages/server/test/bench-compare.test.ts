// `npm run bench:compare`'s pure parts (bench/compare-report.ts): its arguments, the order of its
// runs, and the table a contributor pastes, with its regression flags. No benchmark runs here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTable, median, parseArgs, regression, schedule, type CompareOptions, type PathKey, type PathResult } from '../../../bench/compare-report.js';

const ALL: PathKey[] = ['ingest', 'checks-cached', 'checks-uncached', 'keys', 'webhooks', 'outbound'];
const defaults = (over: Partial<CompareOptions> = {}): CompareOptions => ({ ref: 'HEAD', paths: ALL, rounds: 2, seconds: 4, messages: 5000, ...over });

describe('bench:compare arguments', () => {
  const cases: Array<[string, string[], Record<string, string>, ReturnType<typeof parseArgs>]> = [
    ['REF alone: every path, 2 rounds, 4 s, 5,000 messages', ['HEAD'], {}, defaults()],
    [
      'a group selects its paths',
      ['main~3', '--only', 'ingest,checks'],
      {},
      defaults({ ref: 'main~3', paths: ['ingest', 'checks-cached', 'checks-uncached'] }),
    ],
    ['a single path, with =', ['HEAD', '--only=checks-uncached'], {}, defaults({ paths: ['checks-uncached'] })],
    ['paths keep the table order whatever the order asked', ['HEAD', '--only', 'outbound, keys'], {}, defaults({ paths: ['keys', 'outbound'] })],
    ['options before REF', ['--rounds', '3', 'abc123'], {}, defaults({ ref: 'abc123', rounds: 3 })],
    ['BENCH_SECONDS and BENCH_MESSAGES as defaults', ['HEAD'], { BENCH_SECONDS: '7', BENCH_MESSAGES: '800' }, defaults({ seconds: 7, messages: 800 })],
    ['options over the environment', ['HEAD', '--seconds', '2', '--messages', '100'], { BENCH_SECONDS: '7' }, defaults({ seconds: 2, messages: 100 })],
    ['--help', ['HEAD', '--help'], {}, 'help'],
    ['no REF', ['--rounds', '2'], {}, { error: 'which git ref to compare with? (REF)' }],
    ['two REFs', ['a', 'b'], {}, { error: 'one REF only, got a b' }],
    ['an unknown path', ['HEAD', '--only', 'checks,nope'], {}, { error: '--only: unknown path nope' }],
    ['an empty --only', ['HEAD', '--only', ''], {}, { error: '--only: unknown path (none given)' }],
    ['an unknown option', ['HEAD', '--fast'], {}, { error: 'unknown option --fast' }],
    ['zero rounds', ['HEAD', '--rounds', '0'], {}, { error: '--rounds wants a whole number of at least 1, got "0"' }],
    ['a fraction of a second', ['HEAD', '--seconds', '1.5'], {}, { error: '--seconds wants a whole number of at least 1, got "1.5"' }],
    ['an option without its value', ['HEAD', '--rounds'], {}, { error: '--rounds wants a value' }],
  ];
  for (const [rule, argv, env, expected] of cases) it(rule, () => assert.deepEqual(parseArgs(argv, env), expected));
});

describe('bench:compare run order', () => {
  it('alternates A B B A per path over the rounds', () => {
    const order = schedule(['ingest', 'keys'], 2).map((r) => `${r.round} ${r.path} ${r.side}`);
    assert.deepEqual(order, ['1 ingest ref', '1 ingest tree', '1 keys ref', '1 keys tree', '2 ingest tree', '2 ingest ref', '2 keys tree', '2 keys ref']);
  });
  it('runs each path once on each side per round', () => {
    const runs = schedule(['webhooks'], 3);
    assert.equal(runs.length, 6);
    assert.equal(runs.filter((r) => r.side === 'ref').length, 3);
  });
});

describe('bench:compare medians', () => {
  const cases: Array<[string, Array<number | null>, number | null]> = [
    ['none', [], null],
    ['only failures', [null, NaN], null],
    ['one', [0.5], 0.5],
    ['odd count: the middle one', [3, 1, 2], 2],
    ['even count: the mean of the middle two', [4, 1, 2, 3], 2.5],
    ['failures left out', [null, 0.4, 0.6], 0.5],
  ];
  for (const [rule, xs, expected] of cases) it(rule, () => assert.equal(median(xs), expected));
});

describe('bench:compare regression flags', () => {
  const cases: Array<[string, number | null, number | null, { ratio: boolean; cpu: boolean }]> = [
    ['the same', 1, 1, { ratio: false, cpu: false }],
    ['ratio down 6%', 0.94, 1, { ratio: true, cpu: false }],
    ['ratio down exactly 5%: not flagged', 0.95, 1, { ratio: false, cpu: false }],
    ['CPU up exactly 5%: not flagged', 1, 1.05, { ratio: false, cpu: false }],
    ['CPU up 6%', 1, 1.06, { ratio: false, cpu: true }],
    ['both', 0.8, 1.3, { ratio: true, cpu: true }],
    ['faster and cheaper', 1.4, 0.7, { ratio: false, cpu: false }],
    ['no figures', null, null, { ratio: false, cpu: false }],
  ];
  for (const [rule, ratio, cpu, expected] of cases) it(rule, () => assert.deepEqual(regression(ratio, cpu), expected));
});

describe('bench:compare table', () => {
  const results: PathResult[] = [
    {
      path: 'checks-cached',
      ref: [
        { ratio: 0.5, cpuMsPerUnit: 0.1 },
        { ratio: 0.4, cpuMsPerUnit: 0.12 },
      ],
      tree: [
        { ratio: 0.6, cpuMsPerUnit: 0.08 },
        { ratio: 0.5, cpuMsPerUnit: 0.08 },
      ],
    },
    { path: 'ingest', ref: [{ ratio: 0.3, cpuMsPerUnit: 120 }], tree: [{ ratio: 0.2, cpuMsPerUnit: 150, problems: ['3 answers neither 200 nor 503'] }] },
    { path: 'outbound', ref: [{ ratio: null, cpuMsPerUnit: null, error: 'bench server exited with 1' }], tree: [{ ratio: 0.25, cpuMsPerUnit: 0.9 }] },
  ];
  const lines = formatTable(results);

  it('one row per path: medians with their range, tree/REF, CPU per unit', () => {
    assert.equal(lines[0], '| path | REF ratio | tree ratio | tree/REF | REF CPU ms/unit | tree CPU ms/unit | CPU tree/REF |');
    assert.equal(
      lines[2],
      '| checks-cached: entitlement checks, answer cache on | 0.45 (0.40–0.50) | 0.55 (0.50–0.60) | 1.22 | 0.110 (0.100–0.120) | 0.0800 (0.0800–0.0800) | 0.73 |',
    );
  });
  it('flags a regression of the ratio and of the CPU per unit', () => {
    assert.equal(lines[3], '| ingest: ingestion (SQLite, 8 clients, occurredAt now) | 0.30 | 0.20 | **0.67** ⚠ | 120 | 150 | **1.25** ⚠ |');
    assert.ok(lines.includes('Flagged: 1 of 3 paths.'));
  });
  it('a side that failed shows failed, and the reason below', () => {
    assert.equal(lines[4], '| outbound: outbound deliveries (SQLite) | failed | 0.25 | n/a | failed | 0.900 | n/a |');
    assert.ok(lines.includes('- outbound on REF, run 1: failed: bench server exited with 1'));
    assert.ok(lines.includes('- ingest on tree, run 1: check failed: 3 answers neither 200 nor 503'));
  });
  it('says what counts as a regression and names each ceiling and unit', () => {
    assert.ok(lines.some((l) => l.startsWith('Regression (⚠): tree/REF of the ratio below 0.95, or of the CPU per unit above 1.05.')));
    assert.ok(lines.includes('- ingest: ceiling raw insert, same database; unit 1,000 events'));
  });
  it('no flag, no failure: says so and lists no failures', () => {
    const quiet = formatTable([{ path: 'keys', ref: [{ ratio: 0.5, cpuMsPerUnit: 0.2 }], tree: [{ ratio: 0.49, cpuMsPerUnit: 0.2 }] }]);
    assert.ok(quiet.includes('Flagged: none.'));
    assert.ok(!quiet.includes('Failures and checks:'));
  });
});
