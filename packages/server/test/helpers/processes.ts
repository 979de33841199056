/**
 * The real `tollgate` CLI as child processes, for the tests that run it the way an operator does
 * (`node packages/server/bin/tollgate.js …` from the repository root): one-shot commands, `serve`
 * children, and the scratch databases and directories they run on. Children are only ever ended by
 * their own PID, and everything a test file makes is recorded in its Scratch so that one `after`
 * hook removes it all, also when a test failed half-way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminQuery, migratedSchemaSql } from './test-app.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = path.join(root, 'packages/server/bin/tollgate.js');
/** How long a process may take to print what a test waits for: only a bound on a hang, never a measure. */
const START_BOUND_MS = 80_000;

/** Only what node and tsx need, plus the test's own settings: nothing leaks in from the runner. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k]) env[k] = process.env[k];
  // A busy test machine can stall a child longer than production's 50 ms Redis command timeout;
  // fault tests that want the real one pass it in extra.
  return { ...env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', TOLLGATE_PROFILE: 'development', REDIS_COMMAND_TIMEOUT_MS: '2000', ...extra };
}

/** Sends `sig` to `pid` alone; a process that is already gone is not an error. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tollgate ARGS` to the end and returns its exit status and output. A command that hangs is
 * killed (by its PID) after `timeoutMs`, and the error carries both streams, so the failure says why.
 */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: childEnv(env), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      if (child.pid) signal(child.pid, 'SIGKILL');
      reject(new Error(`tollgate ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP request to a running server with a bearer key; the body is parsed JSON (null if empty). */
export async function call(base: string, method: string, url: string, key: string, body?: unknown): Promise<Reply> {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Signs in to a running server's console as a browser would: the status and the session cookie it set. */
export async function consoleSignIn(base: string, email: string, password: string): Promise<{ status: number; cookie: string | null; body: any }> {
  const res = await fetch(`${base}/api/v1/operator_sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0] ?? null;
  return { status: res.status, cookie, body: await res.json() };
}

/** How a child ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A `tollgate serve` child on PORT=0, so the OS picks a free port and servers of parallel test files
 * never collide; its address is read from the start-up banner. Stopped by its PID: SIGTERM (the
 * clean shutdown under test), SIGKILL if it is still running 10 s later.
 */
export class ServeProcess {
  stdout = '';
  stderr = '';
  /** The base URL from the banner ("Tollgate is running at …"), once started() resolved. */
  address = '';
  /** Resolves with how the process ended. */
  readonly exited: Promise<Exit>;
  private hasExited = false;
  private readonly child: ChildProcess;

