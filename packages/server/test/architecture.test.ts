/**
 * Table ownership: every table is read and written only by one module, in that module's
 * `*.repository.ts` files; everything else calls the functions they export. Checked here from
 * the source text (no database), so a stray `selectFrom` fails `npm test` with the file, the line
 * and the table.
 *
 * A table access is a Kysely builder call naming a table (`selectFrom`, `insertInto`,
 * `updateTable`, `deleteFrom`, the joins, `'x as y'` included) or raw SQL in a `sql` template (or
 * `sql.raw`, or a better-sqlite3 `prepare`) naming a known table after from, join, into, update or
 * delete from. The TypeScript parser finds them, so comments and ordinary strings never count.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** Module -> the tables it owns (snake_case, as in the migrations). Every table has exactly one owner. */
const OWNERS: Record<string, string[]> = {
  'api-keys': ['api_keys'],
  audit: ['audit_events', 'audit_events_fts', 'audit_search_presets'],
  authentication: [],
  billing: ['billing_settings', 'credit_notes', 'document_sequences', 'invoices'],
  catalog: ['offerings', 'price_versions', 'rate_plans', 'storefronts'],
  'console-assets': [],
  'client-credentials': ['access_tokens', 'client_credentials'],
  credentials: [],
  credits: ['credit_balances', 'credit_grants', 'credit_ledger_entries', 'credit_settings'],
  customers: ['customers'],
  entitlements: [],
  idempotency: ['idempotency_keys'],
  'ingest-writer': [],
  metrics: ['metrics'],
  'outbound-webhooks': ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'webhook_lanes', 'webhook_messages'],
  operators: ['operator_invitations', 'operator_sessions', 'operator_users'],
  'plan-changes': [],
  payments: ['customer_balances', 'payment_provider_events', 'payment_providers', 'payments', 'provider_customers', 'refunds'],
  plugs: ['webhook_event_ids', 'webhook_log', 'webhook_sources'],
  products: ['products'],
  'retention-offers': ['retention_offer_acceptances'],
  'storefront-keys': ['storefront_keys'],
  subscriptions: ['subscriptions'],
  tenancy: ['workspaces'],
  'test-clocks': ['test_clocks'],
  usage: ['usage_aggregates', 'usage_event_claims', 'usage_events', 'usage_hourly'],
  'widget-sessions': ['widget_sessions'],
  'hub-sessions': ['hub_sessions'],
  hub: [],
  'widget-assets': [],
};

/** Tables outside db/schema.ts's Database: they are named only in raw SQL. */
const RAW_ONLY_TABLES = ['audit_events_fts', 'tollgate_migrations'];

/**
 * Tables that belong to the core rather than to a module, with the files that may name them:
 * the migration ledger is written by the migrator, the readiness probe counts its rows, and a
 * backup's check reads a copy's.
 */
const CORE_TABLES: Record<string, string[]> = {
  tollgate_migrations: ['db/migrate.ts', 'db/sqlite-backup.ts', 'http/health.routes.ts'],
};

const KYSELY_TABLE_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'using',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
]);
const CTE_METHODS = new Set(['with', 'withRecursive']);
const RAW_SQL_TABLE = /\b(?:from|join|into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?/gi;

interface Access {
  file: string;
  line: number;
  table: string;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return p === path.join(SRC, 'db/migrations') || p === path.join(SRC, 'db/tables') ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The table names of db/schema.ts's Database interface, snake_case. */
function schemaTables(): string[] {
  const out: string[] = [];
  parse(path.join(SRC, 'db/schema.ts')).forEachChild((n) => {
    if (ts.isInterfaceDeclaration(n) && n.name.text === 'Database') {
      for (const m of n.members) if (m.name && ts.isIdentifier(m.name)) out.push(snake(m.name.text));
    }
  });
  return out;
}

const literalText = (n: ts.Node | undefined): string | null => (n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : null);

/** The literal parts of a template, a placeholder where each substitution goes. */
function templateText(t: ts.TemplateLiteral): string {
  return ts.isNoSubstitutionTemplateLiteral(t) ? t.text : [t.head.text, ...t.templateSpans.map((s) => s.literal.text)].join(' ? ');
}

const calledName = (call: ts.CallExpression): string | null => (ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : null);

/** Names a file gives its common table expressions, so `selectFrom('matches')` on one is not a table. */
function cteNames(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && CTE_METHODS.has(calledName(n) ?? '') && n.arguments[0]) {
      const first = n.arguments[0];
      const own = literalText(first);
      if (own !== null) names.add(own.split('(')[0]!.trim());
      else
        first.forEachChild(function inner(c: ts.Node): void {
          if (ts.isCallExpression(c)) {
            const named = literalText(c.arguments[0]);
            if (named !== null) names.add(named.split('(')[0]!.trim());
          }
          c.forEachChild(inner);
        });
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return names;
}

function tableAccesses(file: string, knownTables: Set<string>): { accesses: Access[]; unknown: Access[] } {
  const sf = parse(file);
  const rel = path.relative(SRC, file).split(path.sep).join('/');
  const ctes = cteNames(sf);
  const accesses: Access[] = [];
  const unknown: Access[] = [];
  const at = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const rawSql = (text: string, n: ts.Node) => {
    for (const m of text.matchAll(RAW_SQL_TABLE)) {
      const table = m[1]!.toLowerCase();
      // Only known tables: after these keywords raw SQL also names columns (`extract(epoch from x)`) and functions.
      if (knownTables.has(table)) accesses.push({ file: rel, line: at(n), table });
    }
  };
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const method = calledName(n);
      if (method && KYSELY_TABLE_METHODS.has(method)) {
        const first = n.arguments[0];
        const names = first && ts.isArrayLiteralExpression(first) ? first.elements.map(literalText) : [literalText(first)];
        for (const name of names) {
          if (name === null) continue;
          const bare = name.split(/\s+as\s+/i)[0]!.trim();
          if (ctes.has(bare)) continue;
          const table = snake(bare);
          (knownTables.has(table) ? accesses : unknown).push({ file: rel, line: at(n), table });
        }
      }
      const onSqlHelper = ts.isPropertyAccessExpression(n.expression) && ts.isIdentifier(n.expression.expression) && n.expression.expression.text === 'sql';
      if ((onSqlHelper && (method === 'raw' || method === 'table')) || method === 'prepare') {
        const first = n.arguments[0];
        const text = literalText(first) ?? (first && ts.isTemplateExpression(first) ? templateText(first) : null);
        if (text !== null) {
          if (method === 'table') {
            const table = snake(text);
            (knownTables.has(table) ? accesses : unknown).push({ file: rel, line: at(n), table });
          } else rawSql(text, n);
        }
      }
    }
    if (ts.isTaggedTemplateExpression(n) && ts.isIdentifier(n.tag) && n.tag.text === 'sql') rawSql(templateText(n.template), n);
    n.forEachChild(visit);
  };
  visit(sf);
  return { accesses, unknown };
}

