#!/usr/bin/env node
// The CLI runs the compiled JavaScript in ../dist (scripts/build.mjs): a start loads a few files
// instead of compiling the TypeScript sources through tsx at every start. The root `prepare`
// script builds it at `npm ci`; when the sources changed since (a developer's edit), it is rebuilt
// here first, in about a second. Source maps are on, so stack traces name the .ts lines.
// TOLLGATE_FROM_SOURCE=1 runs the TypeScript through tsx instead (also the fallback when dist/ is
// stale and esbuild, a devDependency, is not installed).
process.setSourceMapsEnabled(true);

const { ensureBuilt } = await import('../scripts/build.mjs');
if (process.env.TOLLGATE_FROM_SOURCE !== '1' && (await ensureBuilt())) {
  await import('../dist/tollgate.js');
} else {
  // The CLI's API commands import @tollgate/sdk, another package of this repository: the
  // tollgate-source condition, added for that one import, resolves it to its TypeScript source
  // too (as the test runner's --conditions flag does), so it needs no build of the SDK's dist/.
  const { register: registerHooks } = await import('node:module');
  const { register } = await import('tsx/esm/api');
  registerHooks(
    `data:text/javascript,${encodeURIComponent(
      "export async function resolve(specifier, context, next) { return next(specifier, specifier === '@tollgate/sdk' ? { ...context, conditions: [...context.conditions, 'tollgate-source'] } : context); }",
    )}`,
  );
  register();
  await import('../src/cli/index.ts');
}
