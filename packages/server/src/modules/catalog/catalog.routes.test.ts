import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, Response, TenantHandle } from '../../../test/helpers/seed.js';
import { ok, rejects } from '../../../test/helpers/expect.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
/** Metric ids of ws.test by name. */
const metric: Record<string, string> = {};

const METRICS = ['api_calls', 'tokens', 'seats', 'agent_runs', 'payment_volume', 'priority_support', 'storage_gb', 'emails'];

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  for (const name of METRICS) metric[name] = (await ok(api.post('/api/v1/metrics', { name }))).id;
});
after(() => t.close());

const ids = (res: Response) => (res.body.data as { id: string }[]).map((x) => x.id);
const now = () => new Date(t.clock.now()).toISOString();

/** The normalised unit with every default, as the operator API shows it. */
function unitOut(name: string, fields: Record<string, unknown>) {
  return {
    metricId: metric[name],
    metricName: name,
    rate: '0',
    includedFree: 0,
    blockSize: null,
    minFee: null,
    tiers: [],
    outcomeWeights: null,
    toolMultipliers: {},
    endpointMultipliers: {},
    ...fields,
  };
}

const planBody = (metrics: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'Usage', currency: 'USD', billingPeriod: 'MONTHLY', metrics, ...extra });
const createPlan = (c: Client, metrics: unknown[], extra: Record<string, unknown> = {}) => ok(c.post('/api/v1/rate-plans', planBody(metrics, extra)));

/** Creates a plan with one unit and returns that unit as shown, checking GET shows the same plan. */
async function oneUnit(unit: Record<string, unknown>, currency = 'USD') {
  const plan = await createPlan(api, [unit], { currency });
  assert.equal(plan.metrics.length, 1);
  assert.deepEqual((await api.get(`/api/v1/rate-plans/${plan.id}`)).body, plan);
  return plan.metrics[0];
}

const open = (tierStart: number, fields: Record<string, unknown>) => ({ tierStart, tierEnd: null, ...fields });
const band = (tierStart: number, tierEnd: number, fields: Record<string, unknown>) => ({ tierStart, tierEnd, ...fields });
const graduated = (tiers: unknown[]) => ({ metricName: 'tokens', pricingModel: 'GRADUATED', tiers });
const perUnit = (name = 'api_calls', fields: Record<string, unknown> = {}) => ({ metricName: name, pricingModel: 'PER_UNIT', rate: '0.01', ...fields });

