import type { Command } from './command.js';

// The implementation (and the database driver) loads only when a command runs: help stays instant.
export const backupCommands: Command[] = [
  {
    path: ['backup'],
    args: 'FILE [--force] [--progress]',
    summary: 'copy the SQLite database to FILE while the server runs\n(consistent, checked; PostgreSQL: use pg_dump)',
    details: `Writes one consistent snapshot (VACUUM INTO, in one read transaction: ingestion goes on meanwhile) to a temporary
name beside FILE (its folder is created if missing), checks it (PRAGMA quick_check and its migrations table), then
renames it to FILE and prints its size. Refuses an existing FILE unless --force. In development (no
TOLLGATE_ENCRYPTION_KEYS) the generated key file of the data directory is copied beside it as FILE.encryption-keys:
webhook secrets in the database are sealed with it.
With DATABASE_URL set it exits 2 and explains pg_dump and WAL archiving.

Example: tollgate backup backups/tollgate-$(date -u +%Y%m%d).db`,
    options: { force: { type: 'boolean' }, progress: { type: 'boolean' } },
    positionals: 1,
    run: async ({ positionals, values, fail, progress }) => {
      const [file] = positionals;
      if (!file) return fail('backup needs FILE, where to write the copy');
      const { backup } = await import('./backup-restore.js');
      return backup(file, values.force === true, progress);
    },
  },
  {
    path: ['restore'],
    args: 'FILE [--force] [--progress]',
    summary: 'put a backup in DATA_DIR for a server that is not running\n(checks it, migrates it if older)',
    details: `Checks FILE is a readable Tollgate database no newer than this version, copies it to DATA_DIR/tollgate.db (DATA_DIR
is created if missing) and applies any newer migrations. Refuses when a database is already there unless --force, and
then only while no process has it open; the old one is kept aside as tollgate.db.before-restore-<time>.
FILE.encryption-keys, if beside it, becomes the data directory's development key file.

Example (the server stopped): DATA_DIR=./data tollgate restore backups/tollgate-20260101.db`,
    options: { force: { type: 'boolean' }, progress: { type: 'boolean' } },
    positionals: 1,
    run: async ({ positionals, values, fail, progress }) => {
      const [file] = positionals;
      if (!file) return fail('restore needs FILE, the backup to restore');
      const { restore } = await import('./backup-restore.js');
      return restore(file, values.force === true, progress);
    },
  },
];
