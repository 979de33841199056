import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAPPING, eventIdOf, mapLogEvent, type Mapped } from './map-access-log.js';
import type { LogEvent } from './types.js';
import { accessLogLine } from '../test/fixtures.js';

const AT = Date.UTC(2026, 0, 15, 11, 58, 30, 123);

/** AWS's documented JSON format, every value a string; an API key value as well as its id. */
const restLine = (over: Record<string, string> = {}) =>
  accessLogLine({ requestTimeEpoch: String(AT - 40), apiKey: 'AbCdEf0123456789AbCdEf0123456789', ...over });

const logEvent = (line: unknown, id: string | undefined = '37585948475635849300383927648575849200012345678901234567'): LogEvent => ({
  ...(id === undefined ? {} : { id }),
  timestamp: AT,
  message: typeof line === 'string' ? line : JSON.stringify(line),
});

const map = (line: unknown, opts = DEFAULT_MAPPING, id?: string) => mapLogEvent(logEvent(line, id), opts);
const ev = (m: Mapped) => {
  assert.ok('event' in m, `mapped, not skipped: ${JSON.stringify(m)}`);
  return m.event;
};

describe('the gateway-log forwarder mapping (spec, Usage event)', () => {
  const rules: Array<[rule: string, line: unknown, check: (m: Mapped) => void]> = [
    ['customerId comes from the API key or consumer in the log line', restLine(), (m) => assert.equal(ev(m).customerId, 'key-acme')],
    ['metricName is api_calls', restLine(), (m) => assert.equal(ev(m).metricName, 'api_calls')],
    ['quantity is 1', restLine(), (m) => assert.equal(ev(m).quantity, 1)],
    ['occurredAt is the log event time as ISO 8601', restLine(), (m) => assert.equal(ev(m).occurredAt, '2026-01-15T11:58:30.123Z')],
    ['metadata.method comes from the log fields (httpMethod)', restLine({ httpMethod: 'POST' }), (m) => assert.equal(ev(m).metadata.method, 'POST')],
    ['metadata.path comes from the log fields (path)', restLine(), (m) => assert.equal(ev(m).metadata.path, '/prod/pets/42')],
    ['metadata.path comes from resourcePath when the format has no path', restLine({ path: '-' }), (m) => assert.equal(ev(m).metadata.path, '/pets/{petId}')],
    ['metadata.statusCode comes from the log fields, as a number', restLine({ status: '429' }), (m) => assert.equal(ev(m).metadata.statusCode, 429)],
    ['metadata.latencyMs comes from the log fields (responseLatency)', restLine(), (m) => assert.equal(ev(m).metadata.latencyMs, 31)],
    [
      'metadata.latencyMs comes from integrationLatency when responseLatency is missing',
      restLine({ responseLatency: '-' }),
      (m) => assert.equal(ev(m).metadata.latencyMs, 27),
    ],
    ['metadata.requestId comes from the log fields', restLine(), (m) => assert.equal(ev(m).metadata.requestId, 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef')],
    [
      'metadata holds exactly method, path, statusCode, latencyMs, requestId',
      restLine(),
      (m) => assert.deepEqual(Object.keys(ev(m).metadata).sort(), ['latencyMs', 'method', 'path', 'requestId', 'statusCode']),
    ],
    // Defaults when parsing.
    ['default path / when the line has none', { httpMethod: 'GET', apiKeyId: 'k' }, (m) => assert.equal(ev(m).metadata.path, '/')],
    ['default path / when the path is "-"', restLine({ path: '-', resourcePath: '-' }), (m) => assert.equal(ev(m).metadata.path, '/')],
    ['default status 200 when the line has none', { httpMethod: 'GET', apiKeyId: 'k' }, (m) => assert.equal(ev(m).metadata.statusCode, 200)],
    ['default status 200 when the status is "-"', restLine({ status: '-' }), (m) => assert.equal(ev(m).metadata.statusCode, 200)],
    ['default status 200 when the status is not a number', restLine({ status: 'OK' }), (m) => assert.equal(ev(m).metadata.statusCode, 200)],
    ['default latency 0 when the line has none', { httpMethod: 'GET', apiKeyId: 'k' }, (m) => assert.equal(ev(m).metadata.latencyMs, 0)],
    [
      'default latency 0 when the latencies are "-"',
      restLine({ responseLatency: '-', integrationLatency: '-' }),
      (m) => assert.equal(ev(m).metadata.latencyMs, 0),
    ],
    ['default requestId empty when the line has none', { httpMethod: 'GET', apiKeyId: 'k' }, (m) => assert.equal(ev(m).metadata.requestId, '')],
    ['default requestId empty when the requestId is "-"', restLine({ requestId: '-' }), (m) => assert.equal(ev(m).metadata.requestId, '')],
    // Skips.
    ['a line lacking a method is skipped', (({ httpMethod: _, ...rest }) => rest)(restLine()), (m) => assert.deepEqual(m, { skip: 'no-method' })],
    ['a line whose method is "-" is skipped (lacking a method)', restLine({ httpMethod: '-' }), (m) => assert.deepEqual(m, { skip: 'no-method' })],
    ['a line lacking a consumer key is skipped', (({ apiKeyId: _, ...rest }) => rest)(restLine()), (m) => assert.deepEqual(m, { skip: 'no-consumer' })],
    ['a line whose consumer key is "-" is skipped (lacking a consumer key)', restLine({ apiKeyId: '-' }), (m) => assert.deepEqual(m, { skip: 'no-consumer' })],
    ['a line that is not JSON is skipped as not-json', '[ERROR] First test message', (m) => assert.deepEqual(m, { skip: 'not-json' })],
    ['a JSON line that is not an object is skipped as not-json', '["GET"]', (m) => assert.deepEqual(m, { skip: 'not-json' })],
  ];
  for (const [rule, line, check] of rules) it(rule, () => check(map(line)));

  it('the consumer field is configurable (an authorizer principal)', () => {
    const m = map(restLine({ principalId: 'user-7' }), { ...DEFAULT_MAPPING, consumerField: 'principalId' });
    assert.equal(ev(m).customerId, 'user-7');
  });

  it('the consumer field may be a dotted path into a nested format', () => {
    const m = map({ httpMethod: 'GET', identity: { apiKey: 'secret-key-value' } }, { ...DEFAULT_MAPPING, consumerField: 'identity.apiKey' });
    assert.equal(ev(m).customerId, 'secret-key-value');
  });

  it('the metric name is configurable', () => {
    assert.equal(ev(map(restLine(), { ...DEFAULT_MAPPING, metricName: 'requests' })).metricName, 'requests');
  });

  it('occurredAt is the log event time, not the request time field nor the time of delivery', () => {
    const m = map(restLine({ requestTimeEpoch: String(AT - 3_600_000) }));
    assert.equal(ev(m).occurredAt, new Date(AT).toISOString());
  });

  it('a path longer than the server takes (500 characters) is cut, not refused', () => {
    assert.equal(ev(map(restLine({ path: `/${'a'.repeat(700)}` }))).metadata.path.length, 500);
  });
});

describe('eventId: a redelivered log batch is never counted twice', () => {
  it("comes from CloudWatch's id of the log event", () => {
    assert.equal(ev(map(restLine(), DEFAULT_MAPPING, 'cw-1')).eventId, 'cwl:cw-1');
  });
  it('comes from extendedRequestId (which callers cannot override) without a log event id', () => {
    assert.equal(eventIdOf(undefined, restLine()), 'apigw:ABCDEFGHIJKLMNO=');
  });
  it('never comes from requestId, which a caller can set through a header', () => {
    assert.equal(eventIdOf(undefined, restLine({ extendedRequestId: '-' })), undefined);
  });
});
