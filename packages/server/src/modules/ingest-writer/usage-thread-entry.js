// Worker threads do not inherit the TypeScript loader: register it here, then load the thread's
// module (the writer or the batch checker of sqlite-usage-writer.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
