import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type pgModule from 'pg';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/lib/config.js';
import type { Deps } from '../../src/deps.js';
import { compose, type Composition } from '../../src/compose.js';
import { openDatabase, type OpenedDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { FrozenClock } from '../../src/lib/clock.js';
import { generateEncryptionKey } from '../../src/lib/secret-box.js';
import type { App } from '../../src/http/types.js';
import { Seeder } from './seed.js';
import { createDemoWorkspace, type DemoWorkspace } from '../../src/demo/create-demo-workspace.js';
import type { HostResolver } from '../../src/modules/outbound-webhooks/resolve-destination.js';
import type { WebhookSender } from '../../src/modules/outbound-webhooks/webhook-sender.js';

/**
 * The suite runs on in-memory SQLite, and again on PostgreSQL (plus Redis when REDIS_URL is set)
 * when scripts/test.mjs runs it with TOLLGATE_TEST_BACKEND=postgres. Each test app gets its own
 * PostgreSQL schema and Redis key prefix, so test files can run in parallel.
 */
export const backend = process.env.TOLLGATE_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

export interface TestApp {
  app: App;
  deps: Deps;
  /** What the composition root built: deps, the usage writer, the live audit feed. */
  composition: Composition;
  /** The outbound webhook sender, when `webhooks: {sender: true}`; else null. */
  sender: WebhookSender | null;
  clock: FrozenClock;
  seed: Seeder;
  /** The demo workspace created before the app, with `demo: true`; else null. */
  demo: DemoWorkspace | null;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  /** Create a demo workspace before the app, as a first start does (the development profile then serves its widget demo page). */
  demo?: boolean;
  clock?: FrozenClock;
  /** SQLite in a temporary file instead of memory: usage then goes through the writer thread. */
  sqliteFile?: boolean;
  /** Where the app logs; silent by default. */
  log?: import('pino').Logger;
  /**
   * Outbound webhooks. `resolver`: the DNS the SSRF guard resolves endpoint hosts with, at create
   * and at delivery (default: the system's). `sender`: run this app's sender (off by default, so no
   * other test gains background work); drive it with `t.sender.drain()`. `guard`: the SSRF guard on
   * (off by default: test receivers listen on 127.0.0.1); an explicit config setting wins.
   */
  webhooks?: { resolver?: HostResolver; sender?: boolean; guard?: boolean };
  /** A tracer (an in-memory exporter's): spans as TOLLGATE_TRACING=otlp would make them. */
  tracer?: import('../../src/lib/tracing.js').Tracer;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ TOLLGATE_PROFILE: 'test' });
  return {
    ...base,
    logLevel: 'silent',
    seedDemo: false,
    // A key per app: nothing is written under ./data.
    encryptionKeys: [generateEncryptionKey('test1')],
    // Tests ingest and check at one frozen instant; the cache has a test of its own.
    entitlementCacheTtlMs: 0,
    databaseUrl: backend === 'postgres' ? (process.env.TEST_DATABASE_URL ?? null) : null,
    redisUrl: backend === 'postgres' ? process.env.REDIS_URL || null : null,
    // A busy test machine can stall a process for longer than production's 50 ms; the fault
    // tests set their own.
    redisCommandTimeoutMs: 2_000,
    // Each test app is a node of its own (its own Redis prefix): degraded, it has the whole limit.
    redisMinNodes: 1,
    ...overrides,
  };
}

let pgLoaded: Promise<typeof pgModule> | null = null;

/** One statement on a short-lived connection: schemas and scratch databases are made from outside them. */
export async function adminQuery(url: string, sql: string): Promise<void> {
  // pg on first use: the SQLite pass's processes never load it (its ~40 files, ~50 ms of each start).
  const pg = await (pgLoaded ??= import('pg').then((m) => m.default));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * An empty database of this run's backend, with nothing migrated (what a migration's test starts
 * from): in-memory SQLite, or a schema of its own on PostgreSQL, named `prefix` and random hex.
 */
