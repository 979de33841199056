import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { JsonPathSyntaxError, evaluateJsonPath } from './field-mapping.js';

/**
 * Runs the RFC 9535 JSONPath compliance test suite (jsonpath-standard/jsonpath-compliance-test-suite)
 * against the exact wrapper field mappings use, so the environment and the length cap are both
 * covered. The suite is shared test data outside the repository (BSD-2, not ours to vendor):
 * <repo root>/../shared/testdata/jsonpath-cts/cts.json, or wherever JSONPATH_CTS points.
 */

interface CtsCase {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  results?: unknown[][];
  invalid_selector?: boolean;
}

// This file is packages/server/src/modules/plugs/; six levels up is the repository's parent.
const defaultPath = fileURLToPath(new URL('../../../../../../shared/testdata/jsonpath-cts/cts.json', import.meta.url));
const ctsPath = process.env.JSONPATH_CTS || defaultPath;
const source = process.env.JSONPATH_CTS ? `JSONPATH_CTS=${ctsPath}` : ctsPath;

function loadCases(): CtsCase[] {
  const parsed: unknown = JSON.parse(readFileSync(ctsPath, 'utf8'));
  const tests = (parsed as { tests?: unknown }).tests;
  // A malformed file must fail, not pass vacuously with zero cases.
  assert.ok(Array.isArray(tests) && tests.length > 0, `${source} has no "tests" array`);
  return tests as CtsCase[];
}

if (!existsSync(ctsPath)) {
  it('RFC 9535 JSONPath compliance test suite', { skip: `the suite is not present at ${source}` }, () => {});
} else {
  const cases = loadCases();
  let ran = 0;

  describe(`RFC 9535 JSONPath compliance test suite (${cases.length} cases)`, () => {
    for (const c of cases) {
      it(c.name, () => {
        ran += 1;
        if (c.invalid_selector) {
          assert.throws(() => evaluateJsonPath(c.selector, c.document ?? null), JsonPathSyntaxError, `${JSON.stringify(c.selector)} should be refused`);
          return;
        }
        const got = evaluateJsonPath(c.selector, c.document);
        if (c.result !== undefined) {
          assert.deepStrictEqual(got, c.result);
        } else {
          assert.ok(Array.isArray(c.results), `case ${JSON.stringify(c.name)} has neither result nor results`);
          assert.ok(
            c.results.some((r) => isDeepStrictEqual(got, r)),
            `${JSON.stringify(c.selector)} selected ${JSON.stringify(got)}, which is none of the acceptable orderings ${JSON.stringify(c.results)}`,
          );
        }
      });
    }

    it('ran every case of the suite', () => {
      assert.equal(ran, cases.length);
    });
  });
}
