import assert from 'node:assert/strict';
import type { Response } from './seed.js';

/** A 200; returns its body. */
export async function ok(p: Promise<Response>) {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/**
 * A 400 in the envelope {success:false, errors:[{code:'VALIDATION_FAILED', field, message}]}
 * (never a 500) that names `field`; returns that error.
 */
export async function rejects(p: Promise<Response>, field: string): Promise<{ code: string; field: string; message: string }> {
  const res = await p;
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
  assert.equal(res.body.success, false);
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0);
  for (const e of res.body.errors) {
    assert.equal(e.code, 'VALIDATION_FAILED', JSON.stringify(e));
    assert.equal(typeof e.field, 'string', JSON.stringify(e));
    assert.equal(typeof e.message, 'string', JSON.stringify(e));
    assert.ok(e.message.length > 0);
  }
  const hit = res.body.errors.find((e: { field: string }) => e.field === field);
  assert.ok(hit, `expected an error on ${field}, got ${JSON.stringify(res.body.errors)}`);
  return hit;
}
