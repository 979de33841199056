import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { credentialState, hasScope, type CredentialState } from './credential.js';
import { parseSecret } from './secrets.js';
import { scopes, type Credential, type Scope } from '../../lib/principal.js';
import { newBearerKey } from './secrets.js';
import { verificationOf } from '../authentication/verify-key.js';

const hex32 = '0123456789abcdef0123456789abcdef';
const hex64 = hex32 + hex32;

describe('parseSecret', () => {
  const cases: Array<[string, string, ReturnType<typeof parseSecret>]> = [
    ['sk_test_ key', `sk_test_${hex32}`, { kind: 'secret_key', environment: 'test' }],
    ['sk_live_ key', `sk_live_${hex32}`, { kind: 'secret_key', environment: 'live' }],
    ['at_test_ access token (64 hex)', `at_test_${hex64}`, { kind: 'access_token', environment: 'test' }],
    ['at_live_ access token (64 hex)', `at_live_${hex64}`, { kind: 'access_token', environment: 'live' }],
    ['pk_test_ storefront key', `pk_test_${hex32}`, { kind: 'storefront_key', environment: 'test' }],
    ['pk_live_ storefront key', `pk_live_${hex32}`, { kind: 'storefront_key', environment: 'live' }],
    ['wst_test_ widget session (64 hex)', `wst_test_${hex64}`, { kind: 'widget_session', environment: 'test' }],
    ['wst_live_ widget session (64 hex)', `wst_live_${hex64}`, { kind: 'widget_session', environment: 'live' }],
    ['widget session with only 32 hex', `wst_test_${hex32}`, null],
    ['secret key one hex short', `sk_test_${hex32.slice(1)}`, null],
    ['secret key one hex long', `sk_test_${hex32}0`, null],
    ['access token with only 32 hex', `at_test_${hex32}`, null],
    ['storefront key with 64 hex', `pk_test_${hex64}`, null],
    ['uppercase hex', `sk_test_${hex32.toUpperCase()}`, null],
    ['non-hex character', `sk_test_${hex32.slice(1)}g`, null],
    ['uppercase prefix', `SK_TEST_${hex32}`, null],
    ['unknown environment', `sk_prod_${hex32}`, null],
    ['unknown prefix', `xk_test_${hex32}`, null],
    ['bare hex, no prefix', hex32, null],
    ['surrounding whitespace', ` sk_test_${hex32} `, null],
    ['trailing newline', `sk_test_${hex32}\n`, null],
    ['empty string', '', null],
  ];
  for (const [name, value, expected] of cases) {
    it(`${name} -> ${expected ? `${expected.kind}/${expected.environment}` : 'null'}`, () => {
      assert.deepEqual(parseSecret(value), expected);
    });
  }
});

describe('credentialState', () => {
  const expiresAt = Date.UTC(2026, 0, 15, 12, 5, 0);
  const cases: Array<[string, { status: string; expiresAt: number | null }, number, CredentialState]> = [
    ['ACTIVE without expiry is valid', { status: 'ACTIVE', expiresAt: null }, expiresAt, 'VALID'],
    ['REVOKED is revoked', { status: 'REVOKED', expiresAt: null }, expiresAt, 'REVOKED'],
    ['REVOKED during a grace period is still revoked', { status: 'REVOKED', expiresAt }, expiresAt - 1000, 'REVOKED'],
    ['ROTATED one ms before expiresAt is valid', { status: 'ROTATED', expiresAt }, expiresAt - 1, 'VALID'],
    ['ROTATED exactly at expiresAt is expired (the end is exclusive)', { status: 'ROTATED', expiresAt }, expiresAt, 'EXPIRED'],
    ['ROTATED after expiresAt is expired', { status: 'ROTATED', expiresAt }, expiresAt + 1, 'EXPIRED'],
    ['ACTIVE access token past its lifetime is expired', { status: 'ACTIVE', expiresAt }, expiresAt, 'EXPIRED'],
  ];
  for (const [name, c, now, expected] of cases) {
    it(name, () => {
      assert.equal(credentialState(c, now), expected);
    });
  }
});

