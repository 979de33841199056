#!/usr/bin/env node
// The TypeScript sources run directly through tsx's loader: no build step between `npm ci` and
// `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
