// The batch checker thread behind createSqliteWorkerWriter: decodes, parses and checks POST
// /v1/ingest/batch bodies (their bytes, transferred) on its own read connection, then hands the
// events straight to the writer thread over their port, a column per field (event-columns.ts).
// A refused body is answered to the main thread from here.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../db/database.js';
import { checkBatchText } from '../usage/batch-body.js';
import { movedWith, toColumns } from './event-columns.js';
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
  const { ctx, body, enforceMaxAge, idempotency } = req.work.job;
  checkBatchText(opened.db, ctx, body, { now: req.now, enforceMaxAge }).then(
    (events) => {
      const columns = toColumns(events);
      const request: WorkerRequest = { id: req.id, now: req.now, work: { kind: 'checked-batch', job: { ctx, columns, source: 'api', idempotency } } };
      port.postMessage(request, movedWith(columns));
    },
    (err) => parentPort!.postMessage(replyError(req.id, err)),
  );
});
