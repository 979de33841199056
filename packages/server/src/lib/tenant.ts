import type { Environment } from './crypto.js';

/** The pair every tenant query filters by; it always comes from the credential. */
export interface Tenant {
  workspaceId: string;
  environment: Environment;
}

/** Parses stored metadata text; stored values were validated on the way in. */
export function parseMetadata(text: string): Record<string, string> {
  return JSON.parse(text) as Record<string, string>;
}
