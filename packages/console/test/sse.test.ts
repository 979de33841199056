import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { initialSse, parseSse, type SseMessage } from '../src/sse.js';

const msg = (data: string, lastEventId = '', event = 'message'): SseMessage => ({ event, data, lastEventId });

describe('parseSse: a stream of text into messages, whatever the chunking', () => {
  const cases: Array<[string, string, SseMessage[], { lastEventId?: string; retryMs?: number | null }?]> = [
    ['one message', 'data: hello\n\n', [msg('hello')]],
    ['the audit stream: id, event, data', 'id: 7\nevent: audit_event\ndata: {"a":1}\n\n', [msg('{"a":1}', '7', 'audit_event')], { lastEventId: '7' }],
    ['several data lines join with LF', 'data: a\ndata: b\n\n', [msg('a\nb')]],
    ['CRLF and lone CR end lines too', 'data: a\r\n\r\ndata: b\r\rdata: c\n\n', [msg('a'), msg('b'), msg('c')]],
    ['comments (keep-alive) are ignored', ': keep-alive\n\n: x\ndata: y\n\n', [msg('y')]],
    ['no space after the colon', 'data:x\n\n', [msg('x')]],
    ['only the first space is dropped', 'data:  x\n\n', [msg(' x')]],
    ['a field without a colon has an empty value', 'data\n\n', [msg('')]],
    ['no data: nothing dispatched, the event name forgotten', 'event: ping\n\ndata: z\n\n', [msg('z')]],
    ['an unfinished message waits', 'data: half\n', []],
    ['retry in ms', 'retry: 3000\n\n', [], { retryMs: 3000 }],
    ['a retry that is not digits is ignored', 'retry: 3s\n\n', [], { retryMs: null }],
    ['an id persists to later messages', 'id: 41-3\ndata: a\n\ndata: b\n\n', [msg('a', '41-3'), msg('b', '41-3')]],
    ['an id with NUL is ignored', 'id: a\0b\ndata: a\n\n', [msg('a')]],
    ['unknown fields are ignored', 'foo: bar\ndata: a\n\n', [msg('a')]],
    [
      'the refusal inside the stream',
      'retry: 60000\nevent: stream_error\ndata: {"success":false}\n\n',
      [msg('{"success":false}', '', 'stream_error')],
      { retryMs: 60000 },
    ],
  ];
  for (const [name, text, want, end] of cases) {
    it(name, () => {
      // Whole, and split in two at every position (a CRLF split between chunks included).
      for (let cut = 0; cut <= text.length; cut++) {
        const a = parseSse(initialSse(), text.slice(0, cut));
        const b = parseSse(a.state, text.slice(cut));
        assert.deepEqual([...a.messages, ...b.messages], want, `cut at ${cut}`);
        if (end?.lastEventId !== undefined) assert.equal(b.state.lastEventId, end.lastEventId);
        if (end?.retryMs !== undefined) assert.equal(b.state.retryMs, end.retryMs);
      }
    });
  }

  it('one character at a time', () => {
    const text = 'id: 1\r\nevent: audit_event\r\ndata: x\r\n\r\nid: 2\r\ndata: y\r\n\r\n';
    let s = initialSse();
    const got: SseMessage[] = [];
    for (const ch of text) {
      const r = parseSse(s, ch);
      s = r.state;
      got.push(...r.messages);
    }
    assert.deepEqual(got, [msg('x', '1', 'audit_event'), msg('y', '2')]);
  });

  it('starts from the id it resumes after', () => {
    assert.deepEqual(parseSse(initialSse('9'), 'data: a\n\n').messages, [msg('a', '9')]);
  });

  it('does not change the state it was given', () => {
    const s = initialSse();
    const before = JSON.stringify(s);
    parseSse(s, 'data: a\n');
    assert.equal(JSON.stringify(s), before);
  });
});
