import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiRequestSummaryAccumulator,
  isServerError,
  OTHER_ROUTE,
  percentile,
  ROUTE_CAP,
  type RequestSample,
  type TenantSummary,
} from './api-request-summary.js';

const START = Date.UTC(2025, 0, 1, 12, 0, 0);
const END = START + 60_000;

const sample = (over: Partial<RequestSample> = {}): RequestSample => ({
  workspaceId: 'ws_a',
  environment: 'test',
  route: 'GET /api/v1/customers',
  status: 200,
  elapsedMs: 10,
  ...over,
});

function summarise(samples: RequestSample[], routeCap?: number): TenantSummary[] {
  const acc = new ApiRequestSummaryAccumulator(START, routeCap);
  for (const s of samples) acc.add(s);
  return acc.drain(END);
}

describe('ApiRequestSummaryAccumulator', () => {
  const cases: { name: string; samples: RequestSample[]; routeCap?: number; expected: TenantSummary[] }[] = [
    { name: 'a window with no traffic yields no summary', samples: [], expected: [] },
    {
      name: 'counts per status class, only the classes that occurred (3xx with 2xx, 503 as shed)',
      samples: [sample(), sample({ status: 304 }), sample({ status: 404 }), sample({ status: 500 }), sample({ status: 503 }), sample({ status: 503 })],
      expected: [
        {
          workspaceId: 'ws_a',
          environment: 'test',
          windowStart: START,
          windowEnd: END,
          total: 6,
          routes: { 'GET /api/v1/customers': { '2xx': 2, '4xx': 1, '5xx': 1, shed: 2, p50Ms: 10, p99Ms: 10 } },
        },
      ],
    },
    {
      name: 'counts per route',
      samples: [sample(), sample({ route: 'POST /api/v1/customers', status: 201 }), sample({ route: 'GET /api/v1/customers/:id', status: 404 })],
      expected: [
        {
          workspaceId: 'ws_a',
          environment: 'test',
          windowStart: START,
          windowEnd: END,
          total: 3,
          routes: {
            'GET /api/v1/customers': { '2xx': 1, p50Ms: 10, p99Ms: 10 },
            'POST /api/v1/customers': { '2xx': 1, p50Ms: 10, p99Ms: 10 },
            'GET /api/v1/customers/:id': { '4xx': 1, p50Ms: 10, p99Ms: 10 },
          },
        },
      ],
    },
    {
      name: "a summary per tenant: another workspace, or the same workspace's other environment",
      samples: [sample(), sample({ workspaceId: 'ws_b' }), sample({ environment: 'live' }), sample()],
      expected: [
        {
          workspaceId: 'ws_a',
          environment: 'test',
          windowStart: START,
          windowEnd: END,
          total: 2,
          routes: { 'GET /api/v1/customers': { '2xx': 2, p50Ms: 10, p99Ms: 10 } },
        },
        {
          workspaceId: 'ws_b',
          environment: 'test',
          windowStart: START,
          windowEnd: END,
          total: 1,
          routes: { 'GET /api/v1/customers': { '2xx': 1, p50Ms: 10, p99Ms: 10 } },
        },
        {
          workspaceId: 'ws_a',
          environment: 'live',
          windowStart: START,
          windowEnd: END,
          total: 1,
          routes: { 'GET /api/v1/customers': { '2xx': 1, p50Ms: 10, p99Ms: 10 } },
        },
      ],
    },
    {
      name: 'latencies are rounded to whole milliseconds; p50 and p99 by nearest rank',
      samples: Array.from({ length: 100 }, (_, i) => sample({ elapsedMs: i + 0.6 })),
      expected: [
        {
          workspaceId: 'ws_a',
          environment: 'test',
          windowStart: START,
          windowEnd: END,
          total: 100,
          routes: { 'GET /api/v1/customers': { '2xx': 100, p50Ms: 50, p99Ms: 99 } },
        },
      ],
    },
    {
      name: 'past the route cap (2 here), new routes count under "other"; known routes keep their own entry',
      routeCap: 2,
      samples: [
        sample({ route: 'GET /a' }),
        sample({ route: 'GET /b' }),
        sample({ route: 'GET /c' }),
        sample({ route: 'GET /d', status: 500 }),
        sample({ route: 'GET /a' }),
      ],
      expected: [
        {
          workspaceId: 'ws_a',
          environment: 'test',
          windowStart: START,
          windowEnd: END,
          total: 5,
          routes: {
            'GET /a': { '2xx': 2, p50Ms: 10, p99Ms: 10 },
            'GET /b': { '2xx': 1, p50Ms: 10, p99Ms: 10 },
            [OTHER_ROUTE]: { '2xx': 1, '5xx': 1, p50Ms: 10, p99Ms: 10 },
          },
        },
      ],
    },
  ];

  for (const c of cases) {
    it(c.name, () => assert.deepEqual(summarise(c.samples, c.routeCap), c.expected));
  }

  it(`the real cap keeps ${ROUTE_CAP} routes per tenant and window`, () => {
    const samples = Array.from({ length: ROUTE_CAP + 50 }, (_, i) => sample({ route: `GET /r${i}` }));
    const [s] = summarise(samples);
    assert.equal(Object.keys(s!.routes).length, ROUTE_CAP + 1, 'the named routes and "other"');
    assert.equal(s!.routes[OTHER_ROUTE]?.['2xx'], 50);
    assert.equal(s!.total, ROUTE_CAP + 50);
  });

  it('drain empties it: the next window starts where the last ended and counts afresh', () => {
    const acc = new ApiRequestSummaryAccumulator(START);
    acc.add(sample());
    acc.add(sample());
    assert.equal(acc.drain(END)[0]?.total, 2);
    assert.deepEqual(acc.drain(END + 60_000), [], 'nothing counted twice');
    acc.add(sample({ status: 404 }));
    const [next] = acc.drain(END + 120_000);
    assert.deepEqual(next, {
      workspaceId: 'ws_a',
      environment: 'test',
      windowStart: END + 60_000,
      windowEnd: END + 120_000,
      total: 1,
      routes: { 'GET /api/v1/customers': { '4xx': 1, p50Ms: 10, p99Ms: 10 } },
    });
  });
});

