import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { decodeSubscriptionEvent } from './decode-subscription-event.js';
import { ForwarderError } from './types.js';
import { sampleDir } from '../test/fixtures.js';

const encode = (value: unknown) => ({ awslogs: { data: gzipSync(JSON.stringify(value)).toString('base64') } });

describe('decodeSubscriptionEvent', () => {
  it("decodes AWS's documented sample event to its documented decoded form", () => {
    const sample: unknown = JSON.parse(readFileSync(`${sampleDir}/lambda-sample-event.json`, 'utf8'));
    const decoded: unknown = JSON.parse(readFileSync(`${sampleDir}/lambda-sample-event.decoded.json`, 'utf8'));
    assert.deepEqual(decodeSubscriptionEvent(sample), decoded);
  });

  it('CONTROL_MESSAGE is acknowledged and carries no log events', () => {
    const d = decodeSubscriptionEvent(
      encode({
        messageType: 'CONTROL_MESSAGE',
        owner: 'CloudwatchLogs',
        logGroup: '',
        logStream: '',
        subscriptionFilters: [],
        logEvents: [{ id: '', timestamp: 1, message: 'CWL CONTROL MESSAGE: Checking health of destination Lambda.' }],
      }),
    );
    assert.deepEqual(d, { messageType: 'CONTROL_MESSAGE', logEvents: [] });
  });

  it('the decompressed size is capped: past the cap it throws PAYLOAD_TOO_LARGE naming the cap', () => {
    // 2 MB of log lines that gzip to a few KB: what a zip bomb looks like.
    const big = encode({ messageType: 'DATA_MESSAGE', logEvents: [{ id: '1', timestamp: 1, message: 'x'.repeat(2 * 1024 * 1024) }] });
    assert.ok(big.awslogs.data.length < 20_000);
    assert.throws(
      () => decodeSubscriptionEvent(big, 1024 * 1024),
      (err: unknown) => err instanceof ForwarderError && err.code === 'PAYLOAD_TOO_LARGE' && /1048576 bytes/.test(err.message),
    );
    assert.equal(decodeSubscriptionEvent(big, 3 * 1024 * 1024).logEvents.length, 1);
  });

  const invalid: Array<[what: string, event: unknown, message: RegExp]> = [
    ['an event without awslogs.data', { Records: [] }, /awslogs\.data is missing/],
    ['data that is not gzip', { awslogs: { data: Buffer.from('hello').toString('base64') } }, /not base64 of gzip/],
    ['gzip that is not JSON', { awslogs: { data: gzipSync('nope').toString('base64') } }, /does not decode to JSON/],
    ['an unknown messageType', encode({ messageType: 'OTHER', logEvents: [] }), /messageType is "OTHER"/],
    [
      'a log event without a numeric timestamp',
      encode({ messageType: 'DATA_MESSAGE', logEvents: [{ id: 'a', timestamp: '1', message: '' }] }),
      /logEvents\[0\]\.timestamp/,
    ],
  ];
  for (const [what, event, message] of invalid) {
    it(`INVALID_EVENT for ${what}`, () => {
      assert.throws(
        () => decodeSubscriptionEvent(event),
        (err: unknown) => err instanceof ForwarderError && err.code === 'INVALID_EVENT' && message.test(err.message),
      );
    });
  }
});
