import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { compilePendingSchemas, lazyValidator, memoizeBySchema } from './lazy-schemas.js';

describe('lazyValidator', () => {
  it("compiles on the first call only, and mirrors the compiled validator's errors", () => {
    let compiled = 0;
    const v = lazyValidator(() => {
      compiled++;
      const fn = ((data: unknown) => {
        fn.errors = data === 1 ? null : [{ message: 'not one' }];
        return data === 1;
      }) as ((data: unknown) => boolean) & { errors?: unknown };
      return fn;
    });
    assert.equal(compiled, 0, 'nothing compiled before a call');
    assert.equal(v(2), false);
    assert.deepEqual(v.errors, [{ message: 'not one' }]);
    assert.equal(v(1), true);
    assert.equal(v.errors, null);
    assert.equal(compiled, 1);
  });
});

describe('memoizeBySchema', () => {
  it('makes one function per schema object, whatever asks for it', () => {
    const memo = memoizeBySchema<object, () => string>();
    const a = {};
    const b = {};
    let made = 0;
    const make = () => {
      made++;
      return () => 'x';
    };
    const fa = memo(a, make);
    assert.equal(memo(a, make), fa);
    assert.notEqual(memo(b, make), fa);
    assert.equal(made, 2);
  });
});

describe('every route schema compiles', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t?.close());

  it('compilePendingSchemas finds no schema that fails to compile (validators and serializers of every route)', () => {
    assert.deepEqual(compilePendingSchemas().map(String), []);
  });

  it('a second app reuses what the first compiled: its validation answers the same 400, naming the field', async () => {
    const second = await createTestApp();
    try {
      const { test } = await second.seed.workspace();
      const res = await second.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { authorization: `Bearer ${test.secretKey}` },
        payload: { name: 'x', unknownField: 1 },
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /body\.unknownField/);
    } finally {
      await second.close();
    }
  });
});
