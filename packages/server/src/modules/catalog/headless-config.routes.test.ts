import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { etagMatches, toHeadlessConfig, type StorefrontView } from './headless-config.js';
import type { StorefrontDisplay } from './storefront.js';
import { createStorefront } from './create-storefront.js';
import { publishStorefront } from './publish-storefront.js';
import { createStorefrontKey } from '../storefront-keys/create-storefront-key.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const URL = '/api/v1/portal/headless/config';

interface Shop {
  ws: TenantHandle;
  admin: Client;
  planId: string;
  otherPlanId: string;
  offeringId: string;
  otherOfferingId: string;
  storefrontId: string;
  key: string;
  /** GET the configuration with the storefront key (plus extra headers). */
  read(headers?: Record<string, string>, query?: string): ReturnType<Client['get']>;
}

async function ok(p: ReturnType<Client['get']>) {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A workspace with two plans, two offerings, a published storefront showing one of each, and its key. */
async function shop(): Promise<Shop> {
  const ws = await t.seed.workspace();
  const admin = t.seed.client(ws.test.secretKey);
  for (const name of ['tokens', 'api_calls', 'seats']) await ok(admin.post('/api/v1/metrics', { name }));
  const product = await t.seed.product(ws.test);
  const plan = await ok(
    admin.post('/api/v1/rate-plans', {
      name: 'Usage',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [
        {
          metricName: 'tokens',
          pricingModel: 'GRADUATED',
          tiers: [
            { tierStart: 0, tierEnd: 1000, unitPrice: '0.002' },
            { tierStart: 1000, tierEnd: null, unitPrice: '0.0015', flatFee: '5' },
          ],
        },
        { metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.01', includedFree: 100, toolMultipliers: { search: '2' } },
      ],
    }),
  );
  const otherPlan = await ok(
    admin.post('/api/v1/rate-plans', {
      name: 'Seats',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [{ metricName: 'seats', pricingModel: 'PER_UNIT', rate: '10' }],
    }),
  );
  const offering = await ok(
    admin.post('/api/v1/offerings', {
      productId: product.id,
      name: 'Pro',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      entryPrice: '49.00',
      trialDays: 14,
      ratePlanIds: [plan.id],
      overrides: [{ ratePlanId: plan.id, metricName: 'api_calls', includedFree: 500 }],
    }),
  );
  const otherOffering = await ok(
    admin.post('/api/v1/offerings', { productId: product.id, name: 'Team', currency: 'USD', billingPeriod: 'MONTHLY', ratePlanIds: [otherPlan.id] }),
  );
  const storefront = await ok(admin.post('/api/v1/storefronts', { name: 'Website', offeringIds: [offering.id] }));
  await ok(admin.post(`/api/v1/storefronts/${storefront.id}/publish`));
  const key = (await ok(admin.post('/api/v1/storefront-keys', { name: 'site', storefrontId: storefront.id }))).fullToken as string;
  return {
    ws,
    admin,
    planId: plan.id,
    otherPlanId: otherPlan.id,
    offeringId: offering.id,
    otherOfferingId: otherOffering.id,
    storefrontId: storefront.id,
    key,
    read: (headers = {}, query = '') => t.seed.client(null).get(`${URL}${query}`, { 'x-storefront-key': key, accept: 'application/json', ...headers }),
  };
}

describe('GET /api/v1/portal/headless/config', () => {
  it('200 returns schemaVersion v1, the offerings and every plan they reference, in the spec’s fields plus the documented display additions', async () => {
    const s = await shop();
    const res = await s.read();
    assert.equal(res.status, 200);
    const c = res.body;
    assert.equal(c.schemaVersion, 'v1');
    // The spec's four, plus theme (a Tollgate addition, documented in the schema).
    assert.deepEqual(Object.keys(c).sort(), ['etag', 'offerings', 'ratePlans', 'schemaVersion', 'theme']);
    assert.deepEqual(c.theme, {});
    assert.deepEqual(c.offerings, [
      {
        id: s.offeringId,
        name: 'Pro',
        billingMode: 'POSTPAID',
        currency: 'USD',
        entryPrice: '49.00',
        billingPeriod: 'MONTHLY',
        trialDays: 14,
        ratePlanIds: [s.planId],
        highlighted: false,
        callToAction: null,
      },
    ]);
    assert.equal(c.ratePlans.length, 1);
    const plan = c.ratePlans[0];
    assert.deepEqual(Object.keys(plan).sort(), ['billingPeriod', 'currency', 'id', 'includedFree', 'metrics', 'name', 'pricingModel', 'rate', 'tiers']);
    assert.deepEqual(
      plan.metrics.map((m: { metricName: string }) => m.metricName),
      ['tokens', 'api_calls'],
    );
    for (const m of plan.metrics) {
      assert.deepEqual(Object.keys(m).sort(), [
        'blockSize',
        'includedFree',
        'metricDisplayName',
        'metricId',
        'metricName',
        'metricUnit',
        'minFee',
        'outcomeWeights',
        'pricingModel',
        'rate',
        'tiers',
      ]);
      assert.match(m.metricId, /^mtr_/);
    }
    // Tier prices are JSON numbers (spec: Tier), exact.
    assert.deepEqual(plan.metrics[0].tiers, [
      { tierStart: 0, tierEnd: 1000, unitPrice: 0.002, flatFee: null },
      { tierStart: 1000, tierEnd: null, unitPrice: 0.0015, flatFee: 5 },
    ]);
    assert.ok(res.raw.body.includes('"unitPrice":0.0015'), 'the number is written as the decimal it is');
  });

  it('200 the plan-level pricingModel, rate, includedFree and tiers repeat the FIRST unit only', async () => {
    const s = await shop();
    const plan = (await s.read()).body.ratePlans[0];
    const first = plan.metrics[0];
    assert.equal(plan.pricingModel, 'GRADUATED');
    assert.equal(plan.pricingModel, first.pricingModel);
    assert.equal(plan.rate, '0');
    assert.equal(plan.includedFree, 0);
    assert.deepEqual(plan.tiers, first.tiers);
  });

  it('200 omits multipliers and offering overrides (rating only) and applies no override', async () => {
    const s = await shop();
    const res = await s.read();
    for (const word of ['multiplier', 'Multiplier', 'override', 'search']) assert.ok(!res.raw.body.includes(word), `no ${word} in the configuration`);
    const apiCalls = res.body.ratePlans[0].metrics[1];
    assert.equal(apiCalls.includedFree, 100, "the plan's own free units, not the offering's 500");
  });

  it('200 sends ETag (equal to the body etag), Cache-Control: private, max-age=60 and Vary: X-Storefront-Key', async () => {
    const s = await shop();
    const res = await s.read();
    assert.match(res.body.etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(res.headers.etag, res.body.etag);
    assert.equal(res.headers['cache-control'], 'private, max-age=60');
    assert.equal(res.headers.vary, 'X-Storefront-Key');
    assert.equal(res.headers['access-control-allow-origin'], '*');
  });

  it('304 with If-None-Match carrying the current etag (quoted, bare, weak or in a list), with the same headers and no body', async () => {
    const s = await shop();
    const { etag } = (await s.read()).body;
    for (const inm of [etag, etag.replace(/"/g, ''), `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await s.read({ 'if-none-match': inm });
      assert.equal(res.status, 304, inm);
      assert.equal(res.raw.body, '');
      assert.equal(res.headers.etag, etag);
      assert.equal(res.headers['cache-control'], 'private, max-age=60');
      assert.equal(res.headers.vary, 'X-Storefront-Key');
    }
    assert.equal((await s.read({ 'if-none-match': '"stale"' })).status, 200);
  });

  it('the etag is stable while nothing changes, and changes on publish even with the same offerings', async () => {
    const s = await shop();
    const first = (await s.read()).body.etag;
    t.clock.advance(60_000);
    assert.equal((await s.read()).body.etag, first, 'same content, same etag');
    await ok(s.admin.post(`/api/v1/storefronts/${s.storefrontId}/publish`));
    const republished = (await s.read()).body.etag;
    assert.notEqual(republished, first);
  });

  it('the etag changes when an offering or a rate plan in the storefront changes, and only then', async () => {
    const s = await shop();
    const etag = async () => (await s.read()).body.etag as string;
    const e0 = await etag();
    // Not in the storefront: no change.
    await ok(s.admin.patch(`/api/v1/offerings/${s.otherOfferingId}`, { name: 'Team plus' }));
    await ok(s.admin.patch(`/api/v1/rate-plans/${s.otherPlanId}`, { name: 'Seats 2' }));
    // Draft only: no change until published.
    await ok(s.admin.patch(`/api/v1/storefronts/${s.storefrontId}`, { offeringIds: [s.offeringId, s.otherOfferingId] }));
    assert.equal(await etag(), e0);
    // Rating-only data (overrides) is not published: no change.
    await ok(s.admin.patch(`/api/v1/offerings/${s.offeringId}`, { overrides: [] }));
    assert.equal(await etag(), e0);
    // In the storefront: changes.
    await ok(s.admin.patch(`/api/v1/offerings/${s.offeringId}`, { entryPrice: '59' }));
    const e1 = await etag();
    assert.notEqual(e1, e0);
    await ok(s.admin.patch(`/api/v1/rate-plans/${s.planId}`, { name: 'Usage 2' }));
    const e2 = await etag();
    assert.notEqual(e2, e1);
    assert.equal((await s.read()).body.ratePlans[0].name, 'Usage 2');
  });

  it('200 preview=true returns the unpublished draft to an operator (storefront key plus an admin workspace key)', async () => {
    const s = await shop();
    await ok(s.admin.patch(`/api/v1/storefronts/${s.storefrontId}`, { offeringIds: [s.otherOfferingId, s.offeringId] }));
    const published = await s.read();
    assert.deepEqual(
      published.body.offerings.map((o: { id: string }) => o.id),
      [s.offeringId],
    );
    const preview = await s.read({ authorization: `Bearer ${s.ws.test.secretKey}` }, '?preview=true');
    assert.equal(preview.status, 200);
    assert.deepEqual(
      preview.body.offerings.map((o: { id: string }) => o.id),
      [s.otherOfferingId, s.offeringId],
    );
    assert.deepEqual(
      preview.body.ratePlans.map((p: { id: string }) => p.id),
      [s.otherPlanId, s.planId],
    );
    assert.notEqual(preview.body.etag, published.body.etag);
  });

  it('401 for preview=true without operator access, 403 with a key of too little scope or of another workspace', async () => {
    const s = await shop();
    const none = await s.read({}, '?preview=true');
    assert.equal(none.status, 401);
    assert.match(none.body.errors[0].message, /admin scope/);
    const bogus = await s.read({ authorization: 'Bearer sk_test_00000000000000000000000000000000' }, '?preview=true');
    assert.equal(bogus.status, 401);
    const ingest = await t.seed.workspaceKey(s.ws.test, ['ingest']);
    const weak = await s.read({ authorization: `Bearer ${ingest.token}` }, '?preview=true');
    assert.equal(weak.status, 403);
    const stranger = await t.seed.workspace();
    const foreign = await s.read({ authorization: `Bearer ${stranger.test.secretKey}` }, '?preview=true');
    assert.equal(foreign.status, 403);
    const otherEnv = await s.read({ authorization: `Bearer ${s.ws.live.secretKey}` }, '?preview=true');
    assert.equal(otherEnv.status, 403);
  });

  it('200 a rate plan that cannot be read is omitted without an error; its id stays in ratePlanIds', async () => {
    const s = await shop();
    await t.deps.db.updateTable('ratePlans').set({ metrics: '{not json' }).where('id', '=', s.planId).execute();
    const res = await s.read();
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.offerings[0].ratePlanIds, [s.planId]);
    assert.deepEqual(res.body.ratePlans, []);
  });

  it('401 without X-Storefront-Key, with an unknown key, with a revoked key, and with a secret key in its place', async () => {
    const s = await shop();
    const anon = t.seed.client(null);
    const missing = await anon.get(URL);
    assert.equal(missing.status, 401);
    assert.match(missing.body.errors[0].message, /X-Storefront-Key/);
    assert.equal((await anon.get(URL, { 'x-storefront-key': 'pk_test_0123456789abcdef0123456789abcdef' })).status, 401);
    assert.equal((await anon.get(URL, { 'x-storefront-key': s.ws.test.secretKey })).status, 401);
    const keys = await s.admin.get('/api/v1/storefront-keys');
    await ok(s.admin.delete(`/api/v1/storefront-keys/${keys.body.data[0].id}`));
    assert.equal((await s.read()).status, 401);
  });

  it('404 while the storefront has never been published, naming how to publish or preview', async () => {
    const s = await shop();
    const draft = await ok(s.admin.post('/api/v1/storefronts', { name: 'Soon', offeringIds: [s.offeringId] }));
    const key = (await ok(s.admin.post('/api/v1/storefront-keys', { name: 'soon', storefrontId: draft.id }))).fullToken;
    const res = await t.seed.client(null).get(URL, { 'x-storefront-key': key });
    assert.equal(res.status, 404);
    assert.match(res.body.errors[0].message, /publish/);
    const preview = await t.seed.client(null).get(`${URL}?preview=true`, { 'x-storefront-key': key, authorization: `Bearer ${s.ws.test.secretKey}` });
    assert.equal(preview.status, 200);
    assert.equal(preview.body.offerings[0].id, s.offeringId);
  });

  it('400 names an unknown query parameter', async () => {
    const s = await shop();
    const res = await s.read({}, '?preveiw=true');
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(res.body.errors), /preveiw/);
  });

  it('204 answers the CORS preflight of a browser on the seller’s site', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: URL, headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-allow-headers']), /X-Storefront-Key/);
    assert.match(String(res.headers['access-control-allow-headers']), /If-None-Match/);
  });
});

describe('GET /api/v1/portal/headless/config rate limit', () => {
  it('429 per storefront key: one key over its limit does not slow another', async () => {
    const limited = await createTestApp({ config: { rateLimitPerMinute: 3 } });
    try {
      // Set up through the operations: the workspace's own API limit is 3 here too.
      const ws = await limited.seed.workspace();
      const sf = await createStorefront(limited.deps, ws.test.ctx, { name: 'A' });
      await publishStorefront(limited.deps, ws.test.ctx, sf.id);
      const a = (await createStorefrontKey(limited.deps, ws.test.ctx, { name: 'a', storefrontId: sf.id })).fullToken;
      const b = (await createStorefrontKey(limited.deps, ws.test.ctx, { name: 'b', storefrontId: sf.id })).fullToken;
      const anon = limited.seed.client(null);
      for (let i = 0; i < 3; i++) assert.equal((await anon.get(URL, { 'x-storefront-key': a })).status, 200);
      const over = await anon.get(URL, { 'x-storefront-key': a });
      assert.equal(over.status, 429);
      assert.equal(over.headers['x-ratelimit-remaining'], '0');
      assert.ok(Number(over.headers['retry-after']) > 0);
      assert.match(over.body.errors[0].message, /per storefront key/);
      assert.equal((await anon.get(URL, { 'x-storefront-key': b })).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('catalog.etagMatches', () => {
  const etag = '"abc"';
  const cases: Array<[string, string | undefined, boolean]> = [
    ['no header', undefined, false],
    ['the same quoted tag', '"abc"', true],
    ['the bare tag, as copied from the body by hand', 'abc', true],
    ['a weak tag compares weakly', 'W/"abc"', true],
    ['a list containing it', '"x", "abc"', true],
    ['*', '*', true],
    ['another tag', '"abd"', false],
    ['a prefix of it', '"ab"', false],
  ];
  for (const [rule, header, expected] of cases) it(rule, () => assert.equal(etagMatches(header, etag), expected));
});

describe('GET /api/v1/portal/headless/config: display settings and metric labels', () => {
  const THEME = { accentColor: '#4f46e5', backgroundColor: '#f5f3ff', fontFamily: 'Inter', logoUrl: 'https://shop.example.com/logo.svg' };
  const CTA = { label: 'Start free trial', url: 'https://shop.example.com/signup?offering=pro' };

  /** The shop with its metrics named for people: tokens "Tokens" / "token", api_calls without. */
  async function labelledShop(): Promise<Shop> {
    const s = await shop();
    const metrics = (await ok(s.admin.get('/api/v1/metrics?limit=100'))).data as Array<{ id: string; name: string }>;
    const tokens = metrics.find((m) => m.name === 'tokens')!;
    await ok(s.admin.patch(`/api/v1/metrics/${tokens.id}`, { displayName: 'Tokens', unit: 'token' }));
    return s;
  }
  const preview = (s: Shop) => s.read({ authorization: `Bearer ${s.ws.test.secretKey}` }, '?preview=true');
  const displayOf = (c: { offerings: Array<{ id: string; highlighted: boolean; callToAction: unknown }>; theme: unknown }) => ({
    offerings: c.offerings.map((o) => ({ id: o.id, highlighted: o.highlighted, callToAction: o.callToAction })),
    theme: c.theme,
  });

  it("200 each unit carries its metric's metricDisplayName and metricUnit, null where the metric has none", async () => {
    const s = await labelledShop();
    for (const c of [(await s.read()).body, (await preview(s)).body]) {
      const units = c.ratePlans[0].metrics.map((m: Record<string, unknown>) => [m.metricName, m.metricDisplayName, m.metricUnit]);
      assert.deepEqual(units, [
        ['tokens', 'Tokens', 'token'],
        ['api_calls', null, null],
      ]);
    }
  });

  it('200 published shows highlighted, callToAction and theme once published; preview=true shows the draft before', async () => {
    const s = await labelledShop();
    await ok(
      s.admin.patch(`/api/v1/storefronts/${s.storefrontId}`, {
        offeringDisplay: [{ offeringId: s.offeringId, highlighted: true, callToAction: CTA }],
        theme: THEME,
      }),
    );
    const draft = { offerings: [{ id: s.offeringId, highlighted: true, callToAction: CTA }], theme: THEME };
    assert.deepEqual(
      displayOf((await s.read()).body),
      { offerings: [{ id: s.offeringId, highlighted: false, callToAction: null }], theme: {} },
      'not yet published',
    );
    assert.deepEqual(displayOf((await preview(s)).body), draft);
    await ok(s.admin.post(`/api/v1/storefronts/${s.storefrontId}/publish`));
    assert.deepEqual(displayOf((await s.read()).body), draft);
    assert.deepEqual(displayOf((await preview(s)).body), draft);
  });

  it('the etag changes when display settings are published, not when they are only drafted', async () => {
    const s = await labelledShop();
    const etag = async () => (await s.read()).body.etag as string;
    await ok(s.admin.post(`/api/v1/storefronts/${s.storefrontId}/publish`));
    const e0 = await etag();
    const previewed = (await preview(s)).body.etag;
    await ok(s.admin.patch(`/api/v1/storefronts/${s.storefrontId}`, { offeringDisplay: [{ offeringId: s.offeringId, callToAction: CTA }] }));
    assert.equal(await etag(), e0, 'a draft changes nothing that storefront keys read');
    assert.notEqual((await preview(s)).body.etag, previewed, "the preview's etag follows the draft");
    await ok(s.admin.post(`/api/v1/storefronts/${s.storefrontId}/publish`));
    const e1 = await etag();
    assert.notEqual(e1, e0, 'a call to action');
    await ok(s.admin.patch(`/api/v1/storefronts/${s.storefrontId}`, { theme: { accentColor: '#0f766e' } }));
    await ok(s.admin.post(`/api/v1/storefronts/${s.storefrontId}/publish`));
    const e2 = await etag();
    assert.notEqual(e2, e1, 'a theme');
    await ok(s.admin.patch(`/api/v1/storefronts/${s.storefrontId}`, { offeringDisplay: [{ offeringId: s.offeringId, callToAction: CTA, highlighted: true }] }));
    await ok(s.admin.post(`/api/v1/storefronts/${s.storefrontId}/publish`));
    assert.notEqual(await etag(), e2, 'a highlight');
  });

  it('for one revision, each display setting is in the etag (a publish alone changes the revision)', () => {
    const view: StorefrontView = {
      offerings: [
        { id: 'off_1', name: 'Pro', billingMode: 'POSTPAID', currency: 'USD', entryPrice: '49', billingPeriod: 'MONTHLY', trialDays: 0, ratePlanIds: [] },
      ],
      ratePlans: [],
    };
    const plain = { offeringId: 'off_1', highlighted: false, callToAction: null };
    const cases: Array<[string, StorefrontDisplay]> = [
      ['none', { offerings: [], theme: {} }],
      ['highlighted', { offerings: [{ ...plain, highlighted: true }], theme: {} }],
      ['a call to action', { offerings: [{ ...plain, callToAction: CTA }], theme: {} }],
      ['another call-to-action URL', { offerings: [{ ...plain, callToAction: { ...CTA, url: 'https://shop.example.com/other' } }], theme: {} }],
      ['an accent colour', { offerings: [], theme: { accentColor: '#0f766e' } }],
      ['a logo', { offerings: [], theme: { logoUrl: THEME.logoUrl } }],
    ];
    const etags = cases.map(([, display]) => toHeadlessConfig('sf_1', '3', view, display).etag);
    assert.equal(new Set(etags).size, cases.length, JSON.stringify(cases.map(([name], i) => [name, etags[i]])));
    assert.equal(toHeadlessConfig('sf_1', '3', view, cases[1]![1]).etag, etags[1], 'the same settings, the same etag');
  });
});
