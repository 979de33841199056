import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PATH_LENGTH, parseDottedPath, valueAtPath } from './dotted-path.js';

describe('lib.parseDottedPath', () => {
  const k40 = 'k'.repeat(40);
  const cases: Array<[string, string, string[] | null]> = [
    ['one key', 'method', ['method']],
    ['nested keys', 'request.headers.ua', ['request', 'headers', 'ua']],
    ['digits, _ and - are key characters', 'a_1.b-2.3', ['a_1', 'b-2', '3']],
    ['five segments of 40 characters', [k40, k40, k40, k40, k40].join('.'), [k40, k40, k40, k40, k40]],
    ['six segments are refused', 'a.b.c.d.e.f', null],
    ['a segment of 41 characters is refused', `a.${'k'.repeat(41)}`, null],
    ['an empty segment is refused', 'a..b', null],
    ['a leading dot is refused', '.a', null],
    ['a trailing dot is refused', 'a.', null],
    ['empty text is refused', '', null],
    ['a quote is refused', 'a"b', null],
    ['a space is refused', 'a b', null],
    ['brackets are refused', 'items[0]', null],
    ['a JSON path is refused', '$.a', null],
    ['a SQL injection is refused', "a') or 1=1 --", null],
    ['a line break after a valid path is refused', 'a\n', null],
  ];
  for (const [rule, text, expected] of cases) it(rule, () => assert.deepEqual(parseDottedPath(text), expected));

  it('the longest path is MAX_PATH_LENGTH characters', () => {
    const longest = Array.from({ length: 5 }, () => 'k'.repeat(40)).join('.');
    assert.equal(longest.length, MAX_PATH_LENGTH);
  });
});

describe('lib.valueAtPath', () => {
  const doc = JSON.parse('{"a": {"b": {"c": 1}, "list": [{"x": 1}], "n": null, "s": "text"}, "a.b": 2, "__proto__": {"p": 3}}') as unknown;
  const cases: Array<[string, string[], unknown]> = [
    ['a nested value', ['a', 'b', 'c'], 1],
    ['an object', ['a', 'b'], { c: 1 }],
    ['a missing key', ['a', 'zz'], undefined],
    ['through an array: nothing, even by index', ['a', 'list', '0'], undefined],
    ['through null: nothing', ['a', 'n', 'x'], undefined],
    ['through a string: nothing', ['a', 's', 'length'], undefined],
    ['the path a.b reaches a → b, never the key "a.b"', parseDottedPath('a.b')!, { c: 1 }],
    ['inherited members are not keys', ['a', 'constructor'], undefined],
    ['an own __proto__ key is a key like any other', ['__proto__', 'p'], 3],
  ];
  for (const [rule, path, expected] of cases) it(rule, () => assert.deepEqual(valueAtPath(doc, path), expected));
});
