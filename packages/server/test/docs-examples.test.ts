/**
 * Every shell command the docs show is run here, as a reader runs it: the ```sh blocks of
 * docs/*.md (pages in the order of docs/README.md's index, blocks in page order), against one real
 * `tollgate serve` on 127.0.0.1, from the repository root. Each page runs in one `bash` process:
 * first docs/README.md's "Running the examples" block (TOLLGATE, KEY, WS, T, `json` and a fresh demo
 * workspace of the page's own), then the page's blocks; pages run side by side (PAGE_CONCURRENCY at
 * a time, the longest first). A page passes when its script exits 0 and
 * prints what the page says it prints (the stable parts: codes, counts, field names; never ids or
 * times). `git status` is the same afterwards: no command writes into the repository.
 *
 * What cannot run here is skipped with the reason (SKIPPED below), never silently; commands that
 * run until Ctrl-C run in the background of their page until they printed what they show
 * (BACKGROUND).
 *
 * scripts/test.mjs runs this file once, on the SQLite pass (the marker below): the pages' commands
 * talk to the server over HTTP and the CLI, whose storage the server's own tests (routes, CLI,
 * processes) cover on both backends, so a second server on PostgreSQL checked the docs again at
 * twice the cost (100 s a run) without checking the storage more. What needs PostgreSQL itself,
 * docs/production.md's two nodes on PostgreSQL and Redis, makes its own database and runs whenever
 * TEST_DATABASE_URL and REDIS_URL are set, whatever the pass. Run by hand with
 * TOLLGATE_TEST_BACKEND=postgres, the server runs on PostgreSQL (and Redis when REDIS_URL is set),
 * and `npx tollgate demo` writes there through DATABASE_URL.
 */
// scripts/test.mjs: one pass: the docs' commands, over HTTP and the CLI; their storage is the server tests' subject on both backends, and docs/production.md's PostgreSQL + Redis nodes run on this pass when TEST_DATABASE_URL and REDIS_URL are set
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Scratch, type ServeProcess } from './helpers/processes.js';
import { gitStatus, newEntries, type GitStatus } from './helpers/git-status.js';
import { runInOwnGroup, type GroupRun } from './helpers/process-group.js';
import { backend } from './helpers/test-app.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** Only bounds on a hang, never measures: a page takes 10 s to a minute on a busy 2-core machine. */
const PAGE_BOUND_MS = 6 * 60_000;
const WAIT_BOUND_S = 180;

// --- Which fenced blocks are shell commands (pure) -------------------------------------------------

export interface FencedBlock {
  /** The 1-based line of the opening fence. */
  line: number;
  /** The first word of the info string ('' without one). */
  lang: string;
  code: string;
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);

/**
 * The fenced code blocks of a Markdown text, as CommonMark reads them: ``` or ~~~ fences of three
 * or more, indented up to three spaces; a block ends at a fence of the same character at least as
 * long, with nothing after it, so a longer fence can show a shorter one inside. A backtick fence's
 * info string holds no backtick (```a``` is inline code). An unclosed fence is an error here: on a
 * page it swallows the rest of the page.
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    if (fence[0] === '`' && info.includes('`')) continue;
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && !closing.test(lines[end]!)) {
      // Content loses at most the opening fence's indentation.
      body.push(lines[end]!.replace(new RegExp(`^ {0,${indent.length}}`), ''));
      end++;
    }
    if (end === lines.length) throw new Error(`the fence at line ${i + 1} is never closed`);
    blocks.push({ line: i + 1, lang: info.trim().split(/\s+/)[0] ?? '', code: body.length ? `${body.join('\n')}\n` : '' });
    i = end;
  }
  return blocks;
}

/** The blocks of shell commands (```sh, ```bash, ```shell), in page order. */
export function shellBlocks(markdown: string): FencedBlock[] {
  return fencedBlocks(markdown).filter((b) => SHELL_LANGS.has(b.lang));
}

