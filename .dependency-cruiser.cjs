// The floors of packages/server/src (bottom to top): core (lib/, db/, deps.ts, config.ts), http/,
// modules/<name>/, then the top (app.ts, main.ts, bootstrap.ts, compose.ts, cli/, jobs/, demo/).
// A file may import its own floor and the floors below, never above. Type-only imports count:
// a type that points upward ties the floors together as much as a value does.
//
// Cycles between folders (modules/<name> and the other top-level folders) are checked by
// scripts/check-deps.mjs on this cruise's JSON: a `scope: 'folder'` rule cannot leave out the tests
// that share the folders. Run everything with `npm run deps:check`.
const path = require('node:path');

const SRC = '^packages/server/src/';
const TEST = '\\.test\\.ts$';
const TOP_FILES = `${SRC}(app|main|cli|bootstrap|compose)\\.ts$`;
const TOP = [`${SRC}(jobs|demo|cli)/`, TOP_FILES];
const CORE = [`${SRC}(lib|db)/`, `${SRC}(deps|config)\\.ts$`];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A file-level import cycle: the files cannot be understood, tested or moved apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-not-upward',
      severity: 'error',
      comment: 'Core (lib/, db/, deps.ts, config.ts) is the bottom floor: it imports nothing from http/, modules/ or the top.',
      // Tests of core may use the floors above to check what core produces (a migrated index read by its repository).
      from: { path: CORE, pathNot: TEST },
      to: { path: [`${SRC}(http|modules)/`, ...TOP] },
    },
    {
      name: 'lib-not-db',
      severity: 'error',
      comment: 'lib/ holds plain utilities and types; the database sits beside it, not under it.',
      from: { path: `${SRC}lib/` },
      to: { path: `${SRC}db/` },
    },
    {
      name: 'http-not-upward',
      severity: 'error',
      comment: 'http/ is the web kit the modules build on: it never imports a module or the top.',
      from: { path: `${SRC}http/`, pathNot: TEST },
      to: { path: [`${SRC}modules/`, ...TOP] },
    },
    {
      name: 'modules-not-top',
      severity: 'error',
      comment: 'Modules are wired by the composition root and the jobs, never the other way round.',
      from: { path: `${SRC}modules/`, pathNot: TEST },
      to: { path: TOP },
    },
    {
      name: 'pricing-not-server',
      severity: 'error',
      comment: 'packages/pricing is pure and runs in the browser: it knows nothing of the server.',
      from: { path: '^packages/pricing/' },
      to: { path: '^packages/server/' },
    },
    {
      name: 'no-dev-deps-in-source',
      severity: 'error',
      comment: 'A devDependency is not installed in production: only tests and test helpers may import one.',
      from: { path: '^packages/[^/]+/src/', pathNot: TEST },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)data/' },
    // Type-only imports are dependencies too (see the top of this file).
    tsPreCompilationDeps: true,
    // Absolute: TypeScript finds no files when a relative config name is passed with a base directory.
    tsConfig: { fileName: path.join(__dirname, 'packages/server/tsconfig.json') },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