describe('hasScope', () => {
  const cases: Array<[string, Scope[], Scope, boolean]> = [
    ['the scope itself', ['ingest'], 'ingest', true],
    ['another scope only', ['ingest'], 'keys:write', false],
    ['no scopes', [], 'ingest', false],
    ['keys:write does not imply admin', ['keys:write'], 'admin', false],
    ['keys:write does not imply keys:verify', ['keys:write'], 'keys:verify', false],
  ];
  for (const [name, granted, needed, expected] of cases) {
    it(`${name}: ${expected}`, () => {
      assert.equal(hasScope(granted, needed), expected);
    });
  }
  it('admin implies every scope', () => {
    for (const s of scopes) assert.equal(hasScope(['admin'], s), true, s);
  });
});

describe('verificationOf', () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);
  const tenant = { workspaceId: 'ws_a', environment: 'test' } as const;
  const base = { workspaceId: 'ws_a', environment: 'test' as const, status: 'ACTIVE', expiresAt: null, rateLimitPerMinute: null };
  const productKey: Credential = {
    ...base,
    id: 'key_1',
    type: 'product_key',
    customerId: 'cus_1',
    subscriptionId: 'sub_1',
    productId: 'prod_1',
  };
  const notFound = {
    valid: false,
    code: 'NOT_FOUND',
    keyId: null,
    customerId: null,
    subscriptionId: null,
    productId: null,
    environment: null,
    expiresAt: null,
  };
  const found = (valid: boolean, code: string, expiresAt: string | null, c: { id: string } = productKey) => ({
    valid,
    code,
    keyId: c.id,
    customerId: 'cus_1',
    subscriptionId: 'sub_1',
    productId: 'prod_1',
    environment: 'test',
    expiresAt,
  });

  const cases: Array<[string, Credential | null, object]> = [
    ['unknown secret -> NOT_FOUND', null, notFound],
    ["another workspace's product key -> NOT_FOUND", { ...productKey, workspaceId: 'ws_b' }, notFound],
    ['a product key of the other environment -> NOT_FOUND', { ...productKey, environment: 'live' }, notFound],
    ['a workspace key -> NOT_FOUND', { ...base, id: 'key_ws', type: 'workspace_key', scopes: ['admin'] }, notFound],
    ['a storefront key -> NOT_FOUND', { ...base, id: 'sfk_1', type: 'storefront_key', storefrontId: 'sf_1' }, notFound],
    ['a valid product key -> VALID with its binding', productKey, found(true, 'VALID', null)],
    [
      'a rotated key within its grace period -> VALID with expiresAt',
      { ...productKey, status: 'ROTATED', expiresAt: now + 1000 },
      found(true, 'VALID', new Date(now + 1000).toISOString()),
    ],
    [
      'a rotated key past its grace period -> EXPIRED',
      { ...productKey, status: 'ROTATED', expiresAt: now },
      found(false, 'EXPIRED', new Date(now).toISOString()),
    ],
    ['a revoked product key -> REVOKED', { ...productKey, status: 'REVOKED' }, found(false, 'REVOKED', null)],
    [
      'a live access token -> VALID with its expiry',
      { ...productKey, id: 'cid_1', type: 'access_token', expiresAt: now + 3_600_000 },
      found(true, 'VALID', new Date(now + 3_600_000).toISOString(), { id: 'cid_1' }),
    ],
  ];
  for (const [name, c, expected] of cases) {
    it(name, () => {
      assert.deepEqual(verificationOf(c, tenant, now), expected);
    });
  }
});

describe('newBearerKey', () => {
  for (const env of ['test', 'live'] as const) {
    it(`sk_${env}_ plus 32 lowercase hex, 40 characters, stored only as its SHA-256`, () => {
      const k = newBearerKey(env);
      assert.equal(k.plaintext.length, 40);
      assert.match(k.plaintext, new RegExp(`^sk_${env}_[0-9a-f]{32}$`));
      assert.deepEqual(parseSecret(k.plaintext), { kind: 'secret_key', environment: env });
      assert.equal(k.hash, sha256Hex(k.plaintext));
      assert.equal(k.hint, k.plaintext.slice(-4));
    });
  }
  it('never repeats', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => newBearerKey('test').plaintext));
    assert.equal(seen.size, 1000);
  });
});
