import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { createMetric } from '../metrics/create-metric.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;

const URL = '/api/v1/usage/uploads';
const NDJSON = { 'content-type': 'application/x-ndjson' };
const CSV = { 'content-type': 'text/csv' };
const DAY = 24 * 60 * 60 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();
const minuteAgo = () => iso(t.clock.now() - 60_000);
const line = (customerId: string, over: Record<string, unknown> = {}) =>
  JSON.stringify({ customerId, metricName: 'api_calls', quantity: 1, occurredAt: minuteAgo(), ...over });
const ndjson = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('\n');

const eventsOf = (cid: string) =>
  t.deps.db
    .selectFrom('usageEvents')
    .select(['quantity', 'metadata', 'source', 'eventId', 'occurredAt'])
    .where('customerId', '=', cid)
    .orderBy('seq')
    .execute();
const aggregates = (cid: string) => t.deps.db.selectFrom('usageAggregates').selectAll().where('customerId', '=', cid).orderBy('periodStart').execute();

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  for (const name of ['api_calls', 'tokens']) await createMetric(t.deps, ws.test.ctx, { name });
});
after(() => t.close());

describe('POST /api/v1/usage/uploads', () => {
  it('200 stores 2,497 of 2,500 NDJSON lines, chunk by chunk, and names the three bad lines by number and code', async () => {
    const c = await t.seed.customer(ws.test);
    const body = ndjson(2500, (i) => {
      if (i === 11) return line(c.id, { metricName: 'api_callz' }); // line 12
      if (i === 1499) return line(c.id, { quantity: -2 }); // line 1500
      if (i === 2399) return '{"customerId": "broken'; // line 2400
      return line(c.id, { quantity: 2 });
    });
    const res = await api.post(URL, body, NDJSON);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      { ...res.body, errors: undefined },
      {
        object: 'usage_upload',
        environment: 'test',
        lines: 2500,
        accepted: 2497,
        duplicates: 0,
        rejected: 3,
        errors: undefined,
        errorsTruncated: false,
      },
    );
    assert.deepEqual(
      res.body.errors.map((e: { line: number; code: string; field: string }) => [e.line, e.code, e.field]),
      [
        [12, 'UNKNOWN_METRIC', 'line 12.metricName'],
        [1500, 'NEGATIVE_QUANTITY', 'line 1500.quantity'],
        [2400, 'INVALID_EVENT', 'line 2400'],
      ],
    );
    assert.match(res.body.errors[2].message, /^line 2400 is not valid JSON/);
    const [agg] = await aggregates(c.id);
    assert.equal(agg?.quantitySum, String(2497 * 2));
    assert.equal(agg?.eventCount, 2497);
    const stored = await eventsOf(c.id);
    assert.equal(stored.length, 2497);
    assert.ok(stored.every((e) => e.source === 'upload'));
    // One write per chunk of 1,000 lines, each with its own audit event.
    const audits = await t.deps.db
      .selectFrom('auditEvents')
      .select('payload')
      .where('workspaceId', '=', ws.workspaceId)
      .where('eventType', '=', 'usage.batch_ingested')
      .where('payload', 'like', '%"source":"upload"%')
      .execute();
    assert.deepEqual(
      audits.map((a) => JSON.parse(a.payload).accepted as number).sort((a, b) => a - b),
      [499, 999, 999],
    );
  });

  it('200 accepts events a year old, into the month they occurred in; one more than 5 minutes ahead is still rejected', async () => {
    const c = await t.seed.customer(ws.test);
    const yearAgo = t.clock.now() - 365 * DAY;
    const body = [line(c.id, { occurredAt: iso(yearAgo), quantity: 7 }), '', '   ', line(c.id, { occurredAt: iso(t.clock.now() + 6 * 60_000) })].join('\n');
    const res = await api.post(URL, body, NDJSON);
    assert.equal(res.status, 200);
    assert.equal(res.body.lines, 2, 'blank lines are skipped, not counted');
    assert.equal(res.body.accepted, 1);
    assert.deepEqual(
      res.body.errors.map((e: { line: number; code: string }) => [e.line, e.code]),
      [[4, 'TIMESTAMP_IN_FUTURE']],
    );
    const [agg] = await aggregates(c.id);
    const d = new Date(yearAgo);
    assert.equal(agg?.periodStart, Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
    assert.equal(agg?.quantitySum, '7');
  });

  it('200 reads CSV with a header, quoted fields holding commas, quotes and line breaks, and metadata.* columns as string metadata', async () => {
    const c = await t.seed.customer(ws.test, { externalId: 'csv-co' });
    const at = minuteAgo();
    const csv = [
      'customerId,metricName,quantity,occurredAt,eventId,metadata.region,metadata.note',
      `csv-co,api_calls,12,${at},csv-1,eu-west,"Smith, ""Jr."""`,
      `"${c.id}",tokens,0.25,"${at}",,us,`,
      `csv-co,api_calls,1.5,${at},csv-3,,"two`,
      `lines"`,
      '',
    ].join('\r\n');
    const res = await api.post(URL, csv, CSV);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.accepted, 3, JSON.stringify(res.body.errors));
    assert.equal(res.body.lines, 3, 'a record spanning two lines is one event line');
    const stored = await eventsOf(c.id);
    assert.deepEqual(
      stored.map((e) => [e.quantity, e.eventId, e.metadata === null ? null : JSON.parse(e.metadata)]),
      [
        ['12', 'csv-1', { region: 'eu-west', note: 'Smith, "Jr."' }],
        ['0.25', null, { region: 'us' }],
        ['1.5', 'csv-3', { note: 'two\nlines' }],
      ],
    );
  });

  it('200 rejects bad CSV rows one by one and keeps the good ones', async () => {
    const c = await t.seed.customer(ws.test);
    const at = minuteAgo();
    const csv = [
      'customerId,metricName,quantity,occurredAt',
      `${c.id},api_calls,1,${at}`,
      `${c.id},api_calls,"1,000",${at}`, // line 3: a thousands separator is not a decimal number
      `${c.id},api_calls,,${at}`, // line 4: empty quantity reads as missing
      `${c.id},api_calls,1,${at},extra`, // line 5: five fields under a four-column header
      `${c.id},api_calls,5" screen,${at}`, // line 6: a quote inside an unquoted field
      `${c.id},api_calls,-1,${at}`, // line 7
      `${c.id},api_calls,2,${at}`,
    ].join('\n');
    const res = await api.post(URL, csv, CSV);
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 2);
    assert.deepEqual(
      res.body.errors.map((e: { line: number; code: string; field: string }) => [e.line, e.code, e.field]),
      [
        [3, 'INVALID_QUANTITY', 'line 3.quantity'],
        [4, 'INVALID_QUANTITY', 'line 4.quantity'],
        [5, 'INVALID_EVENT', 'line 5'],
        [6, 'INVALID_EVENT', 'line 6'],
        [7, 'NEGATIVE_QUANTITY', 'line 7.quantity'],
      ],
    );
    assert.match(res.body.errors[2].message, /has 5 fields; the header has 4/);
  });

  it('200 rejects a line longer than 64 KiB or not UTF-8 without buffering it, and reads on', async () => {
    const c = await t.seed.customer(ws.test);
    const payload = Buffer.concat([
      Buffer.from(`${line(c.id, { metadata: { pad: 'x'.repeat(70_000) } })}\n`),
      Buffer.from('{"customerId": "'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n'),
      Buffer.from(line(c.id)),
    ]);
    const res = await t.app.inject({ method: 'POST', url: URL, payload, headers: { ...NDJSON, authorization: `Bearer ${ws.test.secretKey}` } });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.accepted, 1);
    assert.deepEqual(
      body.errors.map((e: { line: number; message: string }) => [e.line, e.message]),
      [
        [1, 'line 1 is longer than 65536 bytes.'],
        [2, 'line 2 is not valid UTF-8.'],
      ],
    );
  });

  it('200 rejects lines holding a NUL character (PostgreSQL text refuses it) or nested too deeply, naming them, and reads on', async () => {
    const c = await t.seed.customer(ws.test);
    const nd = [
      line('a\u0000b'),
      line(c.id, { eventId: 'e\u0000' }),
      line(c.id, { metadata: JSON.parse('{"a":'.repeat(70) + '1' + '}'.repeat(70)) }),
      line(c.id),
    ].join('\n');
    const res = await api.post(URL, nd, NDJSON);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.accepted, 1);
    assert.deepEqual(
      res.body.errors.map((e: { line: number; code: string; field: string }) => [e.line, e.code, e.field]),
      [
        [1, 'INVALID_EVENT', 'line 1.customerId'],
        [2, 'INVALID_EVENT', 'line 2.eventId'],
        [3, 'INVALID_EVENT', 'line 3'],
      ],
    );
    assert.match(res.body.errors[0].message, /^line 1\.customerId contains a NUL character/);
    const csv = `customerId,metricName,quantity,occurredAt\n${c.id},api\u0000calls,1,${minuteAgo()}\n${c.id},api_calls,1,${minuteAgo()}\n`;
    const fromCsv = await api.post(URL, csv, CSV);
    assert.equal(fromCsv.status, 200, JSON.stringify(fromCsv.body));
    assert.equal(fromCsv.body.accepted, 1);
    assert.deepEqual(
      fromCsv.body.errors.map((e: { line: number; message: string }) => [e.line, e.message]),
      [[2, 'line 2 contains a NUL character, which cannot be stored.']],
    );
  });

  it('200 counts duplicates when a file with eventIds is sent again, and stores nothing twice', async () => {
    const c = await t.seed.customer(ws.test);
    const body = ndjson(1500, (i) => line(c.id, { eventId: `hist-${i}` }));
    const first = await api.post(URL, body, NDJSON);
    assert.equal(first.body.accepted, 1500);
    const again = await api.post(URL, body, NDJSON);
    assert.equal(again.status, 200);
    assert.equal(again.body.accepted, 0);
    assert.equal(again.body.duplicates, 1500);
    assert.equal((await eventsOf(c.id)).length, 1500);
    assert.equal((await aggregates(c.id))[0]?.eventCount, 1500);
  });

  it('200 keeps the first 1,000 of 1,500 line errors, counts them all, and says the list is truncated', async () => {
    const c = await t.seed.customer(ws.test);
    const body = ndjson(2000, (i) => (i % 4 === 0 ? line(c.id) : line(c.id, { metricName: 'nope' })));
    const res = await api.post(URL, body, NDJSON);
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 500);
    assert.equal(res.body.rejected, 1500);
    assert.equal(res.body.errors.length, 1000);
    assert.equal(res.body.errorsTruncated, true);
    assert.equal(res.body.errors[0].line, 2);
    assert.ok(res.body.errors.every((e: { line: number }, i: number, all: Array<{ line: number }>) => i === 0 || e.line > all[i - 1]!.line));
  });

  it('200 streams a progress line after every 10,000 lines of a 25,000-line upload, then the summary (Accept: application/x-ndjson)', async () => {
    const c = await t.seed.customer(ws.test);
    const body = ndjson(25_000, (i) => (i === 17_000 ? line(c.id, { quantity: 'x' }) : line(c.id)));
    const res = await t.app.inject({
      method: 'POST',
      url: URL,
      payload: body,
      headers: { ...NDJSON, accept: 'application/x-ndjson', authorization: `Bearer ${ws.test.secretKey}` },
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    const out = res.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(out.slice(0, 2), [
      { object: 'usage_upload_progress', lines: 10_000, accepted: 10_000, duplicates: 0, rejected: 0 },
      { object: 'usage_upload_progress', lines: 20_000, accepted: 19_999, duplicates: 0, rejected: 1 },
    ]);
    assert.equal(out.length, 3);
    assert.equal(out[2].object, 'usage_upload');
    assert.equal(out[2].lines, 25_000);
    assert.equal(out[2].accepted, 24_999);
    assert.deepEqual(
      out[2].errors.map((e: { line: number; code: string }) => [e.line, e.code]),
      [[17_001, 'INVALID_QUANTITY']],
    );
  });

  it('200 names every problem of a bad line, and counts the line once in rejected', async () => {
    const c = await t.seed.customer(ws.test);
    const res = await api.post(URL, [line(c.id), line('ghost', { metricName: 'api_callz', quantity: -1 })].join('\n'), NDJSON);
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 1);
    assert.equal(res.body.rejected, 1);
    assert.deepEqual(
      res.body.errors.map((e: { line: number; code: string }) => [e.line, e.code]),
      [
        [2, 'UNKNOWN_CUSTOMER'],
        [2, 'UNKNOWN_METRIC'],
        [2, 'NEGATIVE_QUANTITY'],
      ],
    );
  });

  it('200 but nothing stored for a live key naming test customers: the key decides the environment', async () => {
    const c = await t.seed.customer(ws.test, { externalId: 'test-only' });
    await createMetric(t.deps, ws.live.ctx, { name: 'api_calls' });
    const res = await t.seed.client(ws.live.secretKey).post(URL, [line(c.id), line('test-only')].join('\n'), NDJSON);
    assert.equal(res.status, 200);
    assert.equal(res.body.environment, 'live');
    assert.equal(res.body.accepted, 0);
    assert.deepEqual(
      res.body.errors.map((e: { code: string }) => e.code),
      ['UNKNOWN_CUSTOMER', 'UNKNOWN_CUSTOMER'],
    );
    assert.equal((await eventsOf(c.id)).length, 0);
  });

  it('400 names a required column missing from the CSV header, and stores nothing', async () => {
    const c = await t.seed.customer(ws.test);
    const res = await api.post(URL, `customerId,metricName,occurredAt\n${c.id},api_calls,${minuteAgo()}\n`, CSV);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'header.quantity');
    assert.match(res.body.errors[0].message, /"quantity" column/);
    assert.equal((await eventsOf(c.id)).length, 0);
  });

  it('400 for a CSV header with an unknown or repeated column, and for an empty CSV', async () => {
    const cases: Array<[string, RegExp]> = [
      ['customerId,metricName,quantity,occurredAt,cost\n', /unknown column "cost"/],
      ['customerId,metricName,quantity,occurredAt,quantity\n', /"quantity" twice/],
      ['', /The CSV is empty/],
    ];
    for (const [csv, message] of cases) {
      const res = await api.post(URL, csv, CSV);
      assert.equal(res.status, 400, csv);
      assert.match(res.body.errors[0].message, message);
    }
  });

  it('415 for text/plain, naming the types it takes', async () => {
    const res = await api.post(URL, line('x'), { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
    assert.equal(res.body.success, false);
    assert.equal(res.body.errors[0].code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(res.body.errors[0].message, /application\/x-ndjson.*text\/csv/);
  });

  it('403 for a key without the admin scope; 401 without a key', async () => {
    const ingestOnly = await t.seed.workspaceKey(ws.test, ['ingest']);
    const forbidden = await t.seed.client(ingestOnly.token).post(URL, line('x'), NDJSON);
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    const anonymous = await t.seed.client(null).post(URL, line('x'), NDJSON);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('is documented in /openapi.json: both content types, the report and the errors', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const op = doc.paths[URL].post;
    assert.deepEqual(Object.keys(op.requestBody.content).sort(), ['application/x-ndjson', 'text/csv']);
    assert.deepEqual(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '415', '429', '503']);
    assert.ok(op.responses['200'].content['application/json'].schema.properties.errorsTruncated);
    assert.match(op.description, /eventId/);
  });
});
