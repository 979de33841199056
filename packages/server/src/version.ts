import { readFileSync } from 'node:fs';

/**
 * The server's version, from packages/server/package.json. This file sits one level below the
 * package, as the compiled chunks in dist/ do, so the same relative URL finds it from both.
 */
export const serverVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
