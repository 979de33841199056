import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { replyBatcher, type WorkerReply } from './usage-thread.js';

const ok = (id: number): WorkerReply => ({ id, ok: true, value: id });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('replyBatcher: the writer thread posts its replies in lists', () => {
  it('the replies of one turn (a group commit settling its jobs) go as one message, in order', async () => {
    const posts: number[][] = [];
    const reply = replyBatcher((replies) => posts.push(replies.map((r) => r.id)));
    // As a group commit settles: every job's promise resolves in the same turn.
    await Promise.all([1, 2, 3].map((id) => Promise.resolve().then(() => reply(ok(id)))));
    await turn();
    assert.deepEqual(posts, [[1, 2, 3]]);
  });

  it('replies of different turns go separately: none waits for a later one', async () => {
    const cases: Array<{ turns: number[][]; posts: number[][] }> = [
      { turns: [[1]], posts: [[1]] },
      { turns: [[1], [2]], posts: [[1], [2]] },
      { turns: [[1, 2], [3], [4, 5, 6]], posts: [[1, 2], [3], [4, 5, 6]] },
    ];
    for (const c of cases) {
      const posts: number[][] = [];
      const reply = replyBatcher((replies) => posts.push(replies.map((r) => r.id)));
      for (const ids of c.turns) {
        for (const id of ids) reply(ok(id));
        await turn();
        // Each turn's list has been posted before the next turn begins.
        assert.deepEqual(posts.at(-1), ids);
      }
      assert.deepEqual(posts, c.posts, JSON.stringify(c.turns));
    }
  });

  it('an error reply travels in the same list as the successes around it', async () => {
    const posts: WorkerReply[][] = [];
    const reply = replyBatcher((replies) => posts.push(replies));
    reply(ok(1));
    reply({ id: 2, ok: false, error: { app: false, message: 'SQLITE_BUSY', code: 'SQLITE_BUSY' } });
    reply(ok(3));
    await turn();
    assert.equal(posts.length, 1);
    assert.deepEqual(
      posts[0]!.map((r) => [r.id, r.ok]),
      [
        [1, true],
        [2, false],
        [3, true],
      ],
    );
  });
});