describe('POST /api/v1/rate-plans', () => {
  it('200 creates a plan: plan_ id, object rate_plan, version 1, the given name, currency and period', async () => {
    const res = await api.post('/api/v1/rate-plans', planBody([perUnit()], { name: 'Starter usage', billingPeriod: 'ANNUAL', metadata: { tier: 'starter' } }));
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^plan_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'rate_plan');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.name, 'Starter usage');
    assert.equal(res.body.currency, 'USD');
    assert.equal(res.body.billingPeriod, 'ANNUAL');
    assert.deepEqual(res.body.metadata, { tier: 'starter' });
    assert.equal(res.body.version, 1);
    assert.equal(res.body.createdAt, now());
    assert.equal(res.body.updatedAt, res.body.createdAt);
    assert.deepEqual(res.body.metrics, [unitOut('api_calls', { pricingModel: 'PER_UNIT', rate: '0.01' })]);
  });

  it('200 accepts a plan with no units and defaults metadata to {}', async () => {
    const plan = await createPlan(api, []);
    assert.deepEqual(plan.metrics, []);
    assert.deepEqual(plan.metadata, {});
  });

  it('200 PER_UNIT: canonical rate and minFee, includedFree kept, multipliers shown as toolMultipliers/endpointMultipliers', async () => {
    const u = await oneUnit({
      metricName: 'api_calls',
      pricingModel: 'PER_UNIT',
      rate: '0.0020',
      includedFree: 1000,
      minFee: '5.00',
      toolMultipliers: { web_search: '2.50' },
      endpointMultipliers: { '/v1/search': '0.5' },
    });
    assert.deepEqual(
      u,
      unitOut('api_calls', {
        pricingModel: 'PER_UNIT',
        rate: '0.002',
        includedFree: 1000,
        minFee: '5',
        toolMultipliers: { web_search: '2.5' },
        endpointMultipliers: { '/v1/search': '0.5' },
      }),
    );
    assert.equal('multipliers' in u, false);
  });

  it('200 FLAT_RATE: the fee as rate, includedFree 0 when omitted, tiers []', async () => {
    const u = await oneUnit({ metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '25.00' });
    assert.deepEqual(u, unitOut('priority_support', { pricingModel: 'FLAT_RATE', rate: '25' }));
  });

  it('200 PERCENTAGE: the percent as rate', async () => {
    const u = await oneUnit({ metricName: 'payment_volume', pricingModel: 'PERCENTAGE', rate: '2.90' });
    assert.deepEqual(u, unitOut('payment_volume', { pricingModel: 'PERCENTAGE', rate: '2.9' }));
  });

  it('200 INCLUDED_QUOTA: rate per block, includedFree and blockSize kept', async () => {
    const u = await oneUnit({ metricName: 'api_calls', pricingModel: 'INCLUDED_QUOTA', rate: '1.50', includedFree: 100000, blockSize: 1000 });
    assert.deepEqual(u, unitOut('api_calls', { pricingModel: 'INCLUDED_QUOTA', rate: '1.5', includedFree: 100000, blockSize: 1000 }));
  });

  it('200 GRADUATED: rate "0", tiers normalised (flatFee null when absent)', async () => {
    const u = await oneUnit(graduated([band(0, 100000, { unitPrice: '0.000020' }), open(100000, { unitPrice: '0.000015', flatFee: '5.00' })]));
    assert.deepEqual(
      u,
      unitOut('tokens', {
        pricingModel: 'GRADUATED',
        rate: '0',
        tiers: [
          { tierStart: 0, tierEnd: 100000, unitPrice: '0.00002', flatFee: null },
          { tierStart: 100000, tierEnd: null, unitPrice: '0.000015', flatFee: '5' },
        ],
      }),
    );
  });

  it('200 VOLUME_TIERED: rate "0" (an explicit "0.00" too), includedFree kept', async () => {
    const u = await oneUnit({
      metricName: 'tokens',
      pricingModel: 'VOLUME_TIERED',
      rate: '0.00',
      includedFree: 500,
      tiers: [band(0, 1000000, { unitPrice: '0.000012' }), open(1000000, { unitPrice: '0.00001' })],
    });
    assert.deepEqual(
      u,
      unitOut('tokens', {
        pricingModel: 'VOLUME_TIERED',
        rate: '0',
        includedFree: 500,
        tiers: [
          { tierStart: 0, tierEnd: 1000000, unitPrice: '0.000012', flatFee: null },
          { tierStart: 1000000, tierEnd: null, unitPrice: '0.00001', flatFee: null },
        ],
      }),
    );
  });

  it('200 STAIRCASE: rate "0", unitPrice null on every band', async () => {
    const u = await oneUnit({
      metricName: 'seats',
      pricingModel: 'STAIRCASE',
      tiers: [band(0, 5, { flatFee: '0' }), band(5, 20, { flatFee: '40.00' }), open(20, { flatFee: '100' })],
    });
    assert.deepEqual(
      u,
      unitOut('seats', {
        pricingModel: 'STAIRCASE',
        rate: '0',
        tiers: [
          { tierStart: 0, tierEnd: 5, unitPrice: null, flatFee: '0' },
          { tierStart: 5, tierEnd: 20, unitPrice: null, flatFee: '40' },
          { tierStart: 20, tierEnd: null, unitPrice: null, flatFee: '100' },
        ],
      }),
    );
  });

  it('200 OUTCOME_BASED: outcomeWeights kept (the only model where they are not null)', async () => {
    const u = await oneUnit({
      metricName: 'agent_runs',
      pricingModel: 'OUTCOME_BASED',
      rate: '0.050',
      includedFree: 100,
      minFee: '10',
      outcomeWeights: { SUCCESS: 1, PARTIAL: 0.5, ERROR: 0 },
      toolMultipliers: { web_search: '2' },
    });
    assert.deepEqual(
      u,
      unitOut('agent_runs', {
        pricingModel: 'OUTCOME_BASED',
        rate: '0.05',
        includedFree: 100,
        minFee: '10',
        outcomeWeights: { SUCCESS: 1, PARTIAL: 0.5, ERROR: 0 },
        toolMultipliers: { web_search: '2' },
      }),
    );
  });

  it('200 all eight models on one plan, in the order sent', async () => {
    const plan = await createPlan(api, [
      perUnit('api_calls'),
      { metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '25' },
      { metricName: 'payment_volume', pricingModel: 'PERCENTAGE', rate: '2.9' },
      { metricName: 'emails', pricingModel: 'INCLUDED_QUOTA', rate: '1', includedFree: 10, blockSize: 5 },
      graduated([open(0, { unitPrice: '0.1' })]),
      { metricName: 'storage_gb', pricingModel: 'VOLUME_TIERED', tiers: [open(0, { unitPrice: '0.1' })] },
      { metricName: 'seats', pricingModel: 'STAIRCASE', tiers: [open(0, { flatFee: '10' })] },
      { metricName: 'agent_runs', pricingModel: 'OUTCOME_BASED', rate: '0.05', outcomeWeights: { ERROR: 0 } },
    ]);
    assert.deepEqual(
      plan.metrics.map((u: { pricingModel: string; rate: string; outcomeWeights: unknown }) => [u.pricingModel, u.rate, u.outcomeWeights]),
      [
        ['PER_UNIT', '0.01', null],
        ['FLAT_RATE', '25', null],
        ['PERCENTAGE', '2.9', null],
        ['INCLUDED_QUOTA', '1', null],
        ['GRADUATED', '0', null],
        ['VOLUME_TIERED', '0', null],
        ['STAIRCASE', '0', null],
        ['OUTCOME_BASED', '0.05', { ERROR: 0 }],
      ],
    );
    assert.deepEqual((await api.get(`/api/v1/rate-plans/${plan.id}`)).body, plan);
  });

  it('200 a unit named by metricId gets its metricName, one named by metricName gets its metricId', async () => {
    const plan = await createPlan(api, [
      { metricId: metric.api_calls, pricingModel: 'PER_UNIT', rate: '0.01' },
      { metricName: 'seats', pricingModel: 'PER_UNIT', rate: '10' },
      { metricId: metric.tokens, metricName: 'tokens', pricingModel: 'PER_UNIT', rate: '0.001' },
    ]);
    assert.deepEqual(
      plan.metrics.map((u: { metricId: string; metricName: string }) => [u.metricId, u.metricName]),
      [
        [metric.api_calls, 'api_calls'],
        [metric.seats, 'seats'],
        [metric.tokens, 'tokens'],
      ],
    );
  });

  it('200 replays the first response for the same Idempotency-Key, creating one plan', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    await ok(c.post('/api/v1/metrics', { name: 'api_calls' }));
    const headers = { 'idempotency-key': 'create-plan-1' };
    const body = planBody([perUnit()]);
    const first = await c.post('/api/v1/rate-plans', body, headers);
    assert.equal(first.status, 200);
    t.clock.advance(1000);
    const second = await c.post('/api/v1/rate-plans', body, headers);
    assert.equal(second.status, 200);
    assert.equal(second.body.id, first.body.id);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    const rows = await t.deps.db.selectFrom('ratePlans').select('id').where('workspaceId', '=', other.workspaceId).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [first.body.id],
    );
    assert.deepEqual(ids(await c.get('/api/v1/rate-plans?limit=100')), [first.body.id]);
    const audits = await t.deps.db
      .selectFrom('auditEvents')
      .select('id')
      .where('targetId', '=', first.body.id)
      .where('eventType', '=', 'rate_plan.created')
      .execute();
    assert.equal(audits.length, 1);
  });

  it('writes an audit event rate_plan.created for the plan', async () => {
    const plan = await createPlan(api, [perUnit()], { name: 'Audited' });
    const events = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', plan.id).execute();
    assert.equal(events.length, 1);
    const [e] = events;
    assert.equal(e!.eventType, 'rate_plan.created');
    assert.equal(e!.targetType, 'rate_plan');
    assert.equal(e!.workspaceId, ws.workspaceId);
    assert.equal(e!.environment, 'test');
    assert.equal(Number(e!.createdAt), t.clock.now());
    const payload = JSON.parse(e!.payload);
    assert.equal(payload.name, 'Audited');
    assert.equal(payload.currency, 'USD');
    assert.deepEqual(payload.units, ['api_calls:PER_UNIT']);
  });

  it('400 names body.metrics.0.metricName for an unknown metric name, saying names match exactly', async () => {
    const err = await rejects(api.post('/api/v1/rate-plans', planBody([perUnit('Api_Calls')])), 'body.metrics.0.metricName');
    assert.match(err.message, /Api_Calls/);
    assert.match(err.message, /names match exactly/);
  });

  it('400 names body.metrics.0.metricId for an unknown metric id, and for a unit naming no metric', async () => {
    await rejects(api.post('/api/v1/rate-plans', planBody([{ metricId: 'mtr_nope', pricingModel: 'PER_UNIT', rate: '1' }])), 'body.metrics.0.metricId');
    await rejects(api.post('/api/v1/rate-plans', planBody([{ pricingModel: 'PER_UNIT', rate: '1' }])), 'body.metrics.0.metricId');
  });

  it('400 names body.metrics.0.metricName when metricId and metricName disagree', async () => {
    await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricId: metric.api_calls, metricName: 'tokens', pricingModel: 'PER_UNIT', rate: '1' }])),
      'body.metrics.0.metricName',
    );
  });

  it('400 for a metric of the live environment named from the test environment', async () => {
    const live = t.seed.client(ws.live.secretKey);
    const liveOnly = await ok(live.post('/api/v1/metrics', { name: 'live_only_metric' }));
    await rejects(api.post('/api/v1/rate-plans', planBody([perUnit('live_only_metric')])), 'body.metrics.0.metricName');
    await rejects(api.post('/api/v1/rate-plans', planBody([{ metricId: liveOnly.id, pricingModel: 'PER_UNIT', rate: '1' }])), 'body.metrics.0.metricId');
  });

  it('400 names body.metrics.1.metricId for a unit given twice (by name, or by id and then name)', async () => {
    const err = await rejects(api.post('/api/v1/rate-plans', planBody([perUnit('api_calls'), perUnit('api_calls')])), 'body.metrics.1.metricId');
    assert.match(err.message, /each unit appears once/);
    await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricId: metric.api_calls, pricingModel: 'PER_UNIT', rate: '1' }, perUnit('api_calls')])),
      'body.metrics.1.metricId',
    );
  });

  it('400 names body.metrics.0.tiers.1.tierStart for a gap between tiers', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([graduated([band(0, 100, { unitPrice: '1' }), open(200, { unitPrice: '0.5' })])])),
      'body.metrics.0.tiers.1.tierStart',
    );
    assert.match(err.message, /gap/);
  });

  it('400 names body.metrics.0.tiers.1.tierStart for overlapping tiers', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([graduated([band(0, 100, { unitPrice: '1' }), open(50, { unitPrice: '0.5' })])])),
      'body.metrics.0.tiers.1.tierStart',
    );
    assert.match(err.message, /overlap/);
  });

  it('400 names body.metrics.0.tiers for tiers not sorted by tierStart', async () => {
    const err = await rejects(
      api.post(
        '/api/v1/rate-plans',
        planBody([graduated([band(100, 200, { unitPrice: '1' }), band(0, 100, { unitPrice: '2' }), open(200, { unitPrice: '0.5' })])]),
      ),
      'body.metrics.0.tiers',
    );
    assert.match(err.message, /sorted/);
  });

  it('400 names body.metrics.0.tiers.1.tierEnd when the last tier is closed', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([graduated([band(0, 100, { unitPrice: '1' }), band(100, 1000, { unitPrice: '0.5' })])])),
      'body.metrics.0.tiers.1.tierEnd',
    );
    assert.match(err.message, /open-ended/);
  });

  it('400 names body.metrics.0.tiers.0.tierEnd for an open-ended tier that is not last', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([graduated([open(0, { unitPrice: '1' }), open(100, { unitPrice: '0.5' })])])),
      'body.metrics.0.tiers.0.tierEnd',
    );
    assert.match(err.message, /only the last tier/);
  });

  it('400 names body.metrics.0.tiers.0.tierStart when the first tier does not start at 0', async () => {
    await rejects(
      api.post('/api/v1/rate-plans', planBody([graduated([band(10, 100, { unitPrice: '1' }), open(100, { unitPrice: '0.5' })])])),
      'body.metrics.0.tiers.0.tierStart',
    );
  });

  it('400 names body.metrics.0.tiers for a tiered model without tiers', async () => {
    await rejects(api.post('/api/v1/rate-plans', planBody([{ metricName: 'seats', pricingModel: 'STAIRCASE' }])), 'body.metrics.0.tiers');
  });

  it('400 names body.metrics.0.rate for a PERCENTAGE rate of 150', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricName: 'payment_volume', pricingModel: 'PERCENTAGE', rate: '150' }])),
      'body.metrics.0.rate',
    );
    assert.match(err.message, /0 to 100/);
  });

  it('400 names body.metrics.0.outcomeWeights.PARTIAL for a weight of 1.5 (refused by the JSON schema)', async () => {
    await rejects(
      api.post(
        '/api/v1/rate-plans',
        planBody([{ metricName: 'agent_runs', pricingModel: 'OUTCOME_BASED', rate: '0.05', outcomeWeights: { SUCCESS: 1, PARTIAL: 1.5 } }]),
      ),
      'body.metrics.0.outcomeWeights.PARTIAL',
    );
  });

  it("400 names body.metrics.0.currency for a unit currency other than the plan's", async () => {
    const err = await rejects(api.post('/api/v1/rate-plans', planBody([perUnit('api_calls', { currency: 'EUR' })])), 'body.metrics.0.currency');
    assert.match(err.message, /a plan's units share its currency/);
    // The plan's own currency is accepted on a unit.
    await createPlan(api, [perUnit('api_calls', { currency: 'USD' })]);
  });

  it('400 names body.currency for a plan currency that is not ISO 4217 (XYZ)', async () => {
    const err = await rejects(api.post('/api/v1/rate-plans', planBody([perUnit()], { currency: 'XYZ' })), 'body.currency');
    assert.match(err.message, /XYZ/);
    assert.match(err.message, /ISO 4217/);
  });

  it('400 names body.currency for a lower-case currency (JSON schema)', async () => {
    await rejects(api.post('/api/v1/rate-plans', planBody([perUnit()], { currency: 'usd' })), 'body.currency');
  });

  it('400 names body.metrics.0.rate for a FLAT_RATE rate with 3 decimals in USD (and 1 in JPY)', async () => {
    const usd = await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '9.999' }])),
      'body.metrics.0.rate',
    );
    assert.match(usd.message, /USD/);
    await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '10.5' }], { currency: 'JPY' })),
      'body.metrics.0.rate',
    );
  });

  it('400 names body.metrics.0.blockSize for blockSize on PER_UNIT', async () => {
    const err = await rejects(api.post('/api/v1/rate-plans', planBody([perUnit('api_calls', { blockSize: 100 })])), 'body.metrics.0.blockSize');
    assert.match(err.message, /INCLUDED_QUOTA/);
  });

  it('400 names body.metrics.0.rate for a non-zero rate on STAIRCASE', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricName: 'seats', pricingModel: 'STAIRCASE', rate: '5', tiers: [open(0, { flatFee: '10' })] }])),
      'body.metrics.0.rate',
    );
    assert.match(err.message, /STAIRCASE/);
  });

  it('400 names body.metrics.0.rate for a price sent as a JSON number', async () => {
    const err = await rejects(
      api.post('/api/v1/rate-plans', planBody([{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: 0.002 }])),
      'body.metrics.0.rate',
    );
    assert.match(err.message, /string/);
  });

  it('400 names body.metrics.0.tiers.0.unitPrice for a tier price sent as a JSON number', async () => {
    await rejects(api.post('/api/v1/rate-plans', planBody([graduated([open(0, { unitPrice: 0.5 })])])), 'body.metrics.0.tiers.0.unitPrice');
  });

  it('400 names body.metrics.1.rate for a missing rate, reporting every broken unit at once', async () => {
    const res = await api.post(
      '/api/v1/rate-plans',
      planBody([
        { metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '9.999' },
        { metricName: 'api_calls', pricingModel: 'PER_UNIT' },
      ]),
    );
    await rejects(Promise.resolve(res), 'body.metrics.1.rate');
    assert.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['body.metrics.0.rate', 'body.metrics.1.rate'],
    );
  });

  it('400 names body.metrics.0.pricingModel for an unknown model, and body.metrics.0.foo for an unknown field', async () => {
    await rejects(api.post('/api/v1/rate-plans', planBody([{ metricName: 'api_calls', pricingModel: 'PER_SEAT', rate: '1' }])), 'body.metrics.0.pricingModel');
    await rejects(api.post('/api/v1/rate-plans', planBody([perUnit('api_calls', { foo: 1 })])), 'body.metrics.0.foo');
  });

  it('400 creates nothing', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    await rejects(c.post('/api/v1/rate-plans', planBody([perUnit('api_calls')])), 'body.metrics.0.metricName');
    assert.deepEqual(ids(await c.get('/api/v1/rate-plans')), []);
  });

  it('401 without a key, with the error envelope', async () => {
    const res = await t.seed.client(null).post('/api/v1/rate-plans', planBody([]));
    assert.equal(res.status, 401);
    assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/rate-plans', planBody([]));
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/rate-plans', () => {
  it('200 lists newest first, with paging', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await createPlan(c, [], { name: `p${i}` })).id);
      t.clock.advance(1);
    }
    const all = await c.get('/api/v1/rate-plans');
    assert.equal(all.status, 200);
    assert.equal(all.body.object, 'list');
    assert.deepEqual(ids(all), [made[2], made[1], made[0]]);
    assert.equal(all.body.hasMore, false);
    assert.equal(all.body.data[0].object, 'rate_plan');
    const page = await c.get('/api/v1/rate-plans?limit=2');
    assert.deepEqual(ids(page), [made[2], made[1]]);
    assert.equal(page.body.hasMore, true);
    assert.deepEqual(ids(await c.get(`/api/v1/rate-plans?limit=2&startingAfter=${made[1]}`)), [made[0]]);
  });

  it('a live key does not see test plans, and the reverse', async () => {
    const other = await t.seed.workspace();
    const test = t.seed.client(other.test.secretKey);
    const live = t.seed.client(other.live.secretKey);
    const testPlan = await createPlan(test, []);
    const livePlan = await createPlan(live, []);
    assert.equal(livePlan.environment, 'live');
    assert.deepEqual(ids(await live.get('/api/v1/rate-plans?limit=100')), [livePlan.id]);
    assert.deepEqual(ids(await test.get('/api/v1/rate-plans?limit=100')), [testPlan.id]);
  });

  it("does not list another workspace's plans", async () => {
    const mine = await createPlan(api, []);
    const other = await t.seed.workspace();
    assert.ok(!ids(await t.seed.client(other.test.secretKey).get('/api/v1/rate-plans?limit=100')).includes(mine.id));
  });

  it('401 without a key', async () => {
    assert.equal((await t.seed.client(null).get('/api/v1/rate-plans')).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).get('/api/v1/rate-plans');
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/rate-plans/:id', () => {
  it('200 returns the plan as created', async () => {
    const plan = await createPlan(api, [perUnit()], { metadata: { a: 'b' } });
    const res = await api.get(`/api/v1/rate-plans/${plan.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, plan);
  });

  it("404 for another workspace's plan, revealing nothing", async () => {
    const plan = await createPlan(api, [], { name: 'Mallory target' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/rate-plans/${plan.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.ok(!JSON.stringify(res.body).includes('Mallory'));
  });

  it('404 from the live key for a test plan', async () => {
    const plan = await createPlan(api, []);
    const res = await t.seed.client(ws.live.secretKey).get(`/api/v1/rate-plans/${plan.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });

  it('404 for an unknown id', async () => {
    const res = await api.get('/api/v1/rate-plans/plan_nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });

  it('401 without a key', async () => {
    const plan = await createPlan(api, []);
    assert.equal((await t.seed.client(null).get(`/api/v1/rate-plans/${plan.id}`)).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const plan = await createPlan(api, []);
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(key.token).get(`/api/v1/rate-plans/${plan.id}`)).status, 403);
  });
});

describe('PATCH /api/v1/rate-plans/:id', () => {
  it('200 replaces metrics whole, increments the version, keeps currency and period', async () => {
    const plan = await createPlan(api, [perUnit('api_calls'), { metricName: 'seats', pricingModel: 'STAIRCASE', tiers: [open(0, { flatFee: '10' })] }], {
      name: 'Before',
    });
    t.clock.advance(1000);
    const res = await api.patch(`/api/v1/rate-plans/${plan.id}`, {
      name: 'After',
      metrics: [{ metricName: 'tokens', pricingModel: 'PER_UNIT', rate: '0.00010' }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, plan.id);
    assert.equal(res.body.name, 'After');
    assert.deepEqual(res.body.metrics, [unitOut('tokens', { pricingModel: 'PER_UNIT', rate: '0.0001' })]);
    assert.equal(res.body.version, 2);
    assert.equal(res.body.currency, 'USD');
    assert.equal(res.body.billingPeriod, 'MONTHLY');
    assert.equal(res.body.createdAt, plan.createdAt);
    assert.equal(res.body.updatedAt, now());
    assert.deepEqual((await api.get(`/api/v1/rate-plans/${plan.id}`)).body, res.body);

    const again = await ok(api.patch(`/api/v1/rate-plans/${plan.id}`, { metadata: { v: '3' } }));
    assert.equal(again.version, 3);
    assert.deepEqual(again.metrics, res.body.metrics);
    assert.equal(again.name, 'After');
  });

  it('200 metrics [] empties the plan', async () => {
    const plan = await createPlan(api, [perUnit()]);
    const res = await ok(api.patch(`/api/v1/rate-plans/${plan.id}`, { metrics: [] }));
    assert.deepEqual(res.metrics, []);
  });

  it('writes an audit event rate_plan.updated', async () => {
    const plan = await createPlan(api, []);
    await ok(api.patch(`/api/v1/rate-plans/${plan.id}`, { name: 'Renamed' }));
    const types = (await t.deps.db.selectFrom('auditEvents').select('eventType').where('targetId', '=', plan.id).execute()).map((e) => e.eventType).sort();
    assert.deepEqual(types, ['rate_plan.created', 'rate_plan.updated']);
  });

  it('400 names body.currency as not a known field (currency is fixed), and the plan is unchanged', async () => {
    const plan = await createPlan(api, [perUnit()]);
    const err = await rejects(api.patch(`/api/v1/rate-plans/${plan.id}`, { currency: 'EUR' }), 'body.currency');
    assert.match(err.message, /not a known field/);
    await rejects(api.patch(`/api/v1/rate-plans/${plan.id}`, { billingPeriod: 'ANNUAL' }), 'body.billingPeriod');
    assert.deepEqual((await api.get(`/api/v1/rate-plans/${plan.id}`)).body, plan);
  });

  it("400 checks new metrics against the plan's currency (JPY has no minor unit)", async () => {
    const plan = await createPlan(api, [], { currency: 'JPY' });
    await rejects(
      api.patch(`/api/v1/rate-plans/${plan.id}`, { metrics: [{ metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '10.5' }] }),
      'body.metrics.0.rate',
    );
    assert.equal((await api.get(`/api/v1/rate-plans/${plan.id}`)).body.version, 1);
  });

  it('refuses new metrics that would make an offering including the plan price a unit twice', async () => {
    const product = await t.seed.product(ws.test);
    const a = await createPlan(api, [perUnit('api_calls')], { name: 'A' });
    const b = await createPlan(api, [perUnit('tokens')], { name: 'B' });
    const o = await ok(
      api.post('/api/v1/offerings', { productId: product.id, name: 'Both', currency: 'USD', billingPeriod: 'MONTHLY', ratePlanIds: [a.id, b.id] }),
    );
    const res = await api.patch(`/api/v1/rate-plans/${b.id}`, { metrics: [perUnit('api_calls', { rate: '0.02' })] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].field, 'body.metrics.0.metricName');
    assert.match(res.body.errors[0].message, /prices each unit once/);
    assert.equal((await ok(api.get(`/api/v1/rate-plans/${b.id}`))).version, 1);
    // The offering stays editable.
    assert.equal((await api.patch(`/api/v1/offerings/${o.id}`, { name: 'Renamed' })).status, 200);
  });

  it('removing a unit an offering overrides leaves that offering editable', async () => {
    const product = await t.seed.product(ws.test);
    const plan = await createPlan(api, [perUnit('api_calls'), perUnit('tokens')]);
    const o = await ok(
      api.post('/api/v1/offerings', {
        productId: product.id,
        name: 'Overridden',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        ratePlanIds: [plan.id],
        overrides: [{ ratePlanId: plan.id, metricName: 'tokens', includedFree: 100 }],
      }),
    );
    await ok(api.patch(`/api/v1/rate-plans/${plan.id}`, { metrics: [perUnit('api_calls')] }));
    const after = await ok(api.get(`/api/v1/offerings/${o.id}`));
    assert.deepEqual(after.overrides, [], 'the override went with its unit');
    assert.equal(after.version, 2);
    const res = await api.patch(`/api/v1/offerings/${o.id}`, { name: 'Renamed' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it('400 for an empty patch', async () => {
    const plan = await createPlan(api, []);
    const res = await api.patch(`/api/v1/rate-plans/${plan.id}`, {});
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
  });

  it("404 for another workspace's plan, which stays unchanged", async () => {
    const plan = await createPlan(api, [], { name: 'Untouchable' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).patch(`/api/v1/rate-plans/${plan.id}`, { name: 'Hijacked' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await api.get(`/api/v1/rate-plans/${plan.id}`)).body.name, 'Untouchable');
  });

  it('404 from the live key for a test plan', async () => {
    const plan = await createPlan(api, []);
    assert.equal((await t.seed.client(ws.live.secretKey).patch(`/api/v1/rate-plans/${plan.id}`, { name: 'x' })).status, 404);
  });

  it('401 without a key', async () => {
    const plan = await createPlan(api, []);
    assert.equal((await t.seed.client(null).patch(`/api/v1/rate-plans/${plan.id}`, { name: 'x' })).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const plan = await createPlan(api, [], { name: 'Scoped' });
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(key.token).patch(`/api/v1/rate-plans/${plan.id}`, { name: 'x' })).status, 403);
    assert.equal((await api.get(`/api/v1/rate-plans/${plan.id}`)).body.name, 'Scoped');
  });
});

/** Plans for the offering tests, in ws.test. */
interface Plans {
  /** USD MONTHLY: api_calls PER_UNIT, seats STAIRCASE. */
  a: string;
  /** USD MONTHLY: tokens GRADUATED, agent_runs OUTCOME_BASED. */
  b: string;
  /** USD MONTHLY: api_calls FLAT_RATE (prices what a prices). */
  clash: string;
  /** USD MONTHLY: storage_gb VOLUME_TIERED. */
  volume: string;
  eur: string;
  annual: string;
}
let plans: Plans;
let productId: string;

async function offeringsFixture(): Promise<void> {
  if (plans) return;
  productId = (await t.seed.product(ws.test)).id;
  plans = {
    a: (
      await createPlan(api, [
        perUnit('api_calls', { includedFree: 1000 }),
        { metricName: 'seats', pricingModel: 'STAIRCASE', tiers: [open(0, { flatFee: '10' })] },
      ])
    ).id,
    b: (
      await createPlan(api, [
        graduated([open(0, { unitPrice: '0.001' })]),
        { metricName: 'agent_runs', pricingModel: 'OUTCOME_BASED', rate: '0.05', outcomeWeights: { ERROR: 0 } },
      ])
    ).id,
    clash: (await createPlan(api, [{ metricName: 'api_calls', pricingModel: 'FLAT_RATE', rate: '10' }])).id,
    volume: (await createPlan(api, [{ metricName: 'storage_gb', pricingModel: 'VOLUME_TIERED', tiers: [open(0, { unitPrice: '0.1' })] }])).id,
    eur: (await createPlan(api, [perUnit('emails')], { currency: 'EUR' })).id,
    annual: (await createPlan(api, [perUnit('emails')], { billingPeriod: 'ANNUAL' })).id,
  };
}

const offeringBody = (extra: Record<string, unknown> = {}) => ({ productId, name: 'Pro', currency: 'USD', billingPeriod: 'MONTHLY', ...extra });
const createOffering = (c: Client, extra: Record<string, unknown> = {}) => ok(c.post('/api/v1/offerings', offeringBody(extra)));

describe('POST /api/v1/offerings', () => {
  before(offeringsFixture);

  it('200 creates an offering: off_ id, POSTPAID, trialDays 0, canonical entryPrice, normalised overrides', async () => {
    const res = await api.post(
      '/api/v1/offerings',
      offeringBody({
        entryPrice: '49.90',
        ratePlanIds: [plans.a, plans.b],
        overrides: [
          { ratePlanId: plans.a, metricName: 'api_calls', includedFree: 5000, rate: '0.0010' },
          { ratePlanId: plans.b, metricName: 'tokens', includedFree: 10000 },
        ],
      }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^off_[0-9a-z]{26}$/);
    assert.deepEqual(res.body, {
      id: res.body.id,
      object: 'offering',
      environment: 'test',
      productId,
      name: 'Pro',
      billingMode: 'POSTPAID',
      overage: null,
      recurringCredits: null,
      currency: 'USD',
      // In the currency's minor digits, whatever was sent.
      entryPrice: '49.90',
      billingPeriod: 'MONTHLY',
      trialDays: 0,
      ratePlanIds: [plans.a, plans.b],
      overrides: [
        { ratePlanId: plans.a, metricName: 'api_calls', includedFree: 5000, rate: '0.001' },
        { ratePlanId: plans.b, metricName: 'tokens', includedFree: 10000 },
      ],
      metadata: {},
      version: 1,
      createdAt: now(),
      updatedAt: now(),
    });
    assert.deepEqual((await api.get(`/api/v1/offerings/${res.body.id}`)).body, res.body);
  });

  it('200 a usage-only offering: entryPrice null, no plans, trialDays and metadata kept', async () => {
    const o = await createOffering(api, { name: 'Free', trialDays: 14, metadata: { k: 'v' } });
    assert.equal(o.entryPrice, null);
    assert.deepEqual(o.ratePlanIds, []);
    assert.deepEqual(o.overrides, []);
    assert.equal(o.trialDays, 14);
    assert.deepEqual(o.metadata, { k: 'v' });
  });

  it('200 a whole JPY entry price, and "10.00" in JPY (trailing zeros fit the minor unit)', async () => {
    assert.equal((await createOffering(api, { currency: 'JPY', entryPrice: '1000' })).entryPrice, '1000');
    assert.equal((await createOffering(api, { currency: 'JPY', entryPrice: '10.00' })).entryPrice, '10');
  });

  it('writes an audit event offering.created', async () => {
    const o = await createOffering(api, { ratePlanIds: [plans.a] });
    const events = await t.deps.db.selectFrom('auditEvents').select(['eventType', 'targetType']).where('targetId', '=', o.id).execute();
    assert.deepEqual(events, [{ eventType: 'offering.created', targetType: 'offering' }]);
  });

  it('400 names body.productId for an unknown product', async () => {
    await rejects(api.post('/api/v1/offerings', offeringBody({ productId: 'prod_nope' })), 'body.productId');
  });

  it('400 names body.productId for a product of the live environment', async () => {
    const liveProduct = await t.seed.product(ws.live);
    await rejects(api.post('/api/v1/offerings', offeringBody({ productId: liveProduct.id })), 'body.productId');
  });

  it('400 names body.ratePlanIds.0 for an unknown rate plan', async () => {
    await rejects(api.post('/api/v1/offerings', offeringBody({ ratePlanIds: ['plan_nope'] })), 'body.ratePlanIds.0');
  });

  it('400 names body.ratePlanIds.1 for a plan in another currency', async () => {
    const err = await rejects(api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a, plans.eur] })), 'body.ratePlanIds.1');
    assert.match(err.message, /EUR/);
  });

  it('400 names body.ratePlanIds.0 for a plan with another billing period', async () => {
    const err = await rejects(api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.annual] })), 'body.ratePlanIds.0');
    assert.match(err.message, /ANNUAL/);
  });

  it('400 names body.ratePlanIds.1 for a plan listed twice', async () => {
    const err = await rejects(api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a, plans.a] })), 'body.ratePlanIds.1');
    assert.match(err.message, /twice/);
  });

  it('400 names body.ratePlanIds for two plans pricing the same metric', async () => {
    const err = await rejects(api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a, plans.clash] })), 'body.ratePlanIds');
    assert.match(err.message, /api_calls/);
  });

  it('400 names body.entryPrice for too many decimals for the currency ("49.999" USD, "10.5" JPY)', async () => {
    const usd = await rejects(api.post('/api/v1/offerings', offeringBody({ entryPrice: '49.999' })), 'body.entryPrice');
    assert.match(usd.message, /USD/);
    const jpy = await rejects(api.post('/api/v1/offerings', offeringBody({ currency: 'JPY', entryPrice: '10.5' })), 'body.entryPrice');
    assert.match(jpy.message, /JPY/);
  });

  it('400 names body.entryPrice for a price sent as a JSON number', async () => {
    await rejects(api.post('/api/v1/offerings', offeringBody({ entryPrice: 49 })), 'body.entryPrice');
  });

  it('400 names body.currency for a currency that is not ISO 4217', async () => {
    await rejects(api.post('/api/v1/offerings', offeringBody({ currency: 'XYZ', entryPrice: '10' })), 'body.currency');
  });

  it('400 names body.overrides.0.ratePlanId for an override of a plan not on the offering', async () => {
    await rejects(
      api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a], overrides: [{ ratePlanId: plans.b, metricName: 'tokens', includedFree: 1 }] })),
      'body.overrides.0.ratePlanId',
    );
  });

  it('400 names body.overrides.0.metricName for an override of a unit the plan lacks', async () => {
    await rejects(
      api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a], overrides: [{ ratePlanId: plans.a, metricName: 'tokens', includedFree: 1 }] })),
      'body.overrides.0.metricName',
    );
  });

  it('400 names body.overrides.0 for an override with neither includedFree nor rate', async () => {
    const err = await rejects(
      api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a], overrides: [{ ratePlanId: plans.a, metricName: 'api_calls' }] })),
      'body.overrides.0',
    );
    assert.match(err.message, /neither/);
  });

  it('400 names body.overrides.0 for a rate override on a STAIRCASE unit (nothing to override)', async () => {
    const err = await rejects(
      api.post('/api/v1/offerings', offeringBody({ ratePlanIds: [plans.a], overrides: [{ ratePlanId: plans.a, metricName: 'seats', rate: '5' }] })),
      'body.overrides.0',
    );
    assert.match(err.message, /STAIRCASE/);
  });

  it('400 names body.overrides.0.rate for a rate override on a VOLUME_TIERED unit', async () => {
    await rejects(
      api.post(
        '/api/v1/offerings',
        offeringBody({ ratePlanIds: [plans.volume], overrides: [{ ratePlanId: plans.volume, metricName: 'storage_gb', rate: '0.05' }] }),
      ),
      'body.overrides.0.rate',
    );
  });

  it('400 names body.overrides.1.metricName for a unit overridden twice', async () => {
    await rejects(
      api.post(
        '/api/v1/offerings',
        offeringBody({
          ratePlanIds: [plans.a],
          overrides: [
            { ratePlanId: plans.a, metricName: 'api_calls', includedFree: 1 },
            { ratePlanId: plans.a, metricName: 'api_calls', rate: '1' },
          ],
        }),
      ),
      'body.overrides.1.metricName',
    );
  });

  it('200 a PREPAID offering: overage BILL unless BLOCK is asked for', async () => {
    const billed = await createOffering(api, { billingMode: 'PREPAID' });
    assert.equal(billed.billingMode, 'PREPAID');
    assert.equal(billed.overage, 'BILL');
    const blocked = await createOffering(api, { billingMode: 'PREPAID', overage: 'BLOCK' });
    assert.equal(blocked.overage, 'BLOCK');
    assert.equal((await api.get(`/api/v1/offerings/${blocked.id}`)).body.overage, 'BLOCK');
  });

  it('400 names body.billingMode for a mode that is neither POSTPAID nor PREPAID', async () => {
    await rejects(api.post('/api/v1/offerings', offeringBody({ billingMode: 'PREPAY' })), 'body.billingMode');
  });

  it('400 names body.overage for a POSTPAID offering, or a rule other than BILL and BLOCK', async () => {
    await rejects(api.post('/api/v1/offerings', offeringBody({ overage: 'BLOCK' })), 'body.overage');
    await rejects(api.post('/api/v1/offerings', offeringBody({ billingMode: 'PREPAID', overage: 'CAP' })), 'body.overage');
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).post('/api/v1/offerings', offeringBody());
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/offerings', offeringBody());
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/offerings and /api/v1/offerings/:id', () => {
  before(offeringsFixture);

  it('200 lists newest first; a live key does not see test offerings', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const product = await t.seed.product(other.test);
    const first = await ok(c.post('/api/v1/offerings', { productId: product.id, name: 'A', currency: 'USD', billingPeriod: 'MONTHLY' }));
    t.clock.advance(1);
    const second = await ok(c.post('/api/v1/offerings', { productId: product.id, name: 'B', currency: 'USD', billingPeriod: 'MONTHLY' }));
    const list = await c.get('/api/v1/offerings');
    assert.equal(list.status, 200);
    assert.deepEqual(ids(list), [second.id, first.id]);
    assert.deepEqual(ids(await t.seed.client(other.live.secretKey).get('/api/v1/offerings')), []);
  });

  it('200 returns one offering', async () => {
    const o = await createOffering(api, { ratePlanIds: [plans.a] });
    assert.deepEqual(await ok(api.get(`/api/v1/offerings/${o.id}`)), o);
  });

  it("404 for another workspace's offering and from the live key", async () => {
    const o = await createOffering(api);
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/offerings/${o.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await t.seed.client(ws.live.secretKey).get(`/api/v1/offerings/${o.id}`)).status, 404);
  });

  it('401 without a key', async () => {
    assert.equal((await t.seed.client(null).get('/api/v1/offerings')).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const o = await createOffering(api);
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(key.token).get('/api/v1/offerings')).status, 403);
    assert.equal((await t.seed.client(key.token).get(`/api/v1/offerings/${o.id}`)).status, 403);
  });
});

