// The writer thread behind createSqliteWorkerWriter: its own SQLite connection, the same
// writeUsage and runIdempotent as the main thread, its own group commits. Jobs come from the main
// thread and, already checked, from the batch checker thread over `port`; every reply goes to
// the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { openDatabase } from '../../db/database.js';
import { BatchCommitter, GroupCommitter } from '../../db/group-commit.js';
import { FrozenClock } from '../../lib/clock.js';
import { createIdGenerator } from '../../lib/ids.js';
import type { StorageDeps } from '../../deps.js';
import { lowerThreadPriority, replyBatcher, replyError, type UsageThreadData, type WorkerRequest } from './usage-thread.js';
import { runWriteJob, type UsageWriteJob } from '../usage/usage-writer.js';
import { WEBHOOKS_PER_COMMIT } from './ingest-writer.js';
import { fromColumns } from './event-columns.js';
import { runWebhookGroup, type WebhookWriteJob } from '../plugs/write-webhook.js';

const { file, busyTimeoutMs, nice, port } = workerData as UsageThreadData;
lowerThreadPriority(nice);
const opened = openDatabase({ databaseUrl: null, sqlitePath: file, sqliteBusyTimeoutMs: busyTimeoutMs });
// Each job runs at the instant its request was made on the main thread (which may be a test's
// frozen clock), so audit rows and idempotency windows read the same time there and here.
const clock = new FrozenClock(Date.now());
const writer = new GroupCommitter(opened.db);
// Only what the write path touches; the rest of Deps belongs to the main thread.
const deps: StorageDeps = {
  db: opened.db,
  dialect: 'sqlite',
  sqlite: opened.sqlite,
  clock,
  ids: createIdGenerator(clock),
  log: pino({ level: 'warn' }),
};

/**
 * Readiness: this thread has loaded its code and can take the write lock (a write transaction
 * that changes nothing), so the first batch after a start costs what any other does.
 */
async function warm(): Promise<null> {
  opened.sqlite!.prepare('begin immediate').run();
  opened.sqlite!.prepare('rollback').run();
  return null;
}

// A group runs at the latest of its requests' instants (each job carries its own).
const webhooks = new BatchCommitter(
  opened.db,
  (trx, jobs: WebhookWriteJob[]) => {
    clock.set(Math.max(...jobs.map((j) => j.now)));
    return runWebhookGroup({ ...deps, db: trx }, jobs);
  },
  WEBHOOKS_PER_COMMIT,
);

const usage = (now: number, job: UsageWriteJob) =>
  writer.run((trx) => {
    clock.set(now);
    return runWriteJob({ ...deps, db: trx }, job);
  });

const reply = replyBatcher((replies) => parentPort!.postMessage(replies));

function run(req: WorkerRequest): void {
  const work = req.work;
  const done: Promise<unknown> =
    work.kind === 'batch-text'
      ? Promise.reject(new Error('batch bodies go to the checker thread'))
      : work.kind === 'warm'
        ? warm()
        : work.kind === 'webhook'
          ? webhooks.run({ ...work.job, now: req.now })
          : usage(req.now, work.kind === 'usage' ? work.job : { ...work.job, events: fromColumns(work.job.columns) });
  done.then(
    (value) => reply({ id: req.id, ok: true, value }),
    (err) => reply(replyError(req.id, err)),
  );
}

parentPort!.on('message', run);
port.on('message', run);
