import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bucketIndex, HttpSeries, statusClassIndex } from './http-series.js';

const BOUNDS = [0.001, 0.01, 0.1];

describe('http series: the pure rules', () => {
  it('a duration falls in the first bucket whose upper bound holds it (le is inclusive), past the last in +Inf', () => {
    const cases: Array<[number, number]> = [
      [0, 0],
      [0.0005, 0],
      [0.001, 0],
      [0.0011, 1],
      [0.01, 1],
      [0.05, 2],
      [0.1, 2],
      [0.1000001, 3],
      [30, 3],
    ];
    for (const [value, index] of cases) assert.equal(bucketIndex(BOUNDS, value), index, `${value} s`);
  });

  it('a status counts in its class; anything outside 100-599 in the nearest', () => {
    const cases: Array<[number, number]> = [
      [100, 0],
      [200, 1],
      [204, 1],
      [301, 2],
      [404, 3],
      [429, 3],
      [503, 4],
      [0, 0],
      [999, 4],
    ];
    for (const [status, index] of cases) assert.equal(statusClassIndex(status), index, String(status));
  });
});

describe('http series: the families at scrape time', () => {
  const value = (values: ReturnType<HttpSeries['histogramValues']>, metricName: string, labels: Record<string, string | number>) =>
    values.find((v) => v.metricName === metricName && Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;

  it('counts, cumulative buckets, +Inf, sum and count per method, route pattern and status class', () => {
    const s = new HttpSeries(BOUNDS);
    s.record('GET', '/v1/things/:id', 200, 0.0005);
    s.record('GET', '/v1/things/:id', 201, 0.05);
    s.record('GET', '/v1/things/:id', 404, 2);
    s.record('POST', '/v1/things', 200, 0.002);
    s.record('GET', null, 404, 0.0001);

    const counts = s.counterValues();
    assert.deepEqual(
      counts.map((c) => [c.labels.method, c.labels.route, c.labels.status_class, c.value]),
      [
        ['GET', '/v1/things/:id', '2xx', 2],
        ['GET', '/v1/things/:id', '4xx', 1],
        ['POST', '/v1/things', '2xx', 1],
        ['GET', '(unmatched)', '4xx', 1],
      ],
    );

    const h = s.histogramValues('d');
    const ok = { method: 'GET', route: '/v1/things/:id', status_class: '2xx' };
    assert.deepEqual(
      [0.001, 0.01, 0.1, '+Inf'].map((le) => value(h, 'd_bucket', { ...ok, le })),
      [1, 1, 2, 2],
    );
    assert.equal(value(h, 'd_sum', ok), 0.0505);
    assert.equal(value(h, 'd_count', ok), 2);
    assert.equal(value(h, 'd_bucket', { route: '/v1/things/:id', status_class: '4xx', le: 0.1 }), 0);
    assert.equal(value(h, 'd_bucket', { route: '/v1/things/:id', status_class: '4xx', le: '+Inf' }), 1);
  });

  it('methods outside the usual seven share one OTHER series, added together', () => {
    const s = new HttpSeries(BOUNDS);
    s.record('PROPFIND', null, 404, 0.005);
    s.record('BREW', null, 404, 0.05);
    const counts = s.counterValues();
    assert.equal(counts.length, 1);
    assert.deepEqual(counts[0], { labels: { method: 'OTHER', route: '(unmatched)', status_class: '4xx' }, value: 2 });
    const h = s.histogramValues('d');
    assert.equal(value(h, 'd_bucket', { method: 'OTHER', le: 0.01 }), 1);
    assert.equal(value(h, 'd_count', { method: 'OTHER' }), 2);
  });
});
