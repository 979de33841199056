#!/usr/bin/env node
// npm run deps:check: reads `depcruise --output-type json` on stdin, prints the rule violations of
// .dependency-cruiser.cjs, then the cycles between the top-level folders of packages/server/src
// (lib, db, http, jobs, demo, each modules/<name>, deps.ts, config.ts, and the top files as one),
// and exits 1 if there is either.
//
// Folder cycles are found here rather than by a dependency-cruiser `scope: 'folder'` rule because
// tests sit in the same folders as the code: a folder rule cannot leave them out, and a module's
// test importing test/helpers (which import app.ts) closes a cycle through every folder. It also
// treats db/ and db/migrations/ as two folders, where this is one floor.
import { readFileSync } from 'node:fs';

const SRC = 'packages/server/src/';
const TOP_FILES = /^(app|main|cli|bootstrap|compose)\.ts$/;
const UPWARD_RULES = new Set(['core-not-upward', 'lib-not-db', 'http-not-upward', 'modules-not-top']);

const input = readFileSync(0, 'utf8');
if (input.trim() === '') {
  console.error('check-deps: no output from depcruise on stdin');
  process.exit(2);
}
const result = JSON.parse(input);

// Rule violations, as depcruise's own text reporter would list them.
const perRule = new Map();
for (const v of result.summary.violations) {
  perRule.set(v.rule.name, (perRule.get(v.rule.name) ?? 0) + 1);
  const via = v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to;
  console.log(`${v.rule.severity} ${v.rule.name}: ${v.from} → ${via}`);
}

/** The top-level unit a source file belongs to, or null for files outside the server's source and for tests. */
function unitOf(file) {
  if (!file.startsWith(SRC) || file.endsWith('.test.ts')) return null;
  const parts = file.slice(SRC.length).split('/');
  if (parts.length === 1) return TOP_FILES.test(parts[0]) ? '(top files)' : parts[0];
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts[0];
}

// The unit graph: for each edge, the imports that make it (type-only ones included).
const edges = new Map();
for (const m of result.modules) {
  const from = unitOf(m.source);
  if (from === null) continue;
  for (const d of m.dependencies) {
    const to = unitOf(d.resolved);
    if (to === null || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const imports = edges.get(from).get(to) ?? [];
    imports.push(`${m.source} → ${d.resolved}`);
    edges.get(from).set(to, imports);
  }
}
const next = (u) => [...(edges.get(u)?.keys() ?? [])].sort();
const units = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((e) => [...e.keys()])])].sort();

const CYCLE_CAP = 100000;

/**
 * The tangles of the graph restricted to `units`: its strongly connected components of two or
 * more units (Tarjan), its elementary cycles (each counted once, from its smallest unit, up to
 * CYCLE_CAP) and the pairs of units importing each other directly.
 */
function tangles(units) {
  const inGraph = new Set(units);
  const out = (u) => next(u).filter((w) => inGraph.has(w));
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const connect = (u) => {
    index.set(u, index.size);
    low.set(u, index.get(u));
    stack.push(u);
    onStack.add(u);
    for (const w of out(u)) {
      if (!index.has(w)) {
        connect(w);
        low.set(u, Math.min(low.get(u), low.get(w)));
      } else if (onStack.has(w)) low.set(u, Math.min(low.get(u), index.get(w)));
    }
    if (low.get(u) === index.get(u)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== u);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const u of units) if (!index.has(u)) connect(u);

  let cycles = 0;
  const pairs = [];
  for (const group of groups) {
    const inGroup = new Set(group);
    for (const start of group) {
      const path = [start];
      const seen = new Set([start]);
      const walk = (u) => {
        for (const w of out(u)) {
          if (cycles >= CYCLE_CAP || !inGroup.has(w) || w < start) continue;
          if (w === start) {
            cycles++;
            if (path.length === 2) pairs.push(`${path[0]} ⇄ ${path[1]}`);
          } else if (!seen.has(w)) {
            seen.add(w);
            path.push(w);
            walk(w);
            path.pop();
            seen.delete(w);
          }
        }
      };
      walk(start);
    }
  }
  return { groups, cycles, pairs };
}

const { groups, cycles, pairs } = tangles(units);
// What stays tangled once core and http stop importing upward: the modules among themselves.
const modulesOnly = tangles(units.filter((u) => u.startsWith('modules/')));
const countOf = (n) => (n >= CYCLE_CAP ? `over ${CYCLE_CAP}` : String(n));

/** Floors bottom to top; an import to a lower floor never closes a cycle by itself. */
function floorOf(unit) {
  if (['lib', 'db', 'deps.ts', 'config.ts'].includes(unit)) return 0;
  if (unit === 'http') return 1;
  return unit.startsWith('modules/') ? 2 : 3;
}
for (const [i, group] of groups.entries()) {
  console.log(`\nerror folder-cycle group ${i + 1}: ${group.join(', ')}`);
  console.log('  imports that close its cycles (upward, or between folders of one floor):');
  for (const from of group)
    for (const to of next(from).filter((t) => group.includes(t) && floorOf(t) >= floorOf(from))) {
      const imports = edges.get(from).get(to);
      console.log(`  ${from} → ${to} (${imports.length} import${imports.length === 1 ? '' : 's'}, e.g. ${imports[0]})`);
    }
}
if (pairs.length > 0) console.log(`\nFolders importing each other directly:\n  ${pairs.join('\n  ')}`);
for (const group of modulesOnly.groups) console.log(`\nModules tangled among themselves (no core or http in the cycle): ${group.join(', ')}`);

const ruleCount = result.summary.violations.length;
const upward = result.summary.violations.filter((v) => UPWARD_RULES.has(v.rule.name)).length;
console.log('\ndeps:check summary');
for (const [rule, n] of [...perRule].sort()) console.log(`  ${rule}: ${n}`);
console.log(`  rule violations: ${ruleCount} (upward imports: ${upward})`);
console.log(`  folder cycles: ${countOf(cycles)} in ${groups.length} tangled group(s), ${pairs.length} direct pair(s)`);
console.log(
  `  of which between modules only: ${countOf(modulesOnly.cycles)} in ${modulesOnly.groups.length} group(s), ${modulesOnly.pairs.length} direct pair(s)`,
);
console.log(`  ${result.summary.totalCruised} files, ${result.summary.totalDependenciesCruised} imports cruised`);
process.exit(ruleCount > 0 || groups.length > 0 ? 1 : 0);
