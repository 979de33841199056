/**
 * The root README says what the code does. Its outbound webhooks section: its event types are the
 * catalog's, its examples are abridged copies of the OpenAPI document's, its retry table is the
 * schedule's and its per-profile defaults are loadConfig's. Its audit section: the table of audit
 * event types is the list recordAudit accepts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig, type Config } from '../src/lib/config.js';
import { auditEventTypesByCategory } from '../src/modules/audit/audit-event-types.js';
import { catalogTypes, eventCatalog } from '../src/modules/outbound-webhooks/event-catalog.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/modules/outbound-webhooks/retry-schedule.js';
import { webhookExample } from '../src/modules/outbound-webhooks/webhook-docs.js';

const root = new URL('../../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const section = (() => {
  const start = readme.indexOf('\n### Outbound webhooks\n');
  assert.ok(start >= 0, 'README.md has an "### Outbound webhooks" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end);
})();

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

describe('README.md: outbound webhooks', () => {
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

describe('README.md: audit events', () => {
  it('the table of audit event types lists every type recordAudit accepts, by category, in order', () => {
    const lines = readme.split('\n');
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

describe('README.md: the tour', () => {
  it('every picture it shows is in the repository, as a PNG', () => {
    const pictures = [...readme.matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)].map((m) => ({ alt: m[1] ?? '', path: m[2] ?? '' }));
    assert.ok(pictures.length >= 8, 'the tour shows the console and the hub');
    for (const { alt, path } of pictures) {
      assert.ok(alt.trim().length > 0, `${path} has alternative text`);
      const bytes = readFileSync(new URL(path, root));
      assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${path} is a PNG`);
    }
  });
});