describe('percentile', () => {
  const cases: { name: string; histogram: [number, number][]; p: number; expected: number }[] = [
    { name: 'no samples', histogram: [], p: 50, expected: 0 },
    { name: 'one sample is every percentile', histogram: [[7, 1]], p: 99, expected: 7 },
    {
      name: 'p50 of 1..4 is the lower middle',
      histogram: [
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 1],
      ],
      p: 50,
      expected: 2,
    },
    {
      name: 'p99 sees a single slow request among 99 fast ones',
      histogram: [
        [5, 99],
        [900, 1],
      ],
      p: 99,
      expected: 5,
    },
    {
      name: 'p99 sees two slow requests among 98 fast ones',
      histogram: [
        [5, 98],
        [900, 2],
      ],
      p: 99,
      expected: 900,
    },
    {
      name: 'the order of insertion does not matter',
      histogram: [
        [30, 1],
        [10, 1],
        [20, 1],
      ],
      p: 50,
      expected: 20,
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(percentile(new Map(c.histogram), c.p), c.expected));
  }
});

describe('which requests are written at once', () => {
  // 503 is shed load or a dependency away: counted as `shed`, never an ERROR row each.
  const cases: [number, boolean][] = [
    [200, false],
    [404, false],
    [429, false],
    [499, false],
    [500, true],
    [502, true],
    [503, false],
    [504, true],
  ];
  for (const [status, immediate] of cases) {
    it(`${status} ${immediate ? 'is' : 'is not'} written as its own api.request_failed event`, () => assert.equal(isServerError(status), immediate));
  }
});
