import { MessageChannel, Worker, type TransferListItem } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import { errorOfReply, type UsageThreadData, type WorkerReply, type WorkerRequest } from './usage-thread.js';
import type { UsageWriteOutcome } from '../usage/usage-writer.js';
import type { IngestWriter, WriterJob } from './ingest-writer.js';
import type { WriteTurns } from '../../db/write-turns.js';

/** Running from dist/ (scripts/build.mjs's bundle) rather than from the TypeScript sources. */
const compiled = !import.meta.url.endsWith('.ts');

/**
 * Bytes that alone fill their memory, which can then move to another thread without a copy: a
 * large body (Fastify concatenates it into memory of its own) as it is, a small one (a slice of
 * Node's shared pool, which must not move) copied.
 */
function ownMemory(bytes: Uint8Array): Uint8Array & { buffer: ArrayBuffer } {
  const own = bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return (own ? bytes : bytes.slice()) as Uint8Array & { buffer: ArrayBuffer };
}

/** The writer and the batch checker: started together, and started again together. */
interface Threads {
  writer: Worker;
  checker: Worker;
}

/**
 * Usage writes on the embedded database go to a writer thread with its own SQLite connection, so
 * inserting one batch (the costliest step) runs on the second core while the main thread answers
 * other requests. The thread runs the same writeUsage and runIdempotent inside its own group
 * commits; WAL lets the main connection keep reading meanwhile, and SQLite's write lock (with a
 * busy timeout) orders the two connections' writes. A job settles after its commit.
 *
 * Batch bodies (writeBatchText) go first to a checker thread with its own read connection, which
 * decodes, parses and checks them and passes the events to the writer over a port of their own.
 * The bytes move to the checker without a copy, so the main thread pays for a 200 KB batch only
 * reading it, and the checker works on the next batch while the writer commits this one. Both
 * threads run at `nice`, below the main thread.
 */
export function createSqliteWorkerWriter(
  file: string,
  /** turns: told of every write in flight, so background jobs let usage go first (db/write-turns.ts). */
  opts: { busyTimeoutMs: number; nice: number; turns?: WriteTurns },
  clock: Clock,
  log: Logger,
  onCommitted: () => void = () => undefined,
): IngestWriter {
  let nextId = 1;
  let closing = false;
  // Each caller's promise has its own result type; the thread's reply is that value.
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const failAll = (err: unknown) => {
    for (const p of pending.values()) {
      opts.turns?.finished();
      p.reject(err);
    }
    pending.clear();
  };
  // The writer thread sends its replies in lists (replyBatcher); the checker, one at a time.
  const settle = (replies: WorkerReply | WorkerReply[]) => {
    if (Array.isArray(replies)) for (const r of replies) settleOne(r);
    else settleOne(replies);
  };
  const settleOne = (reply: WorkerReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    opts.turns?.finished();
    if (reply.ok) {
      onCommitted();
      p.resolve(reply.value);
    } else p.reject(errorOfReply(reply.error));
  };

  function start(): Threads {
    const { port1, port2 } = new MessageChannel();
    const spawn = (name: string, port: UsageThreadData['port']) => {
      // Compiled (dist/, beside this code's chunk): the thread's own bundle entry, plain JavaScript.
      // From source: the .ts module, through an entry that registers tsx first (threads do not
      // inherit the loader).
      const module = new URL(`./${name}${compiled ? '.js' : '.ts'}`, import.meta.url);
      const workerData: UsageThreadData = { module: module.href, file, busyTimeoutMs: opts.busyTimeoutMs, nice: opts.nice, port };
      const w = new Worker(compiled ? module : new URL('./usage-thread-entry.js', import.meta.url), { workerData, transferList: [port] });
      w.on('message', settle);
      w.on('error', (err) => log.error({ err }, 'usage writer thread failed'));
      w.on('exit', (code) => {
        if (threads !== started) return; // its partner's exit already handled this pair
        // Jobs in flight fail (nothing of an uncommitted group is stored; clients retry with
        // their keys); the next job starts a new pair.
        threads = null;
        void (w === started.writer ? started.checker : started.writer).terminate();
        failAll(new Error(`usage writer thread exited with code ${code}`));
        if (!closing) log.error({ code }, 'usage writer thread exited; the next write starts a new one');
      });
      return w;
    };
    const started: Threads = { writer: spawn('sqlite-usage-writer.worker', port1), checker: spawn('sqlite-batch-checker.worker', port2) };
    return started;
  }
  // Started on the first write (or by warm()): CLI commands that never ingest do not pay for threads.
  let threads: Threads | null = null;
  let warming: Promise<void> | null = null;

  function send<T>(work: WriterJob, to: keyof Threads = 'writer', transfer: TransferListItem[] = []): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = nextId++;
      // The thread replies with the value this job's kind produces (WorkerReply carries it untyped).
      pending.set(id, { resolve: (v) => resolve(v as T), reject });
      opts.turns?.started();
      const request: WorkerRequest = { id, work, now: clock.now() };
      (threads ??= start())[to].postMessage(request, transfer);
    });
  }

  return {
    write: (job) => send<UsageWriteOutcome>({ kind: 'usage', job }),
    writeBatchText: (job) => {
      const body = ownMemory(job.body);
      return send<UsageWriteOutcome>({ kind: 'batch-text', job: { ...job, body } }, 'checker', [body.buffer]);
    },
    // Once per pair: threads started again after a crash are warmed by their first job.
    warm: () =>
      (warming ??= Promise.all([send<null>({ kind: 'warm' }), send<null>({ kind: 'warm' }, 'checker')]).then(
        () => undefined,
        (err: unknown) => {
          warming = null;
          throw err;
        },
      )),
    writeWebhook: (job) => send({ kind: 'webhook', job }),
    async close() {
      closing = true;
      const t = threads;
      await Promise.all([t?.writer.terminate(), t?.checker.terminate()]);
    },
  };
}