export async function scratchDatabase(prefix: string): Promise<{ opened: OpenedDatabase; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (backend !== 'postgres' || !url) return { opened: openDatabase({ databaseUrl: null, sqlitePath: ':memory:' }), drop: async () => undefined };
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `CREATE SCHEMA ${schema}`);
  return { opened: openDatabase({ databaseUrl: url, pgSchema: schema, poolSize: 2 }), drop: () => adminQuery(url, `DROP SCHEMA ${schema} CASCADE`) };
}

let migratedImage: Promise<Buffer> | null = null;
/**
 * An in-memory SQLite database with every migration applied, serialized. Made once and kept in the
 * temporary folder under a digest of the migrations' sources, so the suite's other processes read
 * it instead of migrating (~200 ms each); a changed migration makes a new one.
 */
function migratedSqliteImage(): Promise<Buffer> {
  migratedImage ??= (async () => {
    const file = path.join(os.tmpdir(), `tollgate-test-migrated-${migrationsDigest()}.sqlite`);
    try {
      return readFileSync(file);
    } catch {
      // Not made yet: made here.
    }
    const scratch = openDatabase({ databaseUrl: null, sqlitePath: ':memory:' });
    try {
      await migrateToLatest(scratch.db);
      const image = scratch.sqlite!.serialize();
      // Written whole under another name and then renamed: a process reading it meanwhile finds
      // the whole image or none.
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(partial, image);
      renameSync(partial, file);
      return image;
    } finally {
      await scratch.close();
    }
  })();
  return migratedImage;
}

let pgSchemaDdl: Promise<{ template: string; sql: string } | null> | null = null;
/**
 * PostgreSQL's counterpart of the image above: the DDL of a schema with every migration applied,
 * as pg_dump writes it (tables, indexes, constraints, sequences, triggers and the migrations'
 * rows, every name qualified by the template schema's), kept in the temporary folder under a
 * digest of the migrations' sources and of the server. A test app's schema is then one statement
 * list instead of 33 migrations run one by one: less work for both processes and about a second
 * less per app on a busy machine. migrateToLatest still runs on it and finds nothing to do, so a
 * schema the dump left incomplete fails loudly. null (migrate as before) when pg_dump is missing
 * or fails.
 */
function migratedPgSchemaDdl(url: string): Promise<{ template: string; sql: string } | null> {
  pgSchemaDdl ??= (async () => {
    const key = createHash('sha256').update(url).update('\0').update(migrationsDigest()).digest('hex').slice(0, 16);
    const file = path.join(os.tmpdir(), `tollgate-test-pg-schema-${key}.sql`);
    const parse = (text: string) => {
      const [first, ...rest] = text.split('\n');
      return { template: first!.replace(/^-- template /, ''), sql: rest.join('\n') };
    };
    try {
      return parse(readFileSync(file, 'utf8'));
    } catch {
      // Not made yet: made here.
    }
    const template = `tgtmpl_${randomBytes(8).toString('hex')}`;
    await adminQuery(url, `CREATE SCHEMA ${template}`);
    try {
      const opened = openDatabase({ databaseUrl: url, pgSchema: template, poolSize: 1 });
      try {
        await migrateToLatest(opened.db);
      } finally {
        await opened.close();
      }
      const { stdout } = await promisify(execFile)('pg_dump', ['--dbname', url, '--schema', template, '--inserts', '--no-owner', '--no-privileges'], {
        maxBuffer: 64 * 1024 * 1024,
      });
      // psql's own commands (pg_dump writes \restrict lines) are not SQL.
      const sql = stdout
        .split('\n')
        .filter((l) => !l.startsWith('\\'))
        .join('\n');
      if (!sql.includes(`CREATE SCHEMA ${template};`)) return null;
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(partial, `-- template ${template}\n${sql}`);
      renameSync(partial, file);
      return { template, sql };
    } catch {
      return null;
    } finally {
      await adminQuery(url, `DROP SCHEMA ${template} CASCADE`);
    }
  })();
  return pgSchemaDdl;
}

/**
 * SQL that makes the schema `schema` with every migration applied (the DDL a test app's schema is
 * made from, above, owned by whoever runs it), or null when pg_dump is missing or failed: then make
 * the schema empty and let whoever opens it migrate.
 */