function ownerOf(table: string): string[] {
  return Object.entries(OWNERS)
    .filter(([, tables]) => tables.includes(table))
    .map(([m]) => m);
}

const moduleDirs = readdirSync(path.join(SRC, 'modules'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const allTables = [...new Set([...schemaTables(), ...RAW_ONLY_TABLES])].sort();

describe('architecture: table ownership', () => {
  it('the ownership table names every module folder, and every table has exactly one owner', () => {
    assert.deepEqual(Object.keys(OWNERS).sort(), moduleDirs, 'OWNERS must list every folder of src/modules, and only those');
    const problems: string[] = [];
    for (const table of allTables) {
      const owners = ownerOf(table);
      const core = table in CORE_TABLES;
      if (owners.length + (core ? 1 : 0) !== 1) problems.push(`${table}: owned by ${[...owners, ...(core ? ['core'] : [])].join(', ') || 'nobody'}`);
    }
    for (const [m, tables] of Object.entries(OWNERS)) {
      for (const t of tables) if (!allTables.includes(t)) problems.push(`${m} owns '${t}', which is no table of db/schema.ts (nor of RAW_ONLY_TABLES)`);
    }
    assert.deepEqual(problems, [], `Table ownership is inconsistent:\n${problems.join('\n')}`);
  });

  it("every table access is in a *.repository.ts of the table's owning module", () => {
    const known = new Set(allTables);
    const accesses: Access[] = [];
    const unknown: Access[] = [];
    for (const file of sourceFiles(SRC)) {
      const r = tableAccesses(file, known);
      accesses.push(...r.accesses);
      unknown.push(...r.unknown);
    }
    assert.deepEqual(
      unknown.map((a) => `${a.file}:${a.line} ${a.table}`),
      [],
      'These name a table that is neither in db/schema.ts nor a CTE of the file; add it to the schema and to OWNERS',
    );
    // The check must see something: a parser change that found nothing would pass vacuously.
    assert.ok(accesses.length > 100, `only ${accesses.length} table accesses found`);

    const allowed = (a: Access): boolean => {
      if (a.table in CORE_TABLES) return CORE_TABLES[a.table]!.includes(a.file);
      const owner = ownerOf(a.table)[0];
      return a.file.startsWith(`modules/${owner}/`) && a.file.endsWith('.repository.ts') && !a.file.slice(`modules/${owner}/`.length).includes('/');
    };
    const violations = accesses
      .filter((a) => !allowed(a))
      .map((a) => `${a.file}:${a.line} touches ${a.table} (owner: ${ownerOf(a.table)[0] ?? 'core'}; only its *.repository.ts may)`);
    assert.deepEqual(
      violations,
      [],
      `Table accesses outside the owning module's *.repository.ts:\n${violations.join('\n')}\n` +
        "Call a function exported by the owner's repository instead (or move the query there).",
    );
  });

  it('every module README states its tables ("Owns tables: ...") as OWNERS does', () => {
    const problems: string[] = [];
    for (const m of moduleDirs) {
      const readme = path.join(SRC, 'modules', m, 'README.md');
      if (!existsSync(readme)) {
        problems.push(`modules/${m}/README.md is missing`);
        continue;
      }
      const line = /^Owns tables:(.*)$/m.exec(readFileSync(readme, 'utf8'))?.[1]?.trim();
      if (line === undefined) {
        problems.push(`modules/${m}/README.md has no "Owns tables:" line`);
        continue;
      }
      const stated = /^none\b/i.test(line) ? [] : [...line.matchAll(/`([a-z0-9_]+)`/g)].map((x) => x[1]!);
      const expected = OWNERS[m] ?? [];
      if (stated.sort().join(',') !== [...expected].sort().join(',')) {
        problems.push(`modules/${m}/README.md says "Owns tables: ${line}"; OWNERS says ${expected.map((t) => `\`${t}\``).join(', ') || 'none'}`);
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