describe('shellBlocks: the ```sh blocks of a page', () => {
  const cases: Array<{ name: string; md: string; want: Array<Pick<FencedBlock, 'line' | 'code'>> }> = [
    { name: 'one block, its line and code', md: 'Text\n\n```sh\necho hi\n```\n', want: [{ line: 3, code: 'echo hi\n' }] },
    {
      name: 'bash and shell count; an info string after the language is ignored',
      md: '```bash\na\n```\n```shell title="x"\nb\n```\n',
      want: [
        { line: 1, code: 'a\n' },
        { line: 4, code: 'b\n' },
      ],
    },
    {
      name: 'text, json, js, no language and shell-session are not commands',
      md: '```text\na\n```\n```json\n{}\n```\n```js\nx\n```\n```\ny\n```\n```console\n$ z\n```\n',
      want: [],
    },
    { name: 'tilde fences', md: '~~~sh\nls\n~~~\n', want: [{ line: 1, code: 'ls\n' }] },
    { name: 'a ``` line inside a ```` block is content, not a block', md: '````md\n```sh\nrm -rf /\n```\n````\n', want: [] },
    {
      name: 'a ``` inside a ~~~ block does not close it',
      md: '~~~sh\necho "```"\n```\necho after\n~~~\n',
      want: [{ line: 1, code: 'echo "```"\n```\necho after\n' }],
    },
    {
      name: 'backticks inside commands, and a fence with text after it, are content',
      md: '```sh\necho `date` ``x``\n```sh not a closer\n```\n',
      want: [{ line: 1, code: 'echo `date` ``x``\n```sh not a closer\n' }],
    },
    { name: 'a longer closing fence closes', md: '```sh\nls\n`````\nafter\n', want: [{ line: 1, code: 'ls\n' }] },
    { name: 'inline code of three backticks is no fence', md: '```sh```\n```sh\nls\n```\n', want: [{ line: 2, code: 'ls\n' }] },
    {
      name: 'indented fences (a list item) lose their indentation',
      md: '- step\n\n  ```sh\n  npm start\n    --x\n  ```\n',
      want: [{ line: 3, code: 'npm start\n  --x\n' }],
    },
    { name: 'four spaces is indented code, not a fence', md: '    ```sh\n    ls\n    ```\n', want: [] },
    {
      name: 'an empty block; CRLF line ends',
      md: '```sh\r\n```\r\n```sh\r\npwd\r\n```\r\n',
      want: [
        { line: 1, code: '' },
        { line: 3, code: 'pwd\n' },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(
        shellBlocks(c.md).map(({ line, code }) => ({ line, code })),
        c.want,
      );
    });
  }

  it('an unclosed fence is an error, naming its line', () => {
    assert.throws(() => shellBlocks('Text\n```sh\nls\n'), /line 2 is never closed/);
  });
});

// --- The docs' blocks, and what is known about them ------------------------------------------------

interface DocBlock extends FencedBlock {
  page: string;
  /** 1-based among the page's shell blocks. */
  n: number;
}

const read = (page: string) => readFileSync(path.join(root, page), 'utf8');

/** The pages in the order of docs/README.md's index, then any page it does not list, by name. */
function docPages(): string[] {
  const all = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f) => `docs/${f}`);
  const indexed = [...read('docs/README.md').matchAll(/\]\(([\w-]+\.md)\)/g)].map((m) => `docs/${m[1]}`);
  const order = (p: string) => (indexed.includes(p) ? indexed.indexOf(p) : indexed.length);
  return all.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
}

/** docs/README.md's "Running the examples" block: what every page's examples start from. */
function setupBlock(): string {
  const text = read('docs/README.md');
  const from = text.split('\n').indexOf('## Running the examples') + 1;
  assert.ok(from > 0, 'docs/README.md has a "## Running the examples" section');
  const next = text.split('\n').findIndex((l, i) => i >= from && l.startsWith('## '));
  const inSection = shellBlocks(text).filter((b) => b.line > from && (next < 0 || b.line <= next));
  assert.equal(inSection.length, 1, '"Running the examples" has one ```sh block');
  return inSection[0]!.code;
}

const pages = docPages();
const blocks: DocBlock[] = pages.flatMap((page) => shellBlocks(read(page)).map((b, i) => ({ ...b, page, n: i + 1 })));
const label = (b: DocBlock) => `${b.page} block ${b.n} (line ${b.line})`;

/** PostgreSQL and Redis answer (CI sets both when they do): docs/production.md's two nodes can run, on either pass. */
const pgRedis = Boolean(process.env.TEST_DATABASE_URL) && Boolean(process.env.REDIS_URL);
/** Ports a block of the page listens on: taken ones make it skip, saying so. */
async function takenPorts(ports: number[]): Promise<number[]> {
  const taken: number[] = [];
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (!free) taken.push(port);
  }
  return taken;
}
const twoNodePortsTaken = pgRedis ? await takenPorts([8081, 8082]) : [];

/**
 * The blocks that do not run here, each found by a piece of its text (exactly one block of its
 * page holds it, so the table cannot go stale) with the reason printed as the test's skip.
 */
