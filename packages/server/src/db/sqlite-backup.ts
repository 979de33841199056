import { closeSync, fsyncSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

/**
 * Online copies of the embedded database, for `tollgate backup` and `tollgate restore`.
 *
 * Why VACUUM INTO and not SQLite's backup API: the backup API copies a few pages per step and
 * starts again from the first page whenever another connection writes between two steps. A
 * running server's usage writer commits every few milliseconds under load, so a stepped backup
 * may never finish. VACUUM INTO reads the whole database inside one read transaction: in WAL
 * mode writers go on committing meanwhile (into the WAL), and the copy is exactly the database
 * as of the moment that transaction began. (A single-step backup would be consistent too, but
 * copies the free pages as well, and tells no more about its progress.)
 */

export interface SnapshotProgress {
  /** Bytes of the copy written so far. */
  written: number;
  /** The source's size in use (page count x page size): the copy is at most this. */
  total: number;
}

// The statement blocks its thread for as long as the copy takes; in a worker the CLI's thread
// stays free to draw progress from the size of the file being written. Plain JavaScript,
// evaluated, so the worker needs no TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.source, { fileMustExist: true });
try {
  db.pragma('busy_timeout = 10000');
  db.prepare('vacuum into ?').run(workerData.target);
  parentPort.postMessage({ ok: true });
} catch (err) {
  parentPort.postMessage({ ok: false, message: String(err && err.message || err) });
} finally {
  db.close();
}`;

/** The bytes the source's pages take (its size without the WAL): the most the copy can take. */
export function sqliteSizeInUse(file: string): number {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
  } finally {
    db.close();
  }
}

/**
 * Writes a consistent copy of `source` to `target` (which must not exist) while other processes
 * keep writing to the source, then flushes it to disk: SQLite does not fsync what VACUUM INTO
 * writes. `onProgress` is called every `everyMs` while the copy is written.
 */
export async function snapshotSqlite(source: string, target: string, onProgress?: (p: SnapshotProgress) => void, everyMs = 200): Promise<void> {
  const total = sqliteSizeInUse(source);
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source, target, driver } });
  const timer = onProgress
    ? setInterval(() => {
        let written = 0;
        try {
          written = statSync(target).size;
        } catch {
          // Not created yet.
        }
        onProgress({ written: Math.min(written, total), total });
      }, everyMs)
    : null;
  try {
    const result = await new Promise<{ ok: boolean; message?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the copy's thread ended (exit code ${code}) before it finished`)));
    });
    if (!result.ok) throw new Error(result.message);
  } finally {
    if (timer) clearInterval(timer);
    await worker.terminate();
  }
  fsyncFile(target);
  const size = statSync(target).size;
  onProgress?.({ written: size, total: size });
}

/** fsync a file, then its directory (so a rename into it, or its creation, is on disk too). */
export function fsyncFile(file: string): void {
  for (const p of [file, path.dirname(file)]) {
    const fd = openSync(p, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

export interface SqliteCopyCheck {
  /** 'ok', or the first problems quick_check found. */
  integrity: string;
  /** The Tollgate migrations the copy has applied, or null when it has no migrations table (not a Tollgate database). */
  migrations: string[] | null;
  bytes: number;
}

/**
 * Checks a copy read-only: PRAGMA quick_check (every page and b-tree, every record well formed;
 * unlike integrity_check it does not match each index against its table, which is O(N log N) on
 * a large event table: the copy was written by SQLite itself from one snapshot, so what can go
 * wrong is the disk, and quick_check reads every page) and the migrations it has applied.
 */
export function checkSqliteCopy(file: string): SqliteCopyCheck {
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    return { integrity: (err as Error).message, migrations: null, bytes: 0 };
  }
  try {
    const rows = db.pragma('quick_check(10)') as Array<{ quick_check: string }>;
    const integrity = rows.map((r) => r.quick_check).join('; ');
    const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'tollgate_migrations'").get();
    const migrations = table ? (db.prepare('select name from tollgate_migrations order by name').pluck().all() as string[]) : null;
    return { integrity, migrations, bytes: statSync(file).size };
  } catch (err) {
    // Not a database at all ("file is not a database"), or damaged past reading.
    return { integrity: (err as Error).message, migrations: null, bytes: 0 };
  } finally {
    db.close();
  }
}

/**
 * Whether another connection (a running server) has the database open: an exclusive lock is
 * refused while any connection in WAL mode holds it, even an idle one. A database that was not
 * in use is checkpointed on the way (the WAL folded into the file and removed), so the file alone
 * is then the whole database.
 */
export function sqliteInUse(file: string): boolean {
  const db = new SQLite(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('begin exclusive; commit');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    db.close();
  }
}