describe('PATCH /api/v1/offerings/:id', () => {
  before(offeringsFixture);

  it('200 sets entryPrice to null and increments the version', async () => {
    const o = await createOffering(api, { entryPrice: '49' });
    t.clock.advance(1000);
    const res = await ok(api.patch(`/api/v1/offerings/${o.id}`, { entryPrice: null }));
    assert.equal(res.entryPrice, null);
    assert.equal(res.version, 2);
    assert.equal(res.updatedAt, now());
    assert.equal(res.createdAt, o.createdAt);
    assert.equal((await ok(api.get(`/api/v1/offerings/${o.id}`))).entryPrice, null);
  });

  it("200 a PREPAID offering's overage changes; 400 names body.overage on a POSTPAID one, and billingMode is fixed", async () => {
    const prepaid = await createOffering(api, { billingMode: 'PREPAID' });
    assert.equal((await ok(api.patch(`/api/v1/offerings/${prepaid.id}`, { overage: 'BLOCK' }))).overage, 'BLOCK');
    const postpaid = await createOffering(api);
    await rejects(api.patch(`/api/v1/offerings/${postpaid.id}`, { overage: 'BLOCK' }), 'body.overage');
    await rejects(api.patch(`/api/v1/offerings/${postpaid.id}`, { billingMode: 'PREPAID' }), 'body.billingMode');
  });

  it('200 a new entryPrice is stored canonical', async () => {
    const o = await createOffering(api);
    assert.equal((await ok(api.patch(`/api/v1/offerings/${o.id}`, { entryPrice: '19.5' }))).entryPrice, '19.50');
  });

  it('200 removing a plan drops its overrides and keeps the others', async () => {
    const o = await createOffering(api, {
      ratePlanIds: [plans.a, plans.b],
      overrides: [
        { ratePlanId: plans.a, metricName: 'api_calls', includedFree: 5000 },
        { ratePlanId: plans.b, metricName: 'agent_runs', rate: '0.04' },
      ],
    });
    const res = await ok(api.patch(`/api/v1/offerings/${o.id}`, { ratePlanIds: [plans.b] }));
    assert.deepEqual(res.ratePlanIds, [plans.b]);
    assert.deepEqual(res.overrides, [{ ratePlanId: plans.b, metricName: 'agent_runs', rate: '0.04' }]);
    assert.deepEqual(await ok(api.get(`/api/v1/offerings/${o.id}`)), res);
  });

  it('200 overrides are replaced whole and normalised', async () => {
    const o = await createOffering(api, { ratePlanIds: [plans.a], overrides: [{ ratePlanId: plans.a, metricName: 'api_calls', includedFree: 5000 }] });
    const res = await ok(api.patch(`/api/v1/offerings/${o.id}`, { overrides: [{ ratePlanId: plans.a, metricName: 'api_calls', rate: '0.0050' }] }));
    assert.deepEqual(res.overrides, [{ ratePlanId: plans.a, metricName: 'api_calls', rate: '0.005' }]);
  });

  it('400 checks the change: entryPrice with too many decimals, a plan in another currency; nothing changes', async () => {
    const o = await createOffering(api, { entryPrice: '10' });
    await rejects(api.patch(`/api/v1/offerings/${o.id}`, { entryPrice: '49.999' }), 'body.entryPrice');
    await rejects(api.patch(`/api/v1/offerings/${o.id}`, { ratePlanIds: [plans.eur] }), 'body.ratePlanIds.0');
    assert.deepEqual(await ok(api.get(`/api/v1/offerings/${o.id}`)), o);
  });

  it('400 names body.currency and body.productId as fields that cannot change', async () => {
    const o = await createOffering(api);
    await rejects(api.patch(`/api/v1/offerings/${o.id}`, { currency: 'EUR' }), 'body.currency');
    await rejects(api.patch(`/api/v1/offerings/${o.id}`, { productId }), 'body.productId');
  });

  it('404 for an unknown offering', async () => {
    const res = await api.patch('/api/v1/offerings/off_nope', { name: 'x' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });

  it("404 for another workspace's offering and from the live key; it stays unchanged", async () => {
    const o = await createOffering(api, { name: 'Untouchable' });
    const other = await t.seed.workspace();
    assert.equal((await t.seed.client(other.test.secretKey).patch(`/api/v1/offerings/${o.id}`, { name: 'Hijacked' })).status, 404);
    assert.equal((await t.seed.client(ws.live.secretKey).patch(`/api/v1/offerings/${o.id}`, { name: 'Hijacked' })).status, 404);
    assert.equal((await ok(api.get(`/api/v1/offerings/${o.id}`))).name, 'Untouchable');
  });

  it('401 without a key', async () => {
    const o = await createOffering(api);
    assert.equal((await t.seed.client(null).patch(`/api/v1/offerings/${o.id}`, { name: 'x' })).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const o = await createOffering(api);
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(key.token).patch(`/api/v1/offerings/${o.id}`, { name: 'x' })).status, 403);
  });
});

describe('POST /api/v1/storefronts', () => {
  before(offeringsFixture);

  it('200 creates a draft: sf_ id, published null, hasUnpublishedChanges true, pricingPagePath', async () => {
    const o1 = await createOffering(api, { name: 'One' });
    const o2 = await createOffering(api, { name: 'Two' });
    const res = await api.post('/api/v1/storefronts', { name: 'Website', offeringIds: [o2.id, o1.id] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^sf_[0-9a-z]{26}$/);
    assert.deepEqual(res.body, {
      id: res.body.id,
      object: 'storefront',
      environment: 'test',
      name: 'Website',
      draft: { offeringIds: [o2.id, o1.id], offeringDisplay: [], theme: {} },
      published: null,
      hasUnpublishedChanges: true,
      pricingPagePath: `/pricing/${res.body.id}`,
      createdAt: now(),
      updatedAt: now(),
    });
    assert.deepEqual(await ok(api.get(`/api/v1/storefronts/${res.body.id}`)), res.body);
  });

  it('200 with no offerings: an empty draft', async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Empty' }));
    assert.deepEqual(s.draft, { offeringIds: [], offeringDisplay: [], theme: {} });
    assert.equal(s.published, null);
  });

  it('400 names body.offeringIds.0 for an unknown offering', async () => {
    await rejects(api.post('/api/v1/storefronts', { name: 'X', offeringIds: ['off_nope'] }), 'body.offeringIds.0');
  });

  it('400 names body.offeringIds.0 for an offering of the live environment', async () => {
    const liveProduct = await t.seed.product(ws.live);
    const live = t.seed.client(ws.live.secretKey);
    const liveOffering = await ok(live.post('/api/v1/offerings', { productId: liveProduct.id, name: 'Live', currency: 'USD', billingPeriod: 'MONTHLY' }));
    await rejects(api.post('/api/v1/storefronts', { name: 'X', offeringIds: [liveOffering.id] }), 'body.offeringIds.0');
  });

  it('400 names body.offeringIds.1 for an offering listed twice', async () => {
    const o = await createOffering(api);
    const err = await rejects(api.post('/api/v1/storefronts', { name: 'X', offeringIds: [o.id, o.id] }), 'body.offeringIds.1');
    assert.match(err.message, /twice/);
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).post('/api/v1/storefronts', { name: 'X' });
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/storefronts', { name: 'X' });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/storefronts and /api/v1/storefronts/:id', () => {
  it('200 lists newest first; a live key does not see test storefronts', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const first = await ok(c.post('/api/v1/storefronts', { name: 'A' }));
    t.clock.advance(1);
    const second = await ok(c.post('/api/v1/storefronts', { name: 'B' }));
    assert.deepEqual(ids(await c.get('/api/v1/storefronts')), [second.id, first.id]);
    assert.deepEqual(ids(await t.seed.client(other.live.secretKey).get('/api/v1/storefronts')), []);
  });

  it("404 for another workspace's storefront and from the live key", async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Mine' }));
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/storefronts/${s.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await t.seed.client(ws.live.secretKey).get(`/api/v1/storefronts/${s.id}`)).status, 404);
  });

  it('401 without a key', async () => {
    assert.equal((await t.seed.client(null).get('/api/v1/storefronts')).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(key.token).get('/api/v1/storefronts')).status, 403);
  });
});