const SKIPPED: Array<{ page: string; contains: string; reason: string | null }> = [
  {
    page: 'docs/cli.md',
    contains: 'npx tollgate backup',
    reason:
      backend === 'postgres'
        ? '`tollgate backup` and `restore` copy the embedded SQLite database; this pass runs the server on PostgreSQL (the SQLite pass runs them)'
        : null,
  },
  {
    page: 'docs/cli.md',
    contains: 'pg_dump -Fc',
    reason: "a template for PostgreSQL's own tools: pg_restore names a server (user@host) for you to fill in, and createdb makes a database on it",
  },
  {
    page: 'docs/production.md',
    contains: 'create database tollgate_prod_try',
    reason: !process.env.TEST_DATABASE_URL
      ? 'needs PostgreSQL and Redis on 127.0.0.1: runs when TEST_DATABASE_URL and REDIS_URL are set (CI sets them when both answer)'
      : !pgRedis
        ? 'needs Redis too: REDIS_URL is not set'
        : twoNodePortsTaken.length > 0
          ? `the page's nodes listen on 127.0.0.1:8081 and 8082, and ${twoNodePortsTaken.join(' and ')} is taken here`
          : null,
  },
  {
    page: 'docs/production.md',
    contains: 'docker compose',
    reason: 'builds an image and starts containers: needs a Docker daemon and the base images (test/container-files.test.ts lints the files instead)',
  },
  {
    page: 'docs/production.md',
    contains: 'npm install @opentelemetry/sdk-trace-node',
    reason: 'installs packages from the registry into the repository (package.json, node_modules), then `npm start` runs until Ctrl-C',
  },
  {
    page: 'docs/testing.md',
    contains: 'npm test',
    reason: 'runs the test suite (or part of it) inside itself, and the type check of every package: CI runs both as steps of their own',
  },
];

/** After the page ran, whatever happened: what the page says stops and removes what a block started. */
const CLEANUP: Array<{ page: string; contains: string; script: string }> = [
  {
    page: 'docs/production.md',
    contains: 'create database tollgate_prod_try',
    // The page's own words: "kill %1 %2 (or their PIDs) stops them … drop the database".
    script: "kill %1 %2 2>/dev/null || true; wait 2>/dev/null || true; psql -h 127.0.0.1 -U postgres -qc 'drop database if exists tollgate_prod_try' || true",
  },
];

/**
 * Commands that run until Ctrl-C ("in a second terminal"). Each runs in the background of its
 * page, in its own process group, from its place on the page: the page goes on once it printed
 * `ready`; `trigger` (test code, not the page's) then makes something for it to show, and the page
 * ends once it printed every `expect`. Then its process group is ended.
 */
const BACKGROUND: Array<{ page: string; command: string; ready: string; trigger: string; expect: string[]; shown?: string }> = [
  {
    page: 'docs/audit.md',
    command: 'curl -sN "$TOLLGATE/api/v1/events/stream',
    ready: 'retry: 3000',
    // A key rotation, as the page's sample event shows (and its search then finds).
    trigger:
      'curl -sf -X POST "$TOLLGATE/api/v1/api-keys/$(echo "$DEMO" | json .environments.test.productKeyId)/rotate" -H "Authorization: Bearer $KEY" > /dev/null',
    expect: ['event: audit_event', '"eventType":"api_key.rotated"'],
    shown: 'retry: 3000\n\nid: 1874\nevent: audit_event\ndata: {"object":"audit_event","eventId":"evt_…","eventType":"api_key.rotated"',
  },
  {
    page: 'docs/cli.md',
    command: 'npx tollgate events tail',
    ready: 'Listening for audit events of ',
    trigger: `curl -sf -X POST "$TOLLGATE/api/v1/customers" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"externalId": "tail-check", "name": "Tail check"}' > /dev/null`,
    expect: ['customer.created'],
  },
];

/**
 * What the pages say their commands print. `shown` is the page's own text (in a comment, or a
 * block of expected output), checked to be on the page; `output` is what its run must print.
 */
