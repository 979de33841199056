import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contrast, isHexColor, luminance, readableOn } from './contrast.js';

describe('luminance (WCAG 2.1 relative luminance)', () => {
  const cases: Array<[string, number]> = [
    ['#000000', 0],
    ['#ffffff', 1],
    ['#FFFFFF', 1],
    ['#ff0000', 0.2126],
    ['#00ff00', 0.7152],
    ['#0000ff', 0.0722],
    ['#808080', 0.2158605],
    // Below the 0.03928 knee the channel is linear: 10/255/12.92.
    ['#0a0a0a', 0.0030353],
  ];
  for (const [hex, want] of cases) it(hex, () => assert.ok(Math.abs(luminance(hex) - want) < 1e-6, `${luminance(hex)}`));
  it('refuses anything but #rrggbb', () => {
    for (const bad of ['red', '#fff', '#12345g', '', 'ffffff']) assert.throws(() => luminance(bad), RangeError, bad);
  });
});

describe('contrast', () => {
  const cases: Array<[string, string, number]> = [
    ['#000000', '#ffffff', 21],
    ['#ffffff', '#000000', 21],
    ['#777777', '#777777', 1],
    // Known pairs: the page's muted grey and default blue on white, AA's edge grey.
    ['#4b5563', '#ffffff', 7.56],
    ['#1e40af', '#ffffff', 8.72],
    ['#767676', '#ffffff', 4.54],
    ['#777777', '#ffffff', 4.48],
  ];
  for (const [a, b, want] of cases) it(`${a} on ${b}: ${want}`, () => assert.equal(Number(contrast(a, b).toFixed(2)), want));
});

describe('readableOn', () => {
  const WHITE = '#ffffff';
  const INK = '#111111';
  const cases: Array<[string, string[], string]> = [
    ['#1e40af', [WHITE, INK], WHITE],
    ['#fde047', [WHITE, INK], INK],
    ['#ffffff', [WHITE, INK], INK],
    ['#000000', [INK, WHITE], WHITE],
    // Mid-grey #777: white (4.48) and near-black (4.22) just miss; black (4.69) reads.
    ['#777777', [WHITE, INK, '#000000'], '#000000'],
    // None reaches the minimum: the best of them.
    ['#777777', [WHITE, INK], WHITE],
  ];
  for (const [bg, candidates, want] of cases) it(`${bg} → ${want}`, () => assert.equal(readableOn(bg, candidates), want));
  it('white, then near-black, then black always gives AA, on every grey', () => {
    for (let v = 0; v <= 255; v++) {
      const hex = `#${v.toString(16).padStart(2, '0').repeat(3)}`;
      assert.ok(contrast(readableOn(hex, [WHITE, INK, '#000000']), hex) >= 4.5, hex);
    }
  });
  it('needs a candidate', () => assert.throws(() => readableOn('#ffffff', []), RangeError));
});

describe('isHexColor', () => {
  const cases: Array<[unknown, boolean]> = [
    ['#4f46e5', true],
    ['#4F46E5', true],
    ['#fff', false],
    ['4f46e5', false],
    ['#4f46e5 ', false],
    [null, false],
    [0x4f46e5, false],
  ];
  for (const [value, want] of cases) it(`${JSON.stringify(value)} → ${want}`, () => assert.equal(isHexColor(value), want));
});