describe('PATCH /api/v1/storefronts/:id', () => {
  before(offeringsFixture);

  it('200 changes the draft only; the published list stays until the next publish', async () => {
    const o1 = await createOffering(api, { name: 'One' });
    const o2 = await createOffering(api, { name: 'Two' });
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Shop', offeringIds: [o1.id] }));
    const published = await ok(api.post(`/api/v1/storefronts/${s.id}/publish`));
    t.clock.advance(1000);
    const res = await ok(api.patch(`/api/v1/storefronts/${s.id}`, { name: 'Shop 2', offeringIds: [o1.id, o2.id] }));
    assert.equal(res.name, 'Shop 2');
    assert.deepEqual(res.draft, { offeringIds: [o1.id, o2.id], offeringDisplay: [], theme: {} });
    assert.deepEqual(res.published, published.published);
    assert.deepEqual(res.published.offeringIds, [o1.id]);
    assert.equal(res.hasUnpublishedChanges, true);
    assert.equal(res.updatedAt, now());
    assert.deepEqual(await ok(api.get(`/api/v1/storefronts/${s.id}`)), res);
  });

  it('200 setting the draft back to what is published clears hasUnpublishedChanges', async () => {
    const o1 = await createOffering(api);
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Shop', offeringIds: [o1.id] }));
    await ok(api.post(`/api/v1/storefronts/${s.id}/publish`));
    assert.equal((await ok(api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: [] }))).hasUnpublishedChanges, true);
    assert.equal((await ok(api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: [o1.id] }))).hasUnpublishedChanges, false);
  });

  it('400 names body.offeringIds.0 for an unknown offering, and body.offeringIds.1 for one listed twice', async () => {
    const o = await createOffering(api);
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Shop', offeringIds: [o.id] }));
    await rejects(api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: ['off_nope'] }), 'body.offeringIds.0');
    await rejects(api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: [o.id, o.id] }), 'body.offeringIds.1');
    assert.deepEqual((await ok(api.get(`/api/v1/storefronts/${s.id}`))).draft, { offeringIds: [o.id], offeringDisplay: [], theme: {} });
  });

  it("404 for another workspace's storefront, which stays unchanged", async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Untouchable' }));
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).patch(`/api/v1/storefronts/${s.id}`, { name: 'Hijacked' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await t.seed.client(ws.live.secretKey).patch(`/api/v1/storefronts/${s.id}`, { name: 'Hijacked' })).status, 404);
    assert.equal((await ok(api.get(`/api/v1/storefronts/${s.id}`))).name, 'Untouchable');
  });

  it('401 without a key', async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'S' }));
    assert.equal((await t.seed.client(null).patch(`/api/v1/storefronts/${s.id}`, { name: 'x' })).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'S' }));
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(key.token).patch(`/api/v1/storefronts/${s.id}`, { name: 'x' })).status, 403);
  });
});

