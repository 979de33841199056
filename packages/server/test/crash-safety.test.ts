/**
 * Crash safety, the short form of `npm run bench:crash` (bench/crash-check.ts): three clients send
 * 1,000-event batches, each under its own X-Idempotency-Key and with no eventIds, while the
 * `tollgate serve` child is killed with SIGKILL at random moments (at least three times) and
 * restarted on the same store; every batch that got no answer is sent again with its key until it
 * gets a 200. Then the store is read directly: every event of every acknowledged batch is there
 * exactly once, none twice, and the aggregates add up to the events.
 *
 * SQLite pass: a file under a temp dir. PostgreSQL pass: a scratch database on TEST_DATABASE_URL.
 * The check ends its own children by PID and removes what it made, also when it fails.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { backend } from './helpers/test-app.js';
import { formatReport, runCrashCheck } from '../../../bench/crash-check.js';

it(`acknowledged batches are stored exactly once across SIGKILLs and retries (${backend})`, { timeout: 180_000 }, async (t) => {
  const databaseUrl = backend === 'postgres' ? process.env.TEST_DATABASE_URL : null;
  if (backend === 'postgres') assert.ok(databaseUrl, 'TOLLGATE_TEST_BACKEND=postgres needs TEST_DATABASE_URL');
  const report = await runCrashCheck({
    seconds: 8,
    minKills: 3,
    clients: 3,
    databaseUrl,
    log: (line) => t.diagnostic(line),
  });
  const summary = formatReport(report);
  for (const line of summary.split('\n')) t.diagnostic(line);

  assert.deepEqual(report.problems, [], summary);
  assert.equal(report.duplicates, 0, summary);
  assert.equal(report.missing, 0, summary);
  assert.equal(report.unexpected, 0, summary);
  assert.ok(report.kills >= 3, `only ${report.kills} kills`);
  assert.ok(report.retriedAfterKill >= 1, `no batch was retried after a kill:\n${summary}`);
  assert.ok(report.acknowledged > 0 && report.acknowledged === report.batchesSent, summary);
  assert.equal(report.eventsChecked, report.acknowledged * 1000);
  assert.equal(report.eventsStored, report.eventsChecked, summary);
  assert.equal(report.aggregateSum, String(report.eventsStored), summary);
  assert.ok(report.ok, summary);
});
