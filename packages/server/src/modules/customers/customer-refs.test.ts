import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { resolveCustomerRefsCached } from './customer-refs.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('customers.resolveCustomerRefsCached', () => {
  it('resolves externalIds and ids, caches hits only, and forgets them when an externalId moves', async () => {
    const ws = await t.seed.workspace();
    const first = await t.seed.customer(ws.test, { externalId: 'shop-1' });
    assert.deepEqual(
      [...(await resolveCustomerRefsCached(t.deps, ws.test, ['shop-1', first.id, 'nobody']))],
      [
        ['shop-1', first.id],
        [first.id, first.id],
      ],
    );
    // A miss is not cached: a customer created now resolves at once.
    const late = await t.seed.customer(ws.test, { externalId: 'nobody' });
    assert.equal((await resolveCustomerRefsCached(t.deps, ws.test, ['nobody'])).get('nobody'), late.id);
    // The externalId moves to another customer: the cached hit must not survive.
    const api = t.seed.client(ws.test.secretKey);
    assert.equal((await api.patch(`/api/v1/customers/${first.id}`, { externalId: 'shop-1-old' })).status, 200);
    const second = await t.seed.customer(ws.test, { externalId: 'shop-1' });
    assert.equal((await resolveCustomerRefsCached(t.deps, ws.test, ['shop-1'])).get('shop-1'), second.id);
  });

  it('never answers from another environment or workspace', async () => {
    const ws = await t.seed.workspace();
    const other = await t.seed.workspace();
    const c = await t.seed.customer(ws.test, { externalId: 'same-ref' });
    assert.equal((await resolveCustomerRefsCached(t.deps, ws.test, ['same-ref'])).get('same-ref'), c.id);
    assert.equal((await resolveCustomerRefsCached(t.deps, ws.live, ['same-ref'])).size, 0);
    assert.equal((await resolveCustomerRefsCached(t.deps, other.test, ['same-ref'])).size, 0);
  });
});
