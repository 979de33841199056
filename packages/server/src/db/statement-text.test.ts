// Statement shapes (statement-text.ts): padded row counts keep SQLite's prepared
// statements few; a shape is cut at its placeholders once and reused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Db, DialectName } from './database.js';
import { paddedRows, runStatement, statementText, valuesList } from './statement-text.js';

describe('paddedRows', () => {
  const cases: Array<[DialectName, number, number]> = [
    ['sqlite', 1, 16],
    ['sqlite', 15, 16],
    ['sqlite', 16, 16],
    ['sqlite', 17, 32],
    ['sqlite', 57, 64],
    ['sqlite', 500, 512],
    ['postgres', 1, 1],
    ['postgres', 17, 17],
    ['postgres', 500, 500],
  ];
  for (const [dialect, n, rows] of cases)
    it(`${dialect}: ${n} rows are written as ${rows}`, () => {
      assert.equal(paddedRows(dialect, n), rows);
    });

  it('sqlite: every chunk of up to 500 rows takes one of 32 texts', () => {
    assert.equal(new Set(Array.from({ length: 500 }, (_, i) => paddedRows('sqlite', i + 1))).size, 32);
  });
});

describe('statementText', () => {
  it('cuts the text at each placeholder, once per shape', () => {
    let made = 0;
    const make = () => {
      made++;
      return `select * from t where a = ? and b in (${valuesList('?', 3)})`;
    };
    const first = statementText('test-shape 3', make);
    assert.deepEqual(first, ['select * from t where a = ', ' and b in (', ', ', ', ', ')']);
    assert.equal(statementText('test-shape 3', make), first);
    assert.equal(made, 1);
  });

  it('valuesList repeats a row group', () => {
    assert.equal(valuesList('(?, ?)', 3), '(?, ?), (?, ?), (?, ?)');
  });

  it('runStatement refuses values that do not match the placeholders (a shape bug, not a query)', async () => {
    const text = statementText('test-two-values', () => 'select ?, ?');
    await assert.rejects(runStatement(null as unknown as Db, text, [1]), /takes 2 values, got 1/);
  });
});