describe('POST /api/v1/storefronts/:id/publish', () => {
  before(offeringsFixture);

  it('200 publishes the draft: version 1, then 2 on a second publish; hasUnpublishedChanges false', async () => {
    const o1 = await createOffering(api, { name: 'One' });
    const o2 = await createOffering(api, { name: 'Two' });
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Shop', offeringIds: [o1.id, o2.id] }));
    t.clock.advance(1000);
    const first = await api.post(`/api/v1/storefronts/${s.id}/publish`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.published, { offeringIds: [o1.id, o2.id], offeringDisplay: [], theme: {}, version: 1, publishedAt: now() });
    assert.deepEqual(first.body.published.offeringIds, first.body.draft.offeringIds);
    assert.equal(first.body.hasUnpublishedChanges, false);
    assert.deepEqual(await ok(api.get(`/api/v1/storefronts/${s.id}`)), first.body);

    t.clock.advance(1000);
    await ok(api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: [o2.id] }));
    const second = await ok(api.post(`/api/v1/storefronts/${s.id}/publish`));
    assert.deepEqual(second.published, { offeringIds: [o2.id], offeringDisplay: [], theme: {}, version: 2, publishedAt: now() });
    assert.deepEqual(second.draft, { offeringIds: [o2.id], offeringDisplay: [], theme: {} });
    assert.equal(second.hasUnpublishedChanges, false);
  });

  it('200 publishing an unchanged draft still increases the version', async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Same' }));
    assert.equal((await ok(api.post(`/api/v1/storefronts/${s.id}/publish`))).published.version, 1);
    assert.equal((await ok(api.post(`/api/v1/storefronts/${s.id}/publish`))).published.version, 2);
  });

  it('writes an audit event storefront.published', async () => {
    const o = await createOffering(api);
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Audited', offeringIds: [o.id] }));
    await ok(api.post(`/api/v1/storefronts/${s.id}/publish`));
    const events = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', s.id).where('eventType', '=', 'storefront.published').execute();
    assert.equal(events.length, 1);
    assert.equal(events[0]!.targetType, 'storefront');
    assert.equal(events[0]!.workspaceId, ws.workspaceId);
    assert.deepEqual(JSON.parse(events[0]!.payload), { version: 1, offeringIds: [o.id] });
  });

  it("404 for another workspace's storefront, which stays unpublished", async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Draft' }));
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).post(`/api/v1/storefronts/${s.id}/publish`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await t.seed.client(ws.live.secretKey).post(`/api/v1/storefronts/${s.id}/publish`)).status, 404);
    assert.equal((await ok(api.get(`/api/v1/storefronts/${s.id}`))).published, null);
  });

  it('404 for an unknown storefront', async () => {
    const res = await api.post('/api/v1/storefronts/sf_nope/publish');
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });

  it('401 without a key', async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'S' }));
    assert.equal((await t.seed.client(null).post(`/api/v1/storefronts/${s.id}/publish`)).status, 401);
  });

  it("403 for a workspace key with only the 'ingest' scope", async () => {
    const s = await ok(api.post('/api/v1/storefronts', { name: 'S' }));
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post(`/api/v1/storefronts/${s.id}/publish`);
    assert.equal(res.status, 403);
    assert.equal((await ok(api.get(`/api/v1/storefronts/${s.id}`))).published, null);
  });
});

