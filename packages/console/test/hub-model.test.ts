import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { contrast } from '@tollgate/pricing';
import { accentColors, expiredText, graceText, hubViewOf, linkTokenOf, remainingText, sellerName, subscriptionLabel } from '../src/hub/model.js';
import { monthsAgo } from '../src/hub/usage.js';

const HEX = 'a'.repeat(64);

describe('linkTokenOf: the single-use link token from the fragment', () => {
  const cases: Array<[string, string | null]> = [
    [`#hbl_test_${HEX}`, `hbl_test_${HEX}`],
    [`#hbl_live_${HEX}`, `hbl_live_${HEX}`],
    ['', null],
    ['#', null],
    [`hbl_test_${HEX}`, null],
    [`#tgi_${HEX}`, null],
    [`#hbl_test_${HEX}&x=1`, null],
    [`#hbl_${'a'.repeat(300)}`, null],
  ];
  for (const [hash, want] of cases) it(`${hash.slice(0, 20)}… -> ${String(want).slice(0, 12)}`, () => assert.equal(linkTokenOf(hash), want));
});

describe('hubViewOf: the view a path shows', () => {
  const cases: Array<[string, string | null]> = [
    ['/hub', 'keys'],
    ['/hub/', 'keys'],
    ['/hub/usage', 'usage'],
    ['/hub/usage/', 'usage'],
    ['/hub/subscription', 'subscription'],
    ['/hub/billing', 'billing'],
    ['/hub/nope', null],
    ['/console', null],
  ];
  for (const [path, want] of cases) it(`${path} -> ${String(want)}`, () => assert.equal(hubViewOf(path), want));
});

describe('sellerName and expiredText: whom an expired link sends the customer back to', () => {
  const cases: Array<[Parameters<typeof sellerName>[0], string]> = [
    [{ title: 'Acme developers', returnUrl: 'https://shop.example.com/account' }, 'This link has expired: ask shop.example.com for a new one.'],
    [{ title: 'Acme developers', returnUrl: null }, 'This link has expired: ask Acme developers for a new one.'],
    [{ title: null, returnUrl: 'not a url' }, 'This link has expired: ask the site that sent you here for a new one.'],
    [null, 'This link has expired: ask the site that sent you here for a new one.'],
  ];
  for (const [seller, want] of cases) it(want, () => assert.equal(expiredText(seller), want));
});

describe("accentColors: the seller's accent, legible (WCAG AA)", () => {
  const cases: Array<[string | undefined, ReturnType<typeof accentColors>]> = [
    ['#4F46E5', { accent: '#4f46e5', accentText: '#ffffff', link: '#4f46e5' }],
    // Too light for white text or for links on white: dark text on it, the default blue for links.
    ['#fde047', { accent: '#fde047', accentText: '#111111', link: '#1d4ed8' }],
    ['#000000', { accent: '#000000', accentText: '#ffffff', link: '#000000' }],
    [undefined, null],
    ['red', null],
    ['#12345', null],
  ];
  for (const [accent, want] of cases) it(`${String(accent)}`, () => assert.deepEqual(accentColors(accent), want));
  it('every pair it gives reads at 4.5:1 or better', () => {
    for (const hex of ['#4f46e5', '#fde047', '#0f766e', '#ff0000', '#808080', '#ffffff']) {
      const c = accentColors(hex)!;
      assert.ok(contrast(c.accent, c.accentText) >= 4.5, hex);
      assert.ok(contrast(c.link, '#ffffff') >= 4.5, hex);
    }
  });
});

describe('graceText and remainingText', () => {
  const now = Date.parse('2026-04-16T09:30:00.000Z');
  const cases: Array<[string | null, string]> = [
    ['2026-04-16T09:35:00.000Z', 'Works until 2026-04-16 09:35 UTC (5 min left)'],
    ['2026-04-16T09:30:01.000Z', 'Works until 2026-04-16 09:30 UTC (1 min left)'],
    ['2026-04-16T09:30:00.000Z', 'Grace period over'],
    [null, 'Grace period over'],
  ];
  for (const [at, want] of cases) it(`${String(at)} -> ${want}`, () => assert.equal(graceText(at, now), want));
  it('remaining units', () => {
    assert.equal(remainingText(1234567, false), '1,234,567');
    assert.equal(remainingText(0, false), '0');
    assert.equal(remainingText(9007199254740991, true), 'Unlimited');
  });
  it('monthsAgo: the first of a month, in UTC, across a year', () => {
    assert.equal(monthsAgo(new Date('2026-02-15T12:00:00Z'), 5), '2025-09-01T00:00:00.000Z');
    assert.equal(monthsAgo(new Date('2026-12-31T23:59:59Z'), -1), '2027-01-01T00:00:00.000Z');
  });
});

describe("subscriptionLabel: the Create key form's choice", () => {
  const sub = (id: string, productId: string, status = 'ACTIVE') => ({ id, productId, status });
  const cases: Array<[string, ReturnType<typeof sub>, Array<ReturnType<typeof sub>>, string]> = [
    ['the only one', sub('sub_1', 'prod_a'), [sub('sub_1', 'prod_a')], 'prod_a (active)'],
    ['a status in words', sub('sub_1', 'prod_a', 'PAST_DUE'), [sub('sub_1', 'prod_a', 'PAST_DUE')], 'prod_a (past due)'],
    ['other products', sub('sub_1', 'prod_a'), [sub('sub_1', 'prod_a'), sub('sub_2', 'prod_b')], 'prod_a (active)'],
    ['the same product twice: the id tells them apart', sub('sub_1', 'prod_a'), [sub('sub_1', 'prod_a'), sub('sub_2', 'prod_a')], 'prod_a (active) · sub_1'],
  ];
  for (const [name, one, all, want] of cases) it(name, () => assert.equal(subscriptionLabel(one, all), want));
});
