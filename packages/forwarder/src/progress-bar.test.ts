import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressBar } from './progress-bar.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, s: { isTTY, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream };
}

describe('the progress bar', () => {
  it('draws on a terminal, at most every 100 ms, and always at the end', () => {
    let now = 0;
    const { written, s } = stream(true);
    const bar = new ProgressBar(s, () => now);
    now = 200;
    bar.update(10, 100, '10 lines');
    now = 250;
    bar.update(20, 100, '20 lines');
    bar.update(100, 100, '100 lines');
    bar.done();
    assert.equal(written.length, 3);
    assert.match(written[0]!, /^\r\[###-+\] {2}10% 10 lines/);
    assert.match(written[1]!, /100% 100 lines/);
    assert.equal(written[2], '\r\x1b[K');
  });

  it('writes nothing when the stream is not a terminal (a pipe, a log file)', () => {
    const { written, s } = stream(false);
    const bar = new ProgressBar(s, () => 1000);
    bar.update(50, 100, 'x');
    bar.done();
    assert.deepEqual(written, []);
  });
});