export async function migratedSchemaSql(url: string, schema: string): Promise<string | null> {
  const ddl = await migratedPgSchemaDdl(url);
  return ddl ? ddl.sql.replaceAll(ddl.template, schema) : null;
}

/** A digest of the migration sources (every file under db/ that a migration run reads). */
function migrationsDigest(): string {
  const db = fileURLToPath(new URL('../../src/db/', import.meta.url));
  const files = [
    ...readdirSync(path.join(db, 'migrations'), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && !d.name.endsWith('.test.ts'))
      .map((d) => path.join(d.parentPath ?? d.path, d.name)),
    path.join(db, 'migrate.ts'),
  ].sort();
  const h = createHash('sha256');
  for (const f of files) h.update(f).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex').slice(0, 16);
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const clock = opts.clock ?? new FrozenClock();
  const config = testConfig({
    outboundWebhookSender: opts.webhooks?.sender ?? false,
    outboundWebhookAllowPrivateAddresses: !(opts.webhooks?.guard ?? false),
    ...opts.config,
  });
  const suffix = randomBytes(6).toString('hex');
  let schema: string | undefined;
  if (backend === 'postgres') {
    if (!config.databaseUrl) throw new Error('TOLLGATE_TEST_BACKEND=postgres needs TEST_DATABASE_URL');
    schema = `t_${suffix}`;
    // The migrated schema's DDL under this app's schema name (it creates the schema), else an empty schema to migrate.
    const ddl = await migratedPgSchemaDdl(config.databaseUrl);
    await adminQuery(config.databaseUrl, ddl ? ddl.sql.replaceAll(ddl.template, schema) : `CREATE SCHEMA ${schema}`);
  }
  const dir = opts.sqliteFile && backend === 'sqlite' ? mkdtempSync(path.join(os.tmpdir(), 'tollgate-test-')) : null;
  const opened = openDatabase({
    databaseUrl: config.databaseUrl,
    sqlitePath: dir ? path.join(dir, 'tollgate.db') : ':memory:',
    // In memory: a copy of this process's migrated image, not a new migration run (a few ms
    // instead of ~200); migrateToLatest below then finds nothing to do.
    ...(backend === 'sqlite' && !dir ? { sqliteImage: await migratedSqliteImage() } : {}),
    pgSchema: schema,
    // Not waiting for the disk at each commit (database.ts says why that is safe here).
    pgSettings: { synchronous_commit: 'off' },
    poolSize: 4,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    // The server's own timeouts, as bootstrap sets them (fault tests shorten them).
    timeouts: {
      connectMs: config.databaseConnectTimeoutMs,
      queryMs: config.databaseQueryTimeoutMs,
      idleInTransactionMs: config.databaseIdleInTransactionTimeoutMs,
    },
  });
  await migrateToLatest(opened.db);
  const composition = await compose({
    config,
    db: opened.db,
    dialect: opened.dialect,
    sqlite: opened.sqlite,
    sqliteFile: opened.sqliteFile,
    closeDb: opened.close,
    clock,
    log: opts.log ?? pino({ level: 'silent' }),
    redisPrefix: `tgtest:${suffix}:`,
    webhookResolver: opts.webhooks?.resolver,
    poolStats: opened.poolStats,
    tracer: opts.tracer,
  });
  const { deps } = composition;
  // As main.ts does at a first start: a demo workspace before the app (its widget demo page).
  const demo = opts.demo ? await createDemoWorkspace(deps, { actor: { type: 'SYSTEM', id: 'seed' }, source: 'system', correlationId: 'seed' }) : null;
  const app = await buildApp(composition, { webhookResolver: opts.webhooks?.resolver, demo });
  await app.ready();
  return {
    app,
    deps,
    composition,
    sender: composition.webhookSender,
    clock,
    seed: new Seeder(app, deps),
    demo,
    async close() {
      await app.close();
      await composition.close();
      if (schema && config.databaseUrl) await adminQuery(config.databaseUrl, `DROP SCHEMA ${schema} CASCADE`);
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
