/**
 * The operator types are generated from the document the server serves, never written by hand:
 * this fails when src/generated/openapi.ts differs from what `npm run sdk:generate` gives today
 * (a route changed without regenerating).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generatedFile, generateOpenApiTypes } from '../scripts/openapi-types.js';

describe('src/generated/openapi.ts', () => {
  it('matches the server’s OpenAPI document (else run npm run sdk:generate and commit)', async () => {
    const fresh = await generateOpenApiTypes();
    const checkedIn = readFileSync(generatedFile, 'utf8');
    if (fresh !== checkedIn) {
      const a = fresh.split('\n');
      const b = checkedIn.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      assert.fail(
        `src/generated/openapi.ts is stale from line ${line + 1}: expected\n  ${a[line]}\nfound\n  ${b[line]}\nRun npm run sdk:generate and commit the file.`,
      );
    }
  });
});