  /**
   * `name` (such as 'A') only labels the process in messages; `args` are the CLI's (another
   * long-running command, such as `events tail`). Prefer Scratch.serve, which also cleans up.
   */
  constructor(
    env: Record<string, string>,
    readonly name = '',
    readonly args: readonly string[] = ['serve'],
  ) {
    this.child = spawn(process.execPath, [bin, ...args], { cwd: root, env: childEnv({ ...env, PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, sig) => {
        this.hasExited = true;
        resolve({ code, signal: sig });
      });
      // Without a listener a failed spawn would crash the test file; a child that never started
      // has no PID and emits no 'exit', so it counts as ended here.
      this.child.on('error', (err) => {
        this.stderr += `${err}\n`;
        if (this.child.pid === undefined) {
          this.hasExited = true;
          resolve({ code: null, signal: null });
        }
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private get label(): string {
    const command = `tollgate ${this.args.join(' ')}`;
    return this.name ? `${command} (${this.name})` : command;
  }

  /**
   * Resolves with the first match of `re` on stdout (or stderr); fails if the process exits or
   * time runs out. The default bound is generous: a first start compiles the server through tsx
   * and migrates, which took over 30 s on a 2-core machine at load average 8 (CI beside other work).
   */
  async waitFor(re: RegExp, timeoutMs = START_BOUND_MS, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RegExpMatchArray> {
    // Checked again each time the child writes or exits, not on a timer.
    const source = stream === 'stdout' ? this.child.stdout! : this.child.stderr!;
    let onData = () => {};
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const m = re.exec(this[stream]);
          if (m) resolve(m);
          else if (this.hasExited) reject(new Error(`${this.label} exited before printing ${re}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
        };
        onData = check;
        // After the buffer's own listener (registered first), so the text just written is in it.
        source.on('data', onData);
        void this.exited.then(check);
        timer = setTimeout(
          () => reject(new Error(`${this.label} did not print ${re} in ${timeoutMs} ms\nstdout: ${this.stdout}\nstderr: ${this.stderr}`)),
          timeoutMs,
        );
        check();
      });
    } finally {
      source.off('data', onData);
      clearTimeout(timer);
    }
  }

  /** Waits for the banner and sets `address` from it. */
  async started(timeoutMs = START_BOUND_MS): Promise<this> {
    this.address = (await this.waitFor(/Tollgate is running at (http:\/\/127\.0\.0\.1:\d+) /, timeoutMs))[1] as string;
    return this;
  }

  /** call() against this server. */
  call(method: string, url: string, key: string, body?: unknown): Promise<Reply> {
    return call(this.address, method, url, key, body);
  }

  /** SIGTERM (or `sig`, such as SIGINT for Ctrl-C) by PID, SIGKILL after 10 s; resolves with how it ended. Safe to call again, or after it exited. */
  async stop(sig: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    const pid = this.child.pid;
    if (this.hasExited || pid === undefined) return this.exited;
    signal(pid, sig);
    const timer = setTimeout(() => {
      if (!this.hasExited) signal(pid, 'SIGKILL');
    }, 10_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Everything one test file makes outside its own process: serve children, PostgreSQL databases (or
 * schemas with roles of their own) on TEST_DATABASE_URL and temp directories. Each is recorded the
 * moment it exists, so `after(() => scratch.cleanup())` ends and removes all of it whatever the
 * tests did.
 */
export class Scratch {
  private readonly servers = new Set<ServeProcess>();
  private readonly databases: string[] = [];
  private readonly schemas: string[] = [];
  private readonly dirs: string[] = [];

  /** `tag` names what is made: temp dirs `tollgate-<tag>-…`, databases (and schemas with their roles) `tg_<tag>_<hex>`. */
  constructor(private readonly tag: string) {}

  /** A new, empty directory under the OS temp dir. */
  tempDir(): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), `tollgate-${this.tag}-`));
    this.dirs.push(dir);
    return dir;
  }

  /** A new, empty database on TEST_DATABASE_URL's server; `url` reaches it with the same credentials. */
  async database(): Promise<{ name: string; url: string }> {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('TOLLGATE_TEST_BACKEND=postgres needs TEST_DATABASE_URL');
    const name = `tg_${this.tag}_${randomBytes(6).toString('hex')}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    this.databases.push(name);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return { name, url: url.toString() };
  }

  /**
   * A new schema in TEST_DATABASE_URL's database and a login role of its own (a superuser, as
   * TEST_DATABASE_URL's own is) that has it as its search_path: `url` (the same database, as that
   * role) gives a server or the CLI what database() does, a place of its own to work in. Empty, or
   * with `migrated` every migration already applied (the DDL createTestApp makes its schemas from:
   * a first start then finds nothing to migrate, seconds sooner on PostgreSQL). Cheaper than
   * database(): PostgreSQL writes a checkpoint at every DROP DATABASE (seconds on a busy machine),
   * not when a schema and a role are dropped. `name` names both. Not for a test that needs a
   * database as such (one it lists, copies or drops by name).
   */
  async schema(opts: { migrated?: boolean } = {}): Promise<{ name: string; url: string }> {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('TOLLGATE_TEST_BACKEND=postgres needs TEST_DATABASE_URL');
    const name = `tg_${this.tag}_${randomBytes(6).toString('hex')}`;
    const make = (opts.migrated ? await migratedSchemaSql(adminUrl, name) : null) ?? `CREATE SCHEMA ${name}`;
    // A password of its own, so that the role logs in wherever TEST_DATABASE_URL's does (trust or password authentication).
    const password = randomBytes(12).toString('hex');
    await adminQuery(adminUrl, `CREATE ROLE ${name} LOGIN SUPERUSER PASSWORD '${password}'; ALTER ROLE ${name} SET search_path = ${name}; ${make}`);
    this.schemas.push(name);
    const url = new URL(adminUrl);
    url.username = name;
    url.password = password;
    return { name, url: url.toString() };
  }

  /** Starts `tollgate serve` and waits for its banner; the process is stopped by cleanup() if not before. */
  serve(env: Record<string, string>, name?: string): Promise<ServeProcess> {
    return this.spawn(env, name).started();
  }

  /** Starts `tollgate serve` without waiting for it (a test watches it start); stopped by cleanup(). */
  spawn(env: Record<string, string>, name?: string): ServeProcess {
    const server = new ServeProcess(env, name);
    this.servers.add(server);
    return server;
  }

  /** Starts a long-running `tollgate ARGS` (such as `events tail`) without waiting; stopped by cleanup() if not before. */
  command(args: string[], env: Record<string, string>): ServeProcess {
    const child = new ServeProcess(env, '', args);
    this.servers.add(child);
    return child;
  }

  /**
   * Stops every server, then drops the databases (WITH FORCE, in case a connection lingers), the
   * schemas and their roles (their connections ended first), and removes the directories. Every
   * step is tried; the first failure is thrown at the end.
   */
  async cleanup(): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (step: () => unknown) => {
      try {
        await step();
      } catch (err) {
        errors.push(err);
      }
    };
    await Promise.all([...this.servers].map((s) => attempt(() => s.stop())));
    this.servers.clear();
    for (const name of this.databases.splice(0)) {
      await attempt(() => adminQuery(process.env.TEST_DATABASE_URL as string, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
    for (const name of this.schemas.splice(0)) {
      // Its connections first (a process that outlived its test), so that nothing holds a lock on the schema.
      await attempt(() =>
        adminQuery(
          process.env.TEST_DATABASE_URL as string,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${name}'; DROP SCHEMA IF EXISTS ${name} CASCADE; DROP ROLE IF EXISTS ${name}`,
        ),
      );
    }
    for (const dir of this.dirs.splice(0)) await attempt(() => rmSync(dir, { recursive: true, force: true }));
    if (errors.length > 0) throw errors[0];
  }
}
