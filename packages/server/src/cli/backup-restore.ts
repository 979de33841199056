import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadConfig, type Config } from '../lib/config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest, migrations } from '../db/migrate.js';
import { checkSqliteCopy, fsyncFile, snapshotSqlite, sqliteInUse, sqliteSizeInUse } from '../db/sqlite-backup.js';
import { CliFailure } from './failure.js';
import { formatBytes, type Progress } from './progress.js';

const DB_FILE = 'tollgate.db';
/** The development key ring (lib/secret-box.ts, loadOrCreateKeyFile). */
const KEY_FILE = 'encryption-keys';
/** Beside a backup FILE: the development key ring copied with it. */
const keyCopyOf = (backup: string) => `${backup}.encryption-keys`;

const POSTGRES = `DATABASE_URL selects PostgreSQL: back it up with PostgreSQL's own tools, which copy a running database consistently.
  pg_dump -Fc "$DATABASE_URL" -f tollgate.dump                 a snapshot while the service runs
  pg_restore --no-owner -d "$NEW_DATABASE_URL" tollgate.dump    into an empty database
or continuous WAL archiving (archive_mode, archive_command) with base backups for point-in-time recovery.
Back up TOLLGATE_ENCRYPTION_KEYS too: webhook signing secrets are sealed with it. (docs/cli.md, "Backup and restore".)`;

/** One failure the user can act on: printed alone (no usage), exit 1. */
function refuse(message: string, hint?: string): never {
  throw new CliFailure(message, { hint });
}

function keyReminder(config: Config, keyCopy: string | null, restored: boolean): string {
  const why = 'Webhook signing secrets (of webhook sources and outbound endpoints) are sealed with the encryption key ring;';
  if (config.encryptionKeys) {
    return `${why} TOLLGATE_ENCRYPTION_KEYS is set, so the keys live outside the data directory and are ${restored ? 'not part of a backup' : 'not copied'}: keep them with ${restored ? 'this database' : 'the backup'}, and start the server with the same keys.\n`;
  }
  if (keyCopy) {
    return `${why} the development key file was ${restored ? `restored from ${keyCopy}` : `copied beside the backup as ${keyCopy} (mode 0600)`}; keep it with the database and as private as it.\n`;
  }
  return `${why} no development key file was found${restored ? ' beside the backup' : ''}, so secrets stored in this database may not open until you provide the keys that sealed them.\n`;
}

/** Copies with a progress bar of bytes, then flushes the copy to disk. */
async function copyWithProgress(from: string, to: string, progress: Progress): Promise<void> {
  const total = statSync(from).size;
  let done = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      done += chunk.length;
      progress.update('copied', done, total, 'bytes');
      cb(null, chunk);
    },
  });
  await pipeline(createReadStream(from), count, createWriteStream(to, { flags: 'wx' }));
  progress.end();
  fsyncFile(to);
}

/** The configuration when it selects the embedded database; on PostgreSQL, null after saying what to use instead (exit 2). */
function embeddedConfig(command: string): Config | null {
  const config = loadConfig();
  if (!config.databaseUrl) return config;
  process.stderr.write(`tollgate ${command}: ${POSTGRES}\n`);
  process.exitCode = 2;
  return null;
}

/** `tollgate backup FILE`. */
export async function backup(file: string, force: boolean, progress: Progress): Promise<void> {
  const config = embeddedConfig('backup');
  if (!config) return;
  const source = path.join(config.dataDir, DB_FILE);
  if (!existsSync(source)) refuse(`No database at ${source} (DATA_DIR is ${config.dataDir}).`, 'Set DATA_DIR to the data directory of the server to back up.');
  const target = path.resolve(file);
  if (existsSync(target) && statSync(target).isDirectory()) refuse(`${target} is a folder; name the file to write, such as ${path.join(target, DB_FILE)}.`);
  const devKey = config.encryptionKeys ? null : path.join(config.dataDir, KEY_FILE);
  const keyCopy = devKey && existsSync(devKey) ? keyCopyOf(target) : null;
  for (const f of [target, keyCopy]) if (f && existsSync(f) && !force) refuse(`${f} already exists; pass --force to replace it.`);
  // `tollgate backup backups/tollgate.db` on a fresh checkout: the folder is made first. It is checked writable
  // here, as SQLite would say only "unable to open database" of the copy.
  await mkdir(path.dirname(target), { recursive: true });
  accessSync(path.dirname(target), constants.W_OK);
  // Same directory as the target, so the final rename is atomic: FILE is a whole checked copy or absent.
  const partial = `${target}.partial-${process.pid}`;
  try {
    progress.phase(`copying ${source} (${formatBytes(sqliteSizeInUse(source))} in use) to ${target} …`);
    // SQLite's own words (a full disk, a folder it may not write to), without its thread's stack.
    await snapshotSqlite(source, partial, (p) => progress.update('written', p.written, p.total, 'bytes')).catch((err: unknown) =>
      refuse(`The copy could not be written (${(err as Error).message}); nothing was written to ${target}.`),
    );
    progress.end();
    progress.phase('checking the copy (PRAGMA quick_check) …');
    const check = checkSqliteCopy(partial);
    if (check.integrity !== 'ok') refuse(`The copy failed its check (${check.integrity}); nothing was written to ${target}.`);
    if (!check.migrations) refuse(`The copy has no tollgate_migrations table; is ${source} a Tollgate database?`);
    renameSync(partial, target);
    fsyncFile(target);
    if (devKey && keyCopy) {
      copyFileSync(devKey, keyCopy);
      chmodSync(keyCopy, 0o600);
      fsyncFile(keyCopy);
    }
    process.stdout.write(
      `Backed up ${source} to ${target}: ${formatBytes(check.bytes)} (${check.bytes} bytes), ${check.migrations.length} migrations, integrity ok.\n`,
    );
    process.stdout.write(keyReminder(config, keyCopy, false));
  } finally {
    rmSync(partial, { force: true });
  }
}