const SHOWN: Array<{ page: string; shown?: string; output: string | RegExp }> = [
  { page: 'docs/ingestion-and-checks.md', shown: 'stored once even if retried', output: '"accepted":2,"duplicates":0' },
  {
    page: 'docs/ingestion-and-checks.md',
    shown: 'naming the event by its index',
    output: /"code":"UNKNOWN_METRIC".*"field":"events\[0\]\.metricName","index":0/,
  },
  { page: 'docs/ingestion-and-checks.md', shown: 'quotaRemaining is its free API calls left', output: /"allowed":true,"quotaRemaining":\d+/ },
  {
    page: 'docs/ingestion-and-checks.md',
    shown: "Give acme's subscription a hard limit",
    output: '"limits":[{"metricName":"api_calls","limit":1000,"enforcement":"BLOCK","used":1,"source":"SUBSCRIPTION"}]',
  },
  { page: 'docs/ingestion-and-checks.md', shown: 'exact sums', output: '"metricName":"tokens","periodStart"' },
  {
    page: 'docs/subscriptions-and-billing.md',
    shown: 'What applies to it, and where each limit comes from',
    output:
      /"data":\[\{"object":"usage_limit","metricName":"tokens","limit":50000,"enforcement":"ALERT","source":"SUBSCRIPTION","ratePlanId":null\},\{"object":"usage_limit","metricName":"api_calls","limit":200000,"enforcement":"BLOCK","source":"RATE_PLAN","ratePlanId":"plan_\w+"\}\]/,
  },
  { page: 'docs/ingestion-and-checks.md', output: '"sum":"1200","count":1' },
  {
    page: 'docs/ingestion-and-checks.md',
    shown:
      '`{"object": "usage_upload", "environment", "lines", "accepted", "duplicates", "rejected", "errors": [{"line", "code", "message", "field"}], "errorsTruncated"}`',
    output: '{"object":"usage_upload","environment":"test","lines":2,"accepted":2,"duplicates":0,"rejected":0,"errors":[],"errorsTruncated":false}',
  },
  { page: 'docs/credits.md', shown: '# body.currency', output: /^50\.00\nactive\n50\.00\ngrant\n50\.00\nbody\.currency$/m },
  { page: 'docs/credits.md', shown: '# 409', output: /^voided\n0\.00\n409$/m },
  {
    page: 'docs/credits.md',
    shown: '# CREDITS_EXHAUSTED',
    output: /^5\.00\nready\n2\.00\nfalse\nCREDITS_EXHAUSTED\nusage 5\.50\ncredits -5\.00\ntotal 0\.50\npending\nactive\n10\.00\ntrue$/m,
  },
  { page: 'docs/payments.md', shown: '# …0001', output: /^…0001\n\/v1\/payments\/stripe\/webhooks\/pp_[0-9a-z]+$/m },
  { page: 'docs/payments.md', shown: '# body.secretKey', output: /^body\.secretKey\ntrue$/m },
  { page: 'docs/payments.md', shown: '# mark_uncollectible', output: /^mark_uncollectible$/m },
  { page: 'docs/payments.md', shown: '# 29.00', output: /^49\.00\n29\.00\npaid$/m },
  { page: 'docs/keys-and-credentials.md', shown: 'ask, as your gateway would, whether it is good', output: /"valid":true,"code":"VALID"/ },
  { page: 'docs/keys-and-credentials.md', shown: 'the old one keeps working for 300 seconds', output: 'old key right after rotation: 200' },
  { page: 'docs/keys-and-credentials.md', shown: 'it stops at once, with no grace period', output: /^REVOKED\n.*"code":"UNAUTHENTICATED".*\n401$/m },
  { page: 'docs/catalog-and-pricing-page.md', shown: 'a storefront showing the offering', output: /"offerings":\[\{"id":"off_\w+","name":"Hobby"/ },
  { page: 'docs/catalog-and-pricing-page.md', shown: 'then again with its etag: 304, nothing re-sent', output: 'repeat with If-None-Match: 304' },
  { page: 'docs/webhooks.md', shown: 'post\n# it; tenant_id', output: /"status":"accepted","event_id":"evt_quickstart_1".*"quantity":2500,"tenant_id":"acme"/ },
  { page: 'docs/webhooks.md', shown: 'The same delivery again is a duplicate', output: '"status":"duplicate","event_id":"evt_quickstart_1"' },
  { page: 'docs/webhooks.md', shown: 'a tampered body gets 401', output: '"code":"WEBHOOK_SIGNATURE_INVALID"' },
  { page: 'docs/webhooks.md', shown: 'shows in the ingestion log', output: /^signature_mismatch$/m },
  { page: 'docs/webhooks.md', output: /"object":"webhook_source".*"metricName":"payment_volume"/ },
  {
    page: 'docs/webhooks.md',
    shown: '# {"id": "we_…", "object": "webhook_endpoint", "status": "enabled"',
    output: /"object":"webhook_endpoint".*"status":"enabled"/,
  },
  { page: 'docs/webhooks.md', shown: '"secretHint": "whsec_…", "secret": "whsec_…"', output: /"secretHint":"whsec_….*"secret":"whsec_/ },
  {
    page: 'docs/audit.md',
    shown: 'Search the log: the latest key rotation',
    output: /"object":"list","data":\[\{"object":"audit_event".*"eventType":"api_key\.rotated"/,
  },
  {
    page: 'docs/sdk-and-forwarder.md',
    shown: '// { batches: 1, accepted: 50, duplicates: 0, failed: [] }',
    output: '{ batches: 1, accepted: 50, duplicates: 0, failed: [] }',
  },
  {
    page: 'docs/sdk-and-forwarder.md',
    shown: 'onAlert prints { metricName: "tokens", limit: 20, used: 25, ... }',
    output: /^alert \{[^}]*metricName: 'tokens',\s+limit: 20,\s+used: 25\s*\}/m,
  },
  { page: 'docs/sdk-and-forwarder.md', shown: '// refused: api_calls 50 of 50', output: /^refused: api_calls 50 of 50$/m },
  { page: 'docs/sdk-and-forwarder.md', shown: '// acme', output: /^acme$/m },
  {
    page: 'docs/sdk-and-forwarder.md',
    shown: '# 2 log lines: 1 events sent in 1 batches (1 counted, 0 duplicates), 1 skipped (no-consumer 1), 0 refused by the server',
    output: '2 log lines: 1 events sent in 1 batches (1 counted, 0 duplicates), 1 skipped (no-consumer 1), 0 refused by the server',
  },
  {
    page: 'docs/sdk-and-forwarder.md',
    shown: '# 2 log lines: 1 events sent in 1 batches (0 counted, 1 duplicates), 1 skipped (no-consumer 1), 0 refused by the server',
    output: '2 log lines: 1 events sent in 1 batches (0 counted, 1 duplicates), 1 skipped (no-consumer 1), 0 refused by the server',
  },
  { page: 'docs/sdk-and-forwarder.md', shown: 'The request, counted once, per path', output: '"sum":"1","count":1,"groupValue":"/prod/pets/42"' },
  {
    page: 'docs/cli.md',
    shown: '# 2 events in 1 batches: 2 accepted, 0 duplicates, 0 rejected.',
    output: /^2 events in 1 batches: 2 accepted, 0 duplicates, 0 rejected\.$/m,
  },
  {
    page: 'docs/cli.md',
    shown: '# 2 events in 1 batches: 0 accepted, 2 duplicates, 0 rejected.',
    output: /^2 events in 1 batches: 0 accepted, 2 duplicates, 0 rejected\.$/m,
  },
  { page: 'docs/cli.md', shown: 'Lists invoices, newest first, as a table', output: /^NUMBER +ID +CUSTOMER +STATUS +TOTAL +PERIOD$/m },
  ...(backend === 'sqlite'
    ? [
        {
          page: 'docs/cli.md',
          shown: '# Backed up …/data/tollgate.db to …/backups/tollgate.db: 12.4 MiB (13012992 bytes), 31 migrations, integrity ok.',
          output: /^Backed up \/\S+\/data\/tollgate\.db to \/\S+\/backups\/tollgate\.db: [\d.]+ [KMG]?i?B \(\d+ bytes\), \d+ migrations, integrity ok\.$/m,
        },
        {
          page: 'docs/cli.md',
          shown: '# Restored …/backups/tollgate.db to …/data-restored/tollgate.db: 12.4 MiB, 31 migrations.',
          output: /^Restored \/\S+\/backups\/tollgate\.db to \/\S+\/data-restored\/tollgate\.db: [\d.]+ [KMG]?i?B, \d+ migrations\.$/m,
        },
      ]
    : []),
  {
    page: 'docs/console-and-hub.md',
    shown: 'Sign in as curl would',
    output: /"object":"operator_session","operator":\{[^}]*"email":"admin@example\.com"[^}]*"role":"admin"/,
  },
  {
    page: 'docs/console-and-hub.md',
    shown: 'then read with the cookie',
    output: /"object":"list","data":\[\{[^}]*"object":"customer","environment":"live","externalId":"acme"/,
  },
  { page: 'docs/production.md', shown: 'Every node serves its own series', output: new RegExp(`^tollgate_build_info\\{[^}]*database="${backend}"\\} 1$`, 'm') },
  ...(pgRedis
    ? [
        {
          page: 'docs/production.md',
          shown: '`tollgate_build_info{node="node1"}` on one',
          output: /^tollgate_build_info\{[^}]*node="node1",database="postgres"\} 1$/m,
        },
        { page: 'docs/production.md', shown: '`node="node2"` on the other', output: /^tollgate_build_info\{[^}]*node="node2",database="postgres"\} 1$/m },
        { page: 'docs/production.md', shown: 'both with `tollgate_redis_up 1`', output: /^tollgate_redis_up 1\n[^]*^tollgate_redis_up 1$/m },
      ]
    : []),
];

/** Pages that rebuild packages/sdk/dist (`npm run build -w …`): the SDK's and forwarder's pack tests rebuild it under this lock too. */
const SDK_DIST_LOCK = path.join(root, 'packages/sdk/.pack.lock');
const rebuildsSdkDist = (code: string) => /npm run build -w @tollgate\/(sdk|forwarder)/.test(code);

function findOne<T extends { page: string }>(rows: T[], b: DocBlock, text: (row: T) => string): T | undefined {
  return rows.find((r) => r.page === b.page && b.code.includes(text(r)));
}
const skipReason = (b: DocBlock) => findOne(SKIPPED, b, (r) => r.contains)?.reason ?? null;

// --- One page, one bash ----------------------------------------------------------------------------

const shq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The script's start: strict mode, a trap naming what failed, and the bounded wait of BACKGROUND. */
const PRELUDE = `set -euo pipefail
trap 'echo "docs-examples: exit $? at script line $LINENO: $BASH_COMMAND" >&2' ERR
__bg_pids=()
# __wait_for FILE TEXT: until FILE holds TEXT; only a bound on a hang, never a measure.
__wait_for() {
  local n=$((${WAIT_BOUND_S} * 10))
  until grep -Fq -- "$2" "$1" 2>/dev/null; do
    n=$((n - 1))
    if [ "$n" -le 0 ]; then echo "docs-examples: gave up waiting for '$2' in $1" >&2; return 1; fi
    sleep 0.1
  done
}
`;

/** A block's code, with its BACKGROUND command (and the lines continuing it) started in the background. */
function withBackground(b: DocBlock, outFor: (i: number) => string): string {
  const lines = b.code.replace(/\n$/, '').split('\n');
  for (const [i, bg] of BACKGROUND.entries()) {
    if (bg.page !== b.page) continue;
    const at = lines.findIndex((l) => l.trimStart().startsWith(bg.command));
    if (at < 0) continue;
    let end = at;
    while (lines[end]!.endsWith('\\')) end++;
    const out = shq(outFor(i));
    // set -m for this one command: its own process group, ended whole (npx runs node as a child).
    lines.splice(
      at,
      end - at + 1,
      `set -m; { ${lines.slice(at, end + 1).join('\n')}\n} > ${out} 2>&1 & __bg_pids+=($!); set +m`,
      `__wait_for ${out} ${shq(bg.ready)}`,
      bg.trigger,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface PageScript {
  script: string;
  backgrounds: Array<{ out: string; expect: string[] }>;
  lock: boolean;
}

/**
 * What docs/README.md's test checks of "Running the examples", run right after that block in one
 * page's bash (the first page's) and written to FILE, not to the page's output: the variables it
 * set, that `json` works, and that the demo key works on the running server.
 */
const setupCheck = (file: string) => `{
printf 'TOLLGATE=%s\\nKEY=%s\\nWS=%s\\nDEMO_PRODUCT=%s\\nDEMO_SUB=%s\\nT=%s\\n' "$TOLLGATE" "$KEY" "$WS" "$DEMO_PRODUCT" "$DEMO_SUB" "$T"
echo "json=$(echo '{"a": {"b": [7]}}' | json .a.b.0)"
echo "customers=$(curl -s -o /dev/null -w '%{http_code}' "$TOLLGATE/api/v1/customers?externalId=acme" -H "Authorization: Bearer $KEY")"
} > ${shq(file)}
`;

function pageScript(setup: string, page: string, run: DocBlock[], dir: string, checkSetupInto?: string): PageScript {
  const backgrounds: PageScript['backgrounds'] = [];
  const outFor = (i: number) => {
    const out = path.join(dir, `background-${i}.out`);
    backgrounds.push({ out, expect: BACKGROUND[i]!.expect });
    return out;
  };
  const cleanups = run.flatMap((b) => findOne(CLEANUP, b, (r) => r.contains)?.script ?? []);
  const parts = [
    PRELUDE,
    `__finish() {\n  for p in \${__bg_pids[@]+"\${__bg_pids[@]}"}; do kill -TERM -- "-$p" 2>/dev/null || true; done\n${cleanups.map((c) => `  ${c}\n`).join('')}}`,
    'trap __finish EXIT',
    "trap 'exit 143' TERM",
    `echo ${shq('### docs/README.md: Running the examples')} >&2`,
    setup,
  ];
  if (checkSetupInto) parts.push(setupCheck(checkSetupInto));
  for (const b of run) parts.push(`echo ${shq(`### ${label(b)}`)} >&2`, withBackground(b, outFor));
  for (const bg of backgrounds) for (const text of bg.expect) parts.push(`__wait_for ${shq(bg.out)} ${shq(text)}`);
  return { script: parts.join('\n'), backgrounds, lock: run.some((b) => rebuildsSdkDist(b.code)) };
}

type Run = GroupRun;

/** `bash SCRIPT` from the repository root in a process group of its own (helpers/process-group.ts). */
function runBash(scriptFile: string, env: NodeJS.ProcessEnv, lock: boolean): Promise<Run> {
  const [cmd, args]: [string, string[]] = lock ? ['flock', [SDK_DIST_LOCK, 'bash', scriptFile]] : ['bash', [scriptFile]];
  return runInOwnGroup(cmd, args, env, PAGE_BOUND_MS);
}

const tail = (s: string, n = 6000) => (s.length > n ? `…${s.slice(-n)}` : s);
const explain = (r: Run) =>
  `exit ${r.code} (signal ${r.signal}${r.timedOut ? `, ended after ${PAGE_BOUND_MS} ms` : ''})\n--- stdout:\n${tail(r.stdout)}\n--- stderr:\n${tail(r.stderr)}`;

describe('the tables of this file', () => {
  it('the tables name blocks that exist: each SKIPPED, CLEANUP and BACKGROUND row matches exactly one block', () => {
    for (const row of [
      ...SKIPPED.map((r) => ({ page: r.page, text: r.contains })),
      ...CLEANUP.map((r) => ({ page: r.page, text: r.contains })),
      ...BACKGROUND.map((r) => ({ page: r.page, text: r.command })),
    ]) {
      const n = blocks.filter((b) => b.page === row.page && b.code.includes(row.text)).length;
      assert.equal(n, 1, `${row.page}: ${n} blocks hold ${row.text}`);
    }
    for (const s of SHOWN) assert.ok(pages.includes(s.page), `${s.page} is a page`);
  });
});

// --- The run ---------------------------------------------------------------------------------------

/**
 * Pages run side by side, this many at a time: each has a bash, a demo workspace, a HOME and a
 * TMPDIR of its own, so no page sees another's state (what they share is the server, and its
 * ingestion admits 4 requests at once before anything waits). Most of a page is processes starting
 * (npx, node, tsc), so on two cores the file's time is its longest page's, not the sum of its pages'.
 */
const PAGE_CONCURRENCY = 3;

interface PageJob {
  page: string;
  name: string;
  run: DocBlock[];
  own: DocBlock[];
}

interface PageResult {
  r: Run;
  ps: PageScript;
  pageDir: string;
}

describe(`the docs' shell examples, on a real tollgate serve (${backend})`, () => {
  const scratch = new Scratch('docs_examples');
  let dir = '';
  let server: ServeProcess;
  let statusBefore: GitStatus;
  const serverEnv: Record<string, string> = {};
  const setup = setupBlock();

  const jobs: PageJob[] = pages.flatMap((page) => {
    const own = blocks.filter((b) => b.page === page);
    return own.length === 0 ? [] : [{ page, name: path.basename(page, '.md'), own, run: own.filter((b) => !skipReason(b)) }];
  });
  const toRun = jobs.filter((j) => j.run.length > 0);
  /** docs/README.md's test checks "Running the examples" as the first page ran it (setupCheck). */
  const setupChecked = toRun[0];
  const SETUP_CHECK = 'setup-check.out';
  /** Each page's run, started in `before` (PAGE_CONCURRENCY at a time); its test awaits it. */
  const results = new Map<string, Promise<PageResult>>();

  before(
    async () => {
      statusBefore = gitStatus();
      dir = scratch.tempDir();
      serverEnv.DATA_DIR = path.join(dir, 'data');
      if (backend === 'postgres') {
        serverEnv.DATABASE_URL = (await scratch.database()).url;
        if (process.env.REDIS_URL) serverEnv.REDIS_URL = process.env.REDIS_URL;
      }
      // The banner comes once the address answers (test/cli.test.ts checks that).
      server = await scratch.serve(serverEnv);
      const health = await fetch(`${server.address}/health`);
      assert.equal(health.status, 200, `/health after the banner\n${server.stderr}`);
      startPages();
    },
    { timeout: 5 * 60_000 },
  );
  after(async () => {
    // A page still running (a test that failed before its page ended) ends within its bound.
    await Promise.allSettled(results.values());
    await scratch.cleanup();
  });

  /** What a page's bash gets: the server's address and database, and a HOME and TMPDIR of its own. */
  function pageEnv(name: string): { env: NodeJS.ProcessEnv; pageDir: string } {
    const pageDir = path.join(dir, 'pages', name);
    for (const d of ['home', 'tmp']) mkdirSync(path.join(pageDir, d), { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      LANG: process.env.LANG ?? 'C.UTF-8',
      HOME: path.join(pageDir, 'home'),
      TMPDIR: path.join(pageDir, 'tmp'),
      TOLLGATE: server.address,
      // `npx tollgate demo --json` opens the server's database: DATABASE_URL, else DATA_DIR.
      ...serverEnv,
      // A fresh HOME would have every npx ask the registry for a newer npm.
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    };
    delete env.REDIS_URL;
    return { env, pageDir };
  }

  async function runPage(job: PageJob): Promise<PageResult> {
    const { env, pageDir } = pageEnv(job.name);
    const ps = pageScript(setup, job.page, job.run, pageDir, job === setupChecked ? path.join(pageDir, SETUP_CHECK) : undefined);
    const file = path.join(pageDir, 'script.sh');
    writeFileSync(file, ps.script);
    return { r: await runBash(file, env, ps.lock), ps, pageDir };
  }

  /**
   * Starts every page's run, PAGE_CONCURRENCY at a time: those that rebuild the SDK first (tsc
   * three times: the longest page by far, so it does not start last), then in the index's order.
   */
  function startPages(): void {
    const rebuilds = (job: PageJob) => Number(job.run.some((b) => rebuildsSdkDist(b.code)));
    const order = [...toRun].sort((a, b) => rebuilds(b) - rebuilds(a));
    const start = new Map<string, (run: Promise<PageResult>) => void>();
    for (const job of toRun) {
      const result = new Promise<PageResult>((resolve) => start.set(job.page, resolve));
      // Awaited by the page's test; a failure is reported there, not as an unhandled rejection.
      result.catch(() => {});
      results.set(job.page, result);
    }
    let next = 0;
    const lane = async () => {
      while (next < order.length) {
        const job = order[next++]!;
        const run = runPage(job);
        start.get(job.page)!(run);
        await run.catch(() => {});
      }
    };
    for (let i = 0; i < Math.min(PAGE_CONCURRENCY, order.length); i++) void lane();
  }

  const resultOf = (page: string): Promise<PageResult> => {
    const result = results.get(page);
    assert.ok(result, `${page} was started (the before hook failed otherwise)`);
    return result;
  };

  it('docs/README.md, Running the examples: a demo workspace in the running server, its key, ids and json', { timeout: PAGE_BOUND_MS + 30_000 }, async () => {
    assert.ok(setupChecked, 'a page runs, after "Running the examples"');
    const { r, pageDir } = await resultOf(setupChecked.page);
    let out: string;
    try {
      out = readFileSync(path.join(pageDir, SETUP_CHECK), 'utf8');
    } catch {
      assert.fail(`"Running the examples" did not finish in ${setupChecked.page}'s bash\n${explain(r)}`);
    }
    const v: Record<string, string> = {};
    for (const m of out.matchAll(/^(\w+)=(.*)$/gm)) v[m[1]!] = m[2]!;
    assert.equal(v.TOLLGATE, server.address, 'TOLLGATE set beforehand is kept');
    assert.match(v.KEY ?? '', /^sk_test_[0-9a-f]+$/);
    assert.match(v.WS ?? '', /^ws_\w+$/);
    assert.match(v.DEMO_PRODUCT ?? '', /^prod_\w+$/);
    assert.match(v.DEMO_SUB ?? '', /^sub_\w+$/);
    assert.ok(v.T?.startsWith(path.join(pageDir, 'tmp') + path.sep), `T is a new directory in TMPDIR, not in the repository: ${v.T}`);
    assert.equal(v.json, '7');
    assert.equal(v.customers, '200', 'the demo key works on the running server: `tollgate demo` wrote into its database');
  });

  for (const { page, own, run } of jobs) {
    for (const b of own) {
      const reason = skipReason(b);
      if (reason) it(`${label(b)}: skipped`, { skip: reason }, () => {});
    }
    if (run.length === 0) continue;
    const shown = SHOWN.filter((s) => s.page === page);

    it(
      `${page}: ${run.length} of its ${own.length} blocks run in one bash, exit 0 and print what the page shows`,
      { timeout: PAGE_BOUND_MS + 30_000 },
      async () => {
        const text = read(page);
        for (const s of [...shown, ...BACKGROUND.filter((bg) => bg.page === page)])
          if (s.shown) assert.ok(text.includes(s.shown), `${page} still shows: ${s.shown}`);
        const { r, ps } = await resultOf(page);
        assert.equal(r.code, 0, explain(r));
        for (const s of shown) {
          if (typeof s.output === 'string') assert.ok(r.stdout.includes(s.output), `${page} prints ${s.output}\n${explain(r)}`);
          else assert.match(r.stdout, s.output, `${page} prints ${s.output}\n${explain(r)}`);
        }
        for (const bg of ps.backgrounds) {
          const out = readFileSync(bg.out, 'utf8');
          for (const e of bg.expect) assert.ok(out.includes(e), `the background command printed ${e}:\n${tail(out)}`);
        }
        // "Open them in a browser": the hosted pricing pages the page prints answer.
        for (const url of r.stdout.match(new RegExp(`^${server.address.replaceAll('.', '\\.')}/pricing/sf_\\w+$`, 'gm')) ?? []) {
          const res = await fetch(url);
          assert.equal(res.status, 200, url);
          assert.match(res.headers.get('content-type') ?? '', /^text\/html/, url);
        }
      },
    );
  }

  it('leaves git status as it was: no command wrote into the repository, ignored files included', async (t) => {
    await Promise.allSettled(results.values());
    const appeared = newEntries(statusBefore, gitStatus());
    if ('unavailable' in appeared) return t.skip(appeared.unavailable);
    assert.deepEqual(appeared.entries, [], 'entries of git status that appeared while the pages ran (a file edited by hand meanwhile shows here too)');
  });
});