describe('storefront display settings: offeringDisplay and theme', () => {
  before(async () => {
    await offeringsFixture();
    // A fresh rate-limit window (300 requests a minute per tenant, on the test clock): the tests
    // above this describe use most of the first one.
    t.clock.advance(60_000);
  });

  const cta = (label: string, url = 'https://shop.example.com/signup') => ({ label, url });
  const THEME = { accentColor: '#4f46e5', backgroundColor: '#F5F3FF', fontFamily: 'Inter', logoUrl: 'https://shop.example.com/logo.svg' };

  /** A storefront listing two offerings, published once with no display settings. */
  async function published() {
    const o1 = await createOffering(api, { name: 'One' });
    const o2 = await createOffering(api, { name: 'Two' });
    const s = await ok(api.post('/api/v1/storefronts', { name: 'Shop', offeringIds: [o1.id, o2.id] }));
    await ok(api.post(`/api/v1/storefronts/${s.id}/publish`));
    return { o1: o1.id as string, o2: o2.id as string, id: s.id as string };
  }

  it('200 PATCH sets them in the draft (defaults filled in), GET reads them back; a display-only change is unpublished until publish, which shows them', async () => {
    const s = await published();
    const body = { offeringDisplay: [{ offeringId: s.o2, highlighted: true, callToAction: cta('Start free trial') }, { offeringId: s.o1 }], theme: THEME };
    const res = await ok(api.patch(`/api/v1/storefronts/${s.id}`, body));
    const display = {
      offeringDisplay: [
        { offeringId: s.o2, highlighted: true, callToAction: cta('Start free trial') },
        { offeringId: s.o1, highlighted: false, callToAction: null },
      ],
      theme: THEME,
    };
    assert.deepEqual(res.draft, { offeringIds: [s.o1, s.o2], ...display });
    assert.deepEqual(res.published.offeringDisplay, [], 'the published page is unchanged');
    assert.deepEqual(res.published.theme, {});
    assert.equal(res.hasUnpublishedChanges, true, 'a display-only change is an unpublished change');
    assert.deepEqual(await ok(api.get(`/api/v1/storefronts/${s.id}`)), res);

    t.clock.advance(1000);
    const pub = await ok(api.post(`/api/v1/storefronts/${s.id}/publish`));
    assert.deepEqual(pub.published, { offeringIds: [s.o1, s.o2], ...display, version: 2, publishedAt: now() });
    assert.equal(pub.hasUnpublishedChanges, false);
    assert.deepEqual(await ok(api.get(`/api/v1/storefronts/${s.id}`)), pub);

    // The theme alone, changed and changed back.
    assert.equal((await ok(api.patch(`/api/v1/storefronts/${s.id}`, { theme: { ...THEME, fontFamily: 'Source Sans 3' } }))).hasUnpublishedChanges, true);
    assert.equal((await ok(api.patch(`/api/v1/storefronts/${s.id}`, { theme: THEME }))).hasUnpublishedChanges, false);
  });

  it('200 POST takes them too; a theme field sent empty is left out; a data: logo is allowed', async () => {
    const o = await createOffering(api);
    const logo = 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=';
    const s = await ok(
      api.post('/api/v1/storefronts', {
        name: 'Shop',
        offeringIds: [o.id],
        offeringDisplay: [{ offeringId: o.id, callToAction: cta('Buy', 'http://shop.example.com/buy?o=1') }],
        theme: { accentColor: '#0f766e', logoUrl: logo },
      }),
    );
    assert.deepEqual(s.draft, {
      offeringIds: [o.id],
      offeringDisplay: [{ offeringId: o.id, highlighted: false, callToAction: cta('Buy', 'http://shop.example.com/buy?o=1') }],
      theme: { accentColor: '#0f766e', logoUrl: logo },
    });
  });

  it('200 removing an offering from offeringIds drops its display entry and keeps the others and the theme', async () => {
    const s = await published();
    await ok(
      api.patch(`/api/v1/storefronts/${s.id}`, {
        offeringDisplay: [
          { offeringId: s.o1, highlighted: true },
          { offeringId: s.o2, callToAction: cta('Talk to us') },
        ],
        theme: THEME,
      }),
    );
    const res = await ok(api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: [s.o2] }));
    assert.deepEqual(res.draft, {
      offeringIds: [s.o2],
      offeringDisplay: [{ offeringId: s.o2, highlighted: false, callToAction: cta('Talk to us') }],
      theme: THEME,
    });
    assert.deepEqual(await ok(api.get(`/api/v1/storefronts/${s.id}`)), res);
  });

  it('400 names body.offeringDisplay.N.offeringId for an offering not on the list and for a second entry of one; the draft stays', async () => {
    const s = await published();
    const other = await createOffering(api);
    const notListed = await rejects(
      api.patch(`/api/v1/storefronts/${s.id}`, { offeringDisplay: [{ offeringId: other.id, highlighted: true }] }),
      'body.offeringDisplay.0.offeringId',
    );
    assert.match(notListed.message, /not in the storefront's offeringIds/);
    // Checked against the list sent with it: an offering removed in the same body is not on it.
    await rejects(
      api.patch(`/api/v1/storefronts/${s.id}`, { offeringIds: [s.o2], offeringDisplay: [{ offeringId: s.o1 }] }),
      'body.offeringDisplay.0.offeringId',
    );
    const twice = await rejects(
      api.patch(`/api/v1/storefronts/${s.id}`, { offeringDisplay: [{ offeringId: s.o1 }, { offeringId: s.o1, highlighted: true }] }),
      'body.offeringDisplay.1.offeringId',
    );
    assert.match(twice.message, /two display entries/);
    await rejects(
      api.post('/api/v1/storefronts', { name: 'X', offeringIds: [s.o1], offeringDisplay: [{ offeringId: s.o2 }] }),
      'body.offeringDisplay.0.offeringId',
    );
    assert.deepEqual((await ok(api.get(`/api/v1/storefronts/${s.id}`))).draft, { offeringIds: [s.o1, s.o2], offeringDisplay: [], theme: {} });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a colour name', { theme: { accentColor: 'red' } }, 'body.theme.accentColor'],
    ['a short hex colour', { theme: { accentColor: '#fff' } }, 'body.theme.accentColor'],
    ['CSS smuggled into a colour', { theme: { backgroundColor: '#ffffff;}body{display:none' } }, 'body.theme.backgroundColor'],
    ['a font family with quotes', { theme: { fontFamily: 'Inter", serif' } }, 'body.theme.fontFamily'],
    ['an http logo', { theme: { logoUrl: 'http://shop.example.com/logo.svg' } }, 'body.theme.logoUrl'],
    ['an https logo over 2,048 characters', { theme: { logoUrl: `https://shop.example.com/${'a'.repeat(2049 - 25)}` } }, 'body.theme.logoUrl'],
    ['a data: logo of another type', { theme: { logoUrl: 'data:text/html;base64,PGgxPmhpPC9oMT4=' } }, 'body.theme.logoUrl'],
    [
      'a javascript: call-to-action URL',
      { offeringDisplay: [{ offeringId: 'LISTED', callToAction: cta('Go', 'javascript:alert(1)') }] },
      'body.offeringDisplay.0.callToAction.url',
    ],
    [
      'a call-to-action label over 40 characters',
      { offeringDisplay: [{ offeringId: 'LISTED', callToAction: cta('x'.repeat(41)) }] },
      'body.offeringDisplay.0.callToAction.label',
    ],
    ['an empty call-to-action label', { offeringDisplay: [{ offeringId: 'LISTED', callToAction: cta('') }] }, 'body.offeringDisplay.0.callToAction.label'],
  ];
  let shared: Awaited<ReturnType<typeof published>> | null = null;
  for (const [what, body, field] of invalid) {
    it(`400 names ${field} for ${what}`, async () => {
      // One storefront for every case: a refused body changes nothing, which each case checks.
      const s = (shared ??= await published());
      const sent = JSON.parse(JSON.stringify(body).replace('LISTED', s.o1)) as Record<string, unknown>;
      await rejects(api.patch(`/api/v1/storefronts/${s.id}`, sent), field);
      assert.deepEqual(
        (await ok(api.get(`/api/v1/storefronts/${s.id}`))).draft,
        { offeringIds: [s.o1, s.o2], offeringDisplay: [], theme: {} },
        'the draft stays',
      );
    });
  }

  it('200 an https logo of exactly 2,048 characters', async () => {
    const s = await published();
    const logoUrl = `https://shop.example.com/${'a'.repeat(2048 - 25)}`;
    assert.equal(logoUrl.length, 2048);
    assert.equal((await ok(api.patch(`/api/v1/storefronts/${s.id}`, { theme: { logoUrl } }))).draft.theme.logoUrl, logoUrl);
  });
});