/** `<file>.before-restore-<UTC time>`: where a database or key file replaced by --force is kept. */
const asideName = (file: string) =>
  `${file}.before-restore-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;

/** `tollgate restore FILE`. */
export async function restore(file: string, force: boolean, progress: Progress): Promise<void> {
  const config = embeddedConfig('restore');
  if (!config) return;
  const backupFile = path.resolve(file);
  if (!existsSync(backupFile)) refuse(`No file ${backupFile}.`);
  if (statSync(backupFile).isDirectory()) refuse(`${backupFile} is a folder; name the backup file in it.`);
  progress.phase(`checking ${backupFile} (PRAGMA quick_check) …`);
  const check = checkSqliteCopy(backupFile);
  if (check.integrity !== 'ok') refuse(`${backupFile} is not a readable SQLite database (${check.integrity}).`);
  if (!check.migrations) refuse(`${backupFile} is not a Tollgate database: it has no tollgate_migrations table.`);
  const known = new Set(migrations.map(([name]) => name));
  const newer = check.migrations.filter((m) => !known.has(m));
  if (newer.length > 0) refuse(`${backupFile} was made by a newer Tollgate (migrations ${newer.join(', ')}); restore it with that version or later.`);

  const target = path.join(config.dataDir, DB_FILE);
  const keyBackup = existsSync(keyCopyOf(backupFile)) ? keyCopyOf(backupFile) : null;
  const keyTarget = path.join(config.dataDir, KEY_FILE);
  const keyClash = keyBackup !== null && existsSync(keyTarget) && readFileSync(keyBackup, 'utf8') !== readFileSync(keyTarget, 'utf8');
  const dbThere = existsSync(target);
  if ((dbThere || keyClash) && !force) {
    refuse(
      `${dbThere ? `A database is already at ${target}` : `A different key file is already at ${keyTarget}`}. Restore over it with --force (it is kept aside, renamed *.before-restore-<time>).`,
    );
  }
  if (dbThere && sqliteInUse(target)) refuse(`${target} is open in another process (a running tollgate serve?): stop it, then restore.`);

  const kept: string[] = [];
  if (dbThere) {
    // sqliteInUse checkpointed it: the file alone is the whole database now.
    const aside = asideName(target);
    renameSync(target, aside);
    for (const extra of ['-wal', '-shm']) if (existsSync(target + extra)) renameSync(target + extra, aside + extra);
    kept.push(aside);
  }
  if (keyBackup && keyClash) {
    const aside = asideName(keyTarget);
    renameSync(keyTarget, aside);
    kept.push(aside);
  }
  await mkdir(config.dataDir, { recursive: true });
  const partial = `${target}.restoring-${process.pid}`;
  try {
    progress.phase(`copying ${backupFile} to ${target} …`);
    await copyWithProgress(backupFile, partial, progress);
    renameSync(partial, target);
    fsyncFile(target);
  } finally {
    rmSync(partial, { force: true });
  }
  if (keyBackup) {
    copyFileSync(keyBackup, keyTarget);
    chmodSync(keyTarget, 0o600);
    fsyncFile(keyTarget);
  }
  const opened = openDatabase({ databaseUrl: null, dataDir: config.dataDir });
  let applied: string[];
  try {
    applied = await migrateToLatest(opened.db, { onMigration: (m, i, n) => progress.update(`migration ${m}:`, i, n) });
  } finally {
    progress.end();
    await opened.close();
  }
  process.stdout.write(
    `Restored ${backupFile} to ${target}: ${formatBytes(check.bytes)}, ${check.migrations.length} migrations${applied.length ? `; applied ${applied.join(', ')}` : ''}.\n`,
  );
  for (const k of kept) process.stdout.write(`The previous ${k.includes(KEY_FILE) ? 'key file' : 'database'} is kept at ${k}.\n`);
  process.stdout.write(keyReminder(config, keyBackup, true));
}
