import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CsvRecordReader, csvEvent, parseCsvHeader, physicalLines, type CsvRecord } from './upload-format.js';

/** Feeds lines 1..n to a fresh reader and returns every record it completes, then end(). */
function read(lines: string[], maxChars?: number): CsvRecord[] {
  const reader = new CsvRecordReader(maxChars);
  const out: CsvRecord[] = [];
  lines.forEach((text, i) => {
    const r = reader.push(i + 1, text);
    if (r) out.push(r);
  });
  const last = reader.end();
  if (last) out.push(last);
  return out;
}

describe('CsvRecordReader (RFC 4180)', () => {
  const cases: Array<[string, string[], Array<[number, string[] | RegExp]>]> = [
    ['plain fields', ['a,b,c'], [[1, ['a', 'b', 'c']]]],
    ['empty fields, a trailing comma', [',x,'], [[1, ['', 'x', '']]]],
    ['a quoted comma', ['"a,b",c'], [[1, ['a,b', 'c']]]],
    ['doubled quotes', ['"say ""hi""",""'], [[1, ['say "hi"', '']]]],
    [
      'a quoted line break, named by its first line',
      ['"two', 'lines",x', 'y'],
      [
        [1, ['two\nlines', 'x']],
        [3, ['y']],
      ],
    ],
    [
      'blank lines between records',
      ['a', '', 'b'],
      [
        [1, ['a']],
        [3, ['b']],
      ],
    ],
    [
      'a quote inside an unquoted field',
      ['5" screen,x', 'ok'],
      [
        [1, /quote inside field 1/],
        [2, ['ok']],
      ],
    ],
    [
      'text after a closing quote',
      ['"a"b,c', 'ok'],
      [
        [1, /after the closing quote of field 1/],
        [2, ['ok']],
      ],
    ],
    [
      'a quote never closed',
      ['x', '"open', 'more'],
      [
        [1, ['x']],
        [2, /never closed/],
      ],
    ],
  ];
  for (const [what, lines, expected] of cases) {
    it(what, () => {
      const got = read(lines);
      assert.equal(got.length, expected.length, JSON.stringify(got));
      expected.forEach(([line, want], i) => {
        const r = got[i]!;
        assert.equal(r.line, line);
        if (want instanceof RegExp) assert.match('error' in r ? r.error : '', want);
        else assert.deepEqual('fields' in r ? r.fields : r, want);
      });
    });
  }

  it('a record longer than the limit is an error, and reading resumes at the next line', () => {
    const got = read(['"' + 'x'.repeat(30), 'y'.repeat(30), 'a,b'], 40);
    assert.deepEqual(got, [
      { line: 1, error: 'is longer than 40 characters (is a quote left open?)' },
      { line: 3, fields: ['a', 'b'] },
    ]);
  });
});

describe('physicalLines', () => {
  async function lines(chunks: Array<string | Buffer>, max?: number) {
    const out = [];
    for await (const l of physicalLines(
      (async function* () {
        yield* chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c));
      })(),
      max,
    ))
      out.push(l);
    return out;
  }

  it('splits on LF across chunks, drops a CR before it, and keeps a last line without LF', async () => {
    assert.deepEqual(await lines(['ab', 'c\r\nd', 'e\n\nf']), [
      { line: 1, text: 'abc' },
      { line: 2, text: 'de' },
      { line: 3, text: '' },
      { line: 4, text: 'f' },
    ]);
  });

  it('decodes a character split between chunks, and strips a byte order mark', async () => {
    const euro = Buffer.from('€');
    assert.deepEqual(await lines([Buffer.concat([Buffer.from('\uFEFFa'), euro.subarray(0, 1)]), euro.subarray(1), '\n']), [{ line: 1, text: 'a€' }]);
  });

  it('reports a line too long or not UTF-8 instead of returning it', async () => {
    assert.deepEqual(await lines(['12345', '6\nok\n', Buffer.from([0xff, 0x0a])], 5), [
      { line: 1, problem: 'is longer than 5 bytes' },
      { line: 2, text: 'ok' },
      { line: 3, problem: 'is not valid UTF-8' },
    ]);
  });
});

describe('CSV quantity', () => {
  const columns = parseCsvHeader(['customerId', 'metricName', 'quantity', 'occurredAt']);
  const quantityOf = (text: string) => {
    const r = csvEvent(columns, 2, ['c', 'm', text, 't']);
    return 'event' in r ? (r.event as { quantity?: number }).quantity : r.rejection.code;
  };
  const table: Array<[string, number | string | undefined]> = [
    ['12', 12],
    ['0.25', 0.25],
    ['007', 7],
    ['-1', -1], // a number: checkEventShape then says NEGATIVE_QUANTITY
    ['1e3', 1000],
    ['', undefined], // left out: checkEventShape then says it is required
    ['1,000', 'INVALID_QUANTITY'],
    [' 1', 'INVALID_QUANTITY'],
    ['1.', 'INVALID_QUANTITY'],
    ['.5', 'INVALID_QUANTITY'],
    ['0x10', 'INVALID_QUANTITY'],
    ['Infinity', 'INVALID_QUANTITY'],
    ['NaN', 'INVALID_QUANTITY'],
  ];
  for (const [text, want] of table) {
    it(`${JSON.stringify(text)} -> ${String(want)}`, () => assert.equal(quantityOf(text), want));
  }
});
