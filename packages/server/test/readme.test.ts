/**
 * The README and the pages under docs/ say what the code does. docs/webhooks.md's outbound
 * section: its event types are the catalog's, its examples are abridged copies of the OpenAPI
 * document's, its retry table is the schedule's and its per-profile defaults are loadConfig's.
 * docs/audit.md: the table of audit event types is the list recordAudit accepts. The README stays a
 * front door (at most 400 lines), and every relative link of the README and of docs/ leads to a
 * file, and to a heading, that exist.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadConfig, type Config } from '../src/lib/config.js';
import { auditEventTypesByCategory } from '../src/modules/audit/audit-event-types.js';
import { catalogTypes, eventCatalog } from '../src/modules/outbound-webhooks/event-catalog.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/modules/outbound-webhooks/retry-schedule.js';
import { webhookExample } from '../src/modules/outbound-webhooks/webhook-docs.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');
const docPages = readdirSync(new URL('docs/', root))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** The lines from the heading line `heading` to the next heading (outside code) of the same or a higher level. */
function sectionOf(text: string, heading: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  assert.ok(start >= 0, `a "${heading}" section`);
  const higher = new RegExp(`^#{1,${/^#+/.exec(heading)![0].length}} `);
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.startsWith('```')) fenced = !fenced;
    else if (!fenced && higher.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

const section = sectionOf(read('docs/webhooks.md'), '## Outbound webhooks');

/** The rows of the markdown table whose header row starts with `| <first> |`, as trimmed cells. */
function tableRows(first: string): string[][] {
  const lines = section.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  assert.ok(at >= 0, `a table headed "${first}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return rows;
}
const code = (cell: string) => cell.replace(/^`|`$/g, '');

describe('docs/webhooks.md: outbound webhooks', () => {
  it('the event types table lists the catalog, in its order, with its descriptions', () => {
    const rows = tableRows('Type');
    assert.deepEqual(
      rows.map((r) => code(r[0]!)),
      catalogTypes,
    );
    for (const [type, when] of rows) assert.equal(when!.replaceAll('`', ''), eventCatalog[code(type!) as keyof typeof eventCatalog].description);
  });

  for (const type of catalogTypes) {
    it(`the example of ${type} is the OpenAPI document's, abridged`, () => {
      const block = new RegExp(`<details><summary><code>${type.replace('.', '\\.')}</code></summary>\\n\\n\`\`\`json\\n([^]*?)\\n\`\`\`\\n`).exec(section);
      assert.ok(block, `a <details> block for ${type}`);
      const shown = JSON.parse(block[1]!);
      const full = webhookExample(type);
      assert.equal(shown.type, type);
      assert.equal(shown.timestamp, full.timestamp);
      const { object, ...rest } = shown.data;
      const { object: fullObject, ...fullRest } = full.data as { object: Record<string, unknown> };
      for (const [k, v] of Object.entries(object)) assert.deepEqual(v, fullObject[k], `data.object.${k}`);
      assert.equal(object.object, eventCatalog[type].resource);
      assert.deepEqual(rest, fullRest, 'previousAttributes and details as in full');
    });
  }

  it('the retry table is the schedule: its attempts and the delay before each', () => {
    const rows = tableRows('Attempt');
    assert.equal(rows.length, MAX_ATTEMPTS);
    const words = (ms: number) => (ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`);
    assert.deepEqual(
      rows.slice(1).map((r) => r[1]),
      RETRY_DELAYS_MS.map(words),
    );
  });

  it("the settings table gives every OUTBOUND_WEBHOOK_* setting of config.ts, with each profile's default", () => {
    const configSource = readFileSync(new URL('packages/server/src/lib/config.ts', root), 'utf8');
    const read = [...new Set(configSource.match(/'OUTBOUND_WEBHOOK_[A-Z_]+'/g)!.map((s) => s.slice(1, -1)))].sort();
    const rows = tableRows('Setting');
    assert.deepEqual(rows.map((r) => code(r[0]!)).sort(), read);
    const profiles = ['development', 'test', 'production'] as const;
    const configs = profiles.map((p) => loadConfig({ TOLLGATE_PROFILE: p, TOLLGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` }));
    for (const [name, ...defaults] of rows) {
      const field = code(name!)
        .toLowerCase()
        .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof Config;
      profiles.forEach((p, i) => {
        const value = configs[i]![field];
        assert.ok(typeof value === 'number' || typeof value === 'boolean', `${code(name!)} is config.${field}`);
        assert.equal(code(defaults[i]!), String(value), `${code(name!)} in ${p}`);
      });
    }
  });
});

