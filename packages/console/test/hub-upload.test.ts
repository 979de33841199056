import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  problemColumn,
  problemSentence,
  progressText,
  readUploadStream,
  sentPercent,
  summaryText,
  truncatedText,
  uploadTypeOf,
  type UploadSummary,
} from '../src/hub/upload-model.js';

describe('uploadTypeOf: the Content-Type a chosen file is sent as', () => {
  const cases: Array<[string, string, string | null]> = [
    ['history.csv', 'text/csv', 'text/csv'],
    ['HISTORY.CSV', '', 'text/csv'],
    ['history.csv', 'application/vnd.ms-excel', 'text/csv'],
    ['events.ndjson', '', 'application/x-ndjson'],
    ['events.jsonl', 'application/octet-stream', 'application/x-ndjson'],
    ['export', 'text/csv; charset=utf-8', 'text/csv'],
    ['export', 'application/x-ndjson', 'application/x-ndjson'],
    ['export', 'application/jsonl', 'application/x-ndjson'],
    ['events.json', 'application/json', null],
    ['notes.txt', 'text/plain', null],
    ['', '', null],
  ];
  for (const [name, type, want] of cases)
    it(`${name || '(no name)'} ${type || '(no type)'} -> ${want}`, () => assert.equal(uploadTypeOf({ name, type }), want));
});

const progress = (lines: number) => ({ object: 'usage_upload_progress', lines, accepted: lines, duplicates: 0, rejected: 0 });
const summary: UploadSummary = {
  object: 'usage_upload',
  lines: 3,
  accepted: 2,
  duplicates: 0,
  rejected: 1,
  errors: [{ line: 3, code: 'UNKNOWN_METRIC', message: 'No metric', field: 'line 3.metricName' }],
  errorsTruncated: false,
};
const j = (v: unknown) => JSON.stringify(v);

describe('readUploadStream: what the streamed answer says so far', () => {
  const cases: Array<[string, string, boolean, { progress: number | null; summary: boolean; failure: boolean }]> = [
    ['nothing yet', '', false, { progress: null, summary: false, failure: false }],
    ['a line still arriving is not read', '{"object":"usage_upload_progress","lines":1', false, { progress: null, summary: false, failure: false }],
    ['the latest progress line', `${j(progress(10000))}\n${j(progress(20000))}\n{"obj`, false, { progress: 20000, summary: false, failure: false }],
    ['the summary ends it', `${j(progress(10000))}\n${j(summary)}\n`, true, { progress: 10000, summary: true, failure: false }],
    ['a complete answer without a final newline', j(summary), true, { progress: null, summary: true, failure: false }],
    [
      'an error envelope as the last line',
      `${j(progress(10000))}\n${j({ success: false, errors: [{ code: 'X', message: 'm' }] })}\n`,
      true,
      { progress: 10000, summary: false, failure: true },
    ],
    ['a line that is not JSON is skipped', `garbage\n${j(summary)}\n`, true, { progress: null, summary: true, failure: false }],
  ];
  for (const [name, text, complete, want] of cases) {
    it(name, () => {
      const read = readUploadStream(text, complete);
      assert.deepEqual({ progress: read.progress?.lines ?? null, summary: read.summary !== null, failure: read.failure !== null }, want);
    });
  }
});

describe('sentPercent and progressText', () => {
  const percents: Array<[number, number, number]> = [
    [0, 100, 0],
    [42, 100, 42],
    [999, 1000, 99],
    [1000, 1000, 100],
    [5, 0, 0],
    [200, 100, 100],
  ];
  for (const [sent, total, want] of percents) it(`${sent} of ${total} -> ${want}%`, () => assert.equal(sentPercent(sent, total), want));

  const texts: Array<[number, number, ReturnType<typeof progress> | null, string]> = [
    [0, 2048, null, 'Sending the file: 0%.'],
    [1024, 2048, null, 'Sending the file: 50%.'],
    [2048, 2048, null, 'File sent. Checking its lines…'],
    [2048, 2048, progress(20000), '20,000 lines read so far: 20,000 accepted, 0 duplicates skipped, 0 rejected.'],
  ];
  for (const [sent, total, counts, want] of texts) it(want, () => assert.equal(progressText(sent, total, counts), want));
});

describe('summaryText and truncatedText: the report in words', () => {
  it('counts', () => assert.equal(summaryText(summary), '3 lines read: 2 accepted, 0 duplicates skipped, 1 rejected.'));
  it('one of each', () =>
    assert.equal(summaryText({ ...summary, lines: 1, accepted: 1, duplicates: 1, rejected: 0 }), '1 line read: 1 accepted, 1 duplicate skipped, 0 rejected.'));
  it('a whole list says nothing', () => assert.equal(truncatedText(summary), null));
  it('a list cut short says so, with the full count', () =>
    assert.equal(
      truncatedText({ ...summary, rejected: 1500, errors: Array.from({ length: 1000 }, () => summary.errors[0]!), errorsTruncated: true }),
      'Only the first 1,000 problems are listed below; 1,500 lines were rejected in all.',
    ));
});

describe('problemColumn and problemSentence: a rejected line in words, not as a path ("line 4.quantity")', () => {
  const e = (line: number, field: string, message: string) => ({ line, code: 'INVALID_EVENT', field, message });
  const cases: Array<[ReturnType<typeof e>, string | null, string]> = [
    [
      e(4, 'line 4.quantity', 'line 4.quantity must be a decimal number such as 12 or 0.25 (got "abc").'),
      'quantity',
      'The quantity must be a decimal number such as 12 or 0.25 (got "abc").',
    ],
    [
      e(3, 'line 3.metricName', "line 3.metricName 'no_such_metric' is not a billable metric of this workspace and environment."),
      'metricName',
      "The metricName 'no_such_metric' is not a billable metric of this workspace and environment.",
    ],
    [e(6, 'line 6.occurredAt', 'line 6.occurredAt is required.'), 'occurredAt', 'The occurredAt is required.'],
    [e(7, 'line 7.metadata.region', 'line 7.metadata.region must be a string.'), 'metadata.region', 'The metadata.region must be a string.'],
    [e(2, 'line 2', 'line 2 has 3 fields; the header has 4.'), null, 'This line has 3 fields; the header has 4.'],
    [e(5, 'line 5', 'line 5 is not valid JSON: Unexpected token.'), null, 'This line is not valid JSON: Unexpected token.'],
    // Another line's path in the message, or none: shown as sent, starting with a capital.
    [e(8, 'line 8.quantity', 'quantity is too large.'), 'quantity', 'Quantity is too large.'],
    [e(9, 'customerId', 'customerId must be yours.'), 'customerId', 'The customerId must be yours.'],
  ];
  for (const [error, column, sentence] of cases) {
    it(`${error.field} -> ${sentence}`, () => {
      assert.equal(problemColumn(error), column);
      assert.equal(problemSentence(error), sentence);
    });
  }
});
