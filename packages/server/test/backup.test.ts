/**
 * `tollgate backup` and `tollgate restore`, as an operator runs them: a `tollgate serve` child on a
 * scratch DATA_DIR takes usage through HTTP from two clients without pause, `tollgate backup` runs
 * in the middle of it, and the copy, restored into a new DATA_DIR, holds every event the server
 * acknowledged before the backup began. The embedded database is what these commands copy, so
 * that test runs on the SQLite pass; on both passes, DATABASE_URL makes both commands point to
 * PostgreSQL's own tools instead.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { backend } from './helpers/test-app.js';
import { Scratch, call, runCli } from './helpers/processes.js';
import { openDatabase } from '../src/db/database.js';

const scratch = new Scratch('backup');
after(() => scratch.cleanup());

const TIMEOUT = 300_000;

describe('tollgate backup and restore', { concurrency: 2 }, () => {
  it('with DATABASE_URL set, both exit 2 and point to pg_dump, pg_restore and WAL archiving, touching nothing', { timeout: TIMEOUT }, async () => {
    const dir = scratch.tempDir();
    // Port 9 refuses connections: the answer must come without trying the database.
    const env = { DATA_DIR: path.join(dir, 'data'), DATABASE_URL: 'postgres://tollgate@127.0.0.1:9/none' };
    const [b, r] = await Promise.all([runCli(['backup', path.join(dir, 'copy.db')], env), runCli(['restore', path.join(dir, 'copy.db')], env)]);
    for (const x of [b, r]) {
      assert.equal(x.status, 2, x.stderr);
      assert.equal(x.stdout, '');
      assert.match(x.stderr, /pg_dump -Fc "\$DATABASE_URL" -f tollgate\.dump/);
      assert.match(x.stderr, /pg_restore --no-owner -d/);
      assert.match(x.stderr, /WAL archiving/);
      assert.match(x.stderr, /TOLLGATE_ENCRYPTION_KEYS/);
    }
    assert.equal(existsSync(path.join(dir, 'copy.db')), false);
    assert.equal(existsSync(path.join(dir, 'data')), false);
  });

  it(
    'a backup taken while two clients ingest holds every event acknowledged before it began; restored into a new DATA_DIR, a server serves it',
    { timeout: TIMEOUT, skip: backend === 'postgres' ? 'the embedded SQLite database is what backup copies (the PostgreSQL case is the test above)' : false },
    async (t) => {
      const dataDir = path.join(scratch.tempDir(), 'data');
      const server = await scratch.serve({ DATA_DIR: dataDir });
      const key = (await server.waitFor(/test secret key\s+(sk_test_[0-9a-f]{32})/))[1]!;

      // Two clients send 100-event batches without pause; each acknowledged event id is recorded.
      const acknowledged: string[] = [];
      let stop = false;
      const client = async (name: string) => {
        for (let n = 0; !stop; n++) {
          const events = Array.from({ length: 100 }, (_, i) => ({
            customerId: 'acme',
            metricName: 'api_calls',
            quantity: 1,
            occurredAt: new Date().toISOString(),
            eventId: `${name}-${n}-${i}`,
          }));
          const r = await call(server.address, 'POST', '/v1/ingest/batch', key, { events });
          if (r.status === 503) continue; // admission control: send it again
          assert.equal(r.status, 200, JSON.stringify(r.body));
          acknowledged.push(...events.map((e) => e.eventId));
        }
      };
      const clients = [client('a'), client('b')];
      try {
        while (acknowledged.length < 2_000) await new Promise((r) => setTimeout(r, 20));

        const before = new Set(acknowledged);
        const file = path.join(scratch.tempDir(), 'tollgate-backup.db');
        const backup = await runCli(['backup', file, '--progress'], { DATA_DIR: dataDir }, 120_000);
        t.diagnostic(`${before.size} events acknowledged before the backup began, ${acknowledged.length - before.size} while it ran`);
        assert.equal(backup.status, 0, backup.stderr);
        const bytes = statSync(file).size;
        assert.match(
          backup.stdout,
          new RegExp(`^Backed up ${dataDir}/tollgate\\.db to ${file}: [\\d.]+ [KMG]iB \\(${bytes} bytes\\), \\d+ migrations, integrity ok\\.\\n`),
        );
        assert.match(backup.stdout, /development key file was copied beside the backup as .*tollgate-backup\.db\.encryption-keys/);
        assert.match(backup.stderr, /^copying .* to .*tollgate-backup\.db/m);
        assert.match(backup.stderr, /^written .* \(100%\)$/m);
        assert.match(backup.stderr, /^checking the copy \(PRAGMA quick_check\)/m);
        assert.equal((statSync(`${file}.encryption-keys`).mode & 0o777).toString(8), '600');

        // FILE is never overwritten by mistake.
        const again = await runCli(['backup', file], { DATA_DIR: dataDir });
        assert.equal(again.status, 1);
        assert.match(again.stderr, /already exists; pass --force to replace it/);
        assert.equal(statSync(file).size, bytes);

        // The running server's database is never restored over.
        const over = await runCli(['restore', file, '--force'], { DATA_DIR: dataDir });
        assert.equal(over.status, 1, over.stdout);
        assert.match(over.stderr, /is open in another process \(a running tollgate serve\?\): stop it, then restore/);

        stop = true;
        await Promise.all(clients);

        const restoredDir = path.join(scratch.tempDir(), 'data');
        const restored = await runCli(['restore', file], { DATA_DIR: restoredDir });
        assert.equal(restored.status, 0, restored.stderr);
        assert.match(restored.stdout, new RegExp(`^Restored ${file} to ${restoredDir}/tollgate\\.db: `));
        assert.match(restored.stdout, /development key file was restored from/);

        const opened = openDatabase({ databaseUrl: null, dataDir: restoredDir });
        let stored: Set<string | null>;
        try {
          stored = new Set((await opened.db.selectFrom('usageEvents').select('eventId').execute()).map((r) => r.eventId));
        } finally {
          await opened.close();
        }
        const missing = [...before].filter((id) => !stored.has(id));
        assert.deepEqual(missing.slice(0, 10), [], `${missing.length} of ${before.size} acknowledged events are not in the copy`);

        // A server on the restored directory knows the same key and counts the same usage.
        const second = await scratch.serve({ DATA_DIR: restoredDir });
        assert.doesNotMatch(second.stdout, /demo workspace was created/);
        const usage = await second.call('GET', '/api/v1/usage', key);
        assert.equal(usage.status, 200, JSON.stringify(usage.body));
        await second.stop();

        // Restoring over that directory needs --force, and keeps the old database aside.
        const refused = await runCli(['restore', file], { DATA_DIR: restoredDir });
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /A database is already at .* Restore over it with --force/);
        const forced = await runCli(['restore', file, '--force'], { DATA_DIR: restoredDir });
        assert.equal(forced.status, 0, forced.stderr);
        const aside = /The previous database is kept at (\S+)\.\n/.exec(forced.stdout);
        assert.ok(aside && existsSync(aside[1]!), forced.stdout);

        // What is not a Tollgate database is refused before anything is touched.
        const junk = path.join(scratch.tempDir(), 'junk.db');
        writeFileSync(junk, 'not a database at all, not even close');
        const bad = await runCli(['restore', junk], { DATA_DIR: path.join(scratch.tempDir(), 'data') });
        assert.equal(bad.status, 1);
        assert.match(bad.stderr, /is not a readable SQLite database/);
      } finally {
        stop = true;
        await Promise.allSettled(clients);
      }
    },
  );
});