describe('docs/audit.md: audit events', () => {
  it('the table of audit event types lists every type recordAudit accepts, by category, in order', () => {
    const lines = read('docs/audit.md').split('\n');
    const at = lines.indexOf('| Category | Event types |');
    assert.ok(at >= 0, 'a table headed "| Category | Event types |"');
    const rows = lines.slice(
      at + 2,
      lines.findIndex((l, i) => i > at && !l.startsWith('|')),
    );
    const categories = Object.entries(auditEventTypesByCategory);
    assert.equal(rows.length, categories.length);
    rows.forEach((row, i) => {
      const [category, types] = categories[i]!;
      const [first, second] = row
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim());
      assert.ok(first!.startsWith(category), `row ${i + 1} is ${category}`);
      const shown = [...second!.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((m) => m[1]);
      assert.deepEqual(shown, types, category);
    });
  });
});

/** Markdown text without its fenced code blocks and inline code, where nothing is a link. */
const prose = (text: string) => text.replace(/^```[^]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** The pictures a page shows, as written and as a URL resolved from the page. */
function picturesOf(page: string) {
  return [...prose(read(page)).matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)].map((m) => ({
    alt: m[1] ?? '',
    path: m[2] ?? '',
    url: new URL(m[2] ?? '', new URL(page, root)),
  }));
}

function assertPng(alt: string, path: string, url: URL) {
  assert.ok(alt.trim().length > 0, `${path} has alternative text`);
  const bytes = readFileSync(url);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${path} is a PNG`);
}

describe('docs/console-and-hub.md: the tour', () => {
  it('every picture it shows is in the repository, as a PNG', () => {
    const pictures = picturesOf('docs/console-and-hub.md');
    assert.ok(pictures.length >= 8, 'the tour shows the console and the hub');
    for (const { alt, path, url } of pictures) assertPng(alt, path, url);
  });

  it('so is every picture of the README and of the other pages', () => {
    const pictures = ['README.md', ...docPages].flatMap(picturesOf);
    assert.ok(pictures.length >= 11, 'the README, the tour and the pricing page show pictures');
    for (const { alt, path, url } of pictures) assertPng(alt, path, url);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code), a repeated one suffixed -1, -2… as GitHub does. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^```[^]*?^```$/gm, '').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('README.md: a front door', () => {
  it('has at most 400 lines', () => {
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    assert.ok(lines <= 400, `README.md has ${lines} lines`);
  });

  it('links to every page under docs/', () => {
    const linked = new Set([...prose(readme).matchAll(/\]\((docs\/[^)#]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]));
    assert.deepEqual(
      docPages.filter((p) => !linked.has(p)),
      [],
    );
  });
});

describe('README.md and docs/: links', () => {
  it("the anchor rule is GitHub's", () => {
    assert.equal(anchorOf('Try it on one machine: two nodes on PostgreSQL and Redis'), 'try-it-on-one-machine-two-nodes-on-postgresql-and-redis');
    assert.equal(anchorOf('The upgrade/cancel widget'), 'the-upgradecancel-widget');
    assert.equal(anchorOf('Idempotency: nothing counted or billed twice'), 'idempotency-nothing-counted-or-billed-twice');
    assert.equal(anchorOf('`tollgate_build_info` and snake_case'), 'tollgate_build_info-and-snake_case');
  });

  it('every relative link points to a file that exists, and a #anchor to a heading of it', () => {
    const problems: string[] = [];
    for (const page of ['README.md', ...docPages]) {
      const from = new URL(page, root);
      for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const href = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:: not ours to check
        const [path = '', anchor] = href.split('#');
        const target = path ? new URL(path, from) : from;
        if (!existsSync(target)) {
          problems.push(`${page}: ${href} (no such file)`);
          continue;
        }
        if (anchor && target.pathname.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          problems.push(`${page}: ${href} (no such heading)`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });
});
