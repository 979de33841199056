// The batch checker thread behind createSqliteWorkerWriter: parses and checks POST
// /v1/ingest/batch bodies (JSON text) on its own read connection, then hands the events straight
// to the writer thread over their port. A refused body is answered to the main thread from here.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../db/database.js';
import { checkBatchText } from '../usage/batch-body.js';
import { lowerThreadPriority, replyError, type UsageThreadData, type WorkerReply, type WorkerRequest } from './usage-thread.js';

const { file, busyTimeoutMs, nice, port } = workerData as UsageThreadData;
lowerThreadPriority(nice);
const opened = openDatabase({ databaseUrl: null, sqlitePath: file, sqliteBusyTimeoutMs: busyTimeoutMs });

parentPort!.on('message', (req: WorkerRequest) => {
  if (req.work.kind === 'warm') {
    // Readiness: this thread's code is loaded and its connection reads.
    opened.sqlite!.prepare('select 1').get();
    parentPort!.postMessage({ id: req.id, ok: true, value: null } satisfies WorkerReply);
    return;
  }
  if (req.work.kind !== 'batch-text') {
    parentPort!.postMessage(replyError(req.id, new Error(`the batch checker takes batch bodies, not ${req.work.kind} jobs`)));
    return;
  }
  const { ctx, text, enforceMaxAge, idempotency } = req.work.job;
  checkBatchText(opened.db, ctx, text, { now: req.now, enforceMaxAge }).then(
    (events) =>
      port.postMessage({ id: req.id, now: req.now, work: { kind: 'usage', job: { ctx, events, source: 'api', idempotency } } } satisfies WorkerRequest),
    (err) => parentPort!.postMessage(replyError(req.id, err)),
  );
});
