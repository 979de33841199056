#!/usr/bin/env node
// The TypeScript sources run directly through tsx's loader: no build step between `npm ci` and
// `npm start`. The CLI's API commands import @tollgate/sdk, another package of this repository:
// the tollgate-source condition, added for that one import, resolves it to its TypeScript source
// too (as the test runner's --conditions flag does), so it needs no build of the SDK's dist/ either.
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

registerHooks(
  `data:text/javascript,${encodeURIComponent(
    "export async function resolve(specifier, context, next) { return next(specifier, specifier === '@tollgate/sdk' ? { ...context, conditions: [...context.conditions, 'tollgate-source'] } : context); }",
  )}`,
);
register();
await import('../src/cli/index.ts');
