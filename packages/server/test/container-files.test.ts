/**
 * The container files (Dockerfile, compose.yaml, deploy/) are linted and checked here, because no
 * image can be built on these machines (base images cannot be pulled): docs/production.md, "Run it in
 * containers".
 *
 * - Linters: dockerfile-utils (the Dockerfile checks of VS Code's Docker language service) and
 *   dclint (the Compose Specification's JSON schema and its own rules), both devDependencies, so
 *   they always run; hadolint and `docker build --check` run when they are on the machine, and are
 *   skipped with the reason printed when not.
 * - The invariants the deployment relies on: two stages, a slim runtime pinned by version, a
 *   non-root user, tini as PID 1, a health check, the data directory a volume, two nodes behind the
 *   balancer on PostgreSQL and Redis with health checks, migrations run once, and every variable
 *   the files set one that loadConfig reads.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/lib/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Every environment variable loadConfig reads, recorded as it reads them from an empty environment. */
const configVariables: Set<string> = (() => {
  const seen = new Set<string>();
  const env: NodeJS.ProcessEnv = new Proxy(
    {},
    {
      get(_target, key) {
        if (typeof key === 'string') seen.add(key);
        return undefined;
      },
    },
  );
  loadConfig(env);
  return seen;
})();

// ---- Dockerfile ------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** The Dockerfile's instructions, continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending: { parts: string[]; line: number } | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (pending === null && (line === '' || line.startsWith('#'))) return;
    if (pending !== null && line.startsWith('#')) return;
    const continued = line.endsWith('\\');
    const body = continued ? line.slice(0, -1).trim() : line;
    pending ??= { parts: [], line: i + 1 };
    pending.parts.push(body);
    if (continued) return;
    const joined = pending.parts.join(' ');
    const space = joined.search(/\s/);
    out.push({ keyword: joined.slice(0, space).toUpperCase(), args: joined.slice(space + 1).trim(), line: pending.line });
    pending = null;
  });
  return out;
}

/** The stages: each FROM and the instructions after it. */
function stages(all: Instruction[]): { from: string; name: string | null; body: Instruction[] }[] {
  const out: { from: string; name: string | null; body: Instruction[] }[] = [];
  for (const ins of all) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      assert.ok(m, `FROM on line ${ins.line} reads FROM image [AS name]`);
      out.push({ from: m[1]!, name: m[2] ?? null, body: [] });
    } else {
      assert.ok(out.length > 0, `${ins.keyword} on line ${ins.line} comes before any FROM`);
      out.at(-1)!.body.push(ins);
    }
  }
  return out;
}

/** ENV a=b c=d (or the old ENV a b) as pairs. */
function envPairs(args: string): [string, string][] {
  if (!args.includes('=')) {
    const [name, ...rest] = args.split(/\s+/);
    return [[name!, rest.join(' ')]];
  }
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, '')]);
}

/** The JSON (exec) form of ENTRYPOINT, CMD or HEALTHCHECK CMD; a shell form fails the test. */
function execForm(args: string, what: string): string[] {
  assert.ok(args.startsWith('['), `${what} uses the exec form (JSON array), so signals reach the process: ${args}`);
  return JSON.parse(args) as string[];
}

const dockerfileText = read('Dockerfile');
const dockerfile = instructions(dockerfileText);
const dockerStages = stages(dockerfile);
const runtime = dockerStages.at(-1)!;
const build = dockerStages[0]!;
const runtimeOf = (keyword: string) => runtime.body.filter((i) => i.keyword === keyword);
const runtimeEnv = new Map(runtimeOf('ENV').flatMap((i) => envPairs(i.args)));

describe('Dockerfile', () => {
  it('dockerfile-utils finds no problem', () => {
    const problems = validate(dockerfileText).map((d) => `line ${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`);
    assert.deepEqual(problems, []);
  });

  it('has a build stage and a runtime stage on the slim image of the same Node version, pinned to a release', () => {
    assert.ok(dockerStages.length >= 2, 'multi-stage');
    const image = /^node:(\d+\.\d+\.\d+)-bookworm(-slim)?$/;
    const b = image.exec(build.from);
    const r = image.exec(runtime.from);
    assert.ok(b && !b[2], `the build stage is a full node:X.Y.Z-bookworm (compilers for better-sqlite3): ${build.from}`);
    assert.ok(r && r[2], `the runtime stage is node:X.Y.Z-bookworm-slim: ${runtime.from}`);
    assert.equal(r[1], b[1], 'the native addon built in one stage runs on the same Node version in the other');
    assert.equal(Number(r[1]!.split('.')[0]), 20, 'Node 20, what the project supports');
  });

  it('the build stage installs everything, builds the server, the widget and the console and drops the devDependencies', () => {
    const runs = build.body
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.args)
      .join(' && ');
    assert.match(runs, /npm ci\b/);
    assert.match(runs, /npm run build(?! -w)/, 'the server is compiled (esbuild is a devDependency)');
    assert.match(runs, /npm run build -w @tollgate\/widget/, 'the widget script is built (esbuild is a devDependency)');
    assert.match(runs, /npm run build -w @tollgate\/console/, 'the console is built (esbuild is a devDependency)');
    assert.match(runs, /npm prune --omit=dev|npm ci [^&]*--omit=dev/);
  });

  it('the runtime stage copies what runs from the build stage, including the built widget and console, and no test', () => {
    const copies = runtimeOf('COPY').map((i) => i.args);
    for (const c of copies) assert.match(c, new RegExp(`--from=${build.name}\\b`), `copied from the build stage: COPY ${c}`);
    const sources = copies.map((c) => c.split(/\s+/).filter((w) => !w.startsWith('--'))[0]!);
    for (const needed of [
      '/app/node_modules',
      '/app/packages/server/dist',
      '/app/packages/server/bin',
      '/app/packages/server/scripts',
      '/app/packages/widget/dist',
      '/app/packages/console/dist',
      '/app/packages/console/package.json',
    ]) {
      assert.ok(sources.includes(needed), `copies ${needed}`);
    }
    assert.ok(!sources.some((s) => /\/test\b|\.test\.ts$/.test(s)), 'no tests in the image');
  });

  it('every path the build stage copies from the context exists, and .dockerignore keeps local state out', () => {
    for (const ins of build.body.filter((i) => i.keyword === 'COPY')) {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      for (const src of words.slice(0, -1)) assert.ok(existsSync(path.join(root, src)), `COPY ${src} (line ${ins.line}) exists`);
    }
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['**/node_modules', '**/dist', 'data', '.git']) assert.ok(ignored.includes(p), `.dockerignore lists ${p}`);
  });

  it('runs as the non-root node user, under tini, in the production profile', () => {
    const users = runtimeOf('USER');
    assert.equal(users.length, 1);
    assert.equal(users[0]!.args, 'node');
    const entrypoint = execForm(runtimeOf('ENTRYPOINT').at(-1)!.args, 'ENTRYPOINT');
    assert.deepEqual(entrypoint.slice(0, 4), ['/usr/bin/tini', '--', 'node', 'packages/server/bin/tollgate.js'], 'tini is PID 1 and passes SIGTERM on');
    assert.match(
      runtimeOf('RUN')
        .map((i) => i.args)
        .join(' '),
      /apt-get install [^&]*\btini\b/,
      'tini is installed',
    );
    assert.deepEqual(execForm(runtimeOf('CMD').at(-1)!.args, 'CMD'), ['serve']);
    assert.equal(runtimeEnv.get('TOLLGATE_PROFILE'), 'production');
    assert.equal(runtimeEnv.get('HOST'), '0.0.0.0', 'reachable from outside the container');
  });

  it('the data directory is a volume owned by node', () => {
    const dataDir = runtimeEnv.get('DATA_DIR');
    assert.equal(dataDir, '/var/lib/tollgate');
    const volumes = runtimeOf('VOLUME').flatMap((i) => (i.args.startsWith('[') ? (JSON.parse(i.args) as string[]) : i.args.split(/\s+/)));
    assert.ok(volumes.includes(dataDir), `VOLUME ${dataDir}`);
    assert.match(
      runtimeOf('RUN')
        .map((i) => i.args)
        .join(' '),
      new RegExp(`chown node:node ${dataDir}`),
    );
  });

  it('exposes PORT and checks /health with node (the slim image has no curl)', () => {
    assert.deepEqual(
      runtimeOf('EXPOSE').map((i) => i.args),
      [runtimeEnv.get('PORT')],
    );
    const checks = runtimeOf('HEALTHCHECK');
    assert.equal(checks.length, 1);
    const cmd = /CMD\s+(\[.*\])$/.exec(checks[0]!.args);
    assert.ok(cmd, 'HEALTHCHECK ... CMD [exec form]');
    const argv = execForm(cmd[1]!, 'HEALTHCHECK CMD');
    assert.equal(argv[0], 'node');
    assert.match(argv.join(' '), /fetch\('http:\/\/127\.0\.0\.1:' \+ \(process\.env\.PORT \|\| 8080\) \+ '\/health'\)/);
  });

  it('every variable it sets is one that loadConfig reads', () => {
    for (const name of runtimeEnv.keys()) assert.ok(configVariables.has(name), `ENV ${name} is read by lib/config.ts`);
  });

  const hadolint = spawnSync('hadolint', ['--version'], { encoding: 'utf8' });
  const hadolintSkip =
    hadolint.status === 0 ? false : 'hadolint is not installed (neither Debian 12 nor the npm registry packages it); dockerfile-utils ran instead';
  if (hadolintSkip) console.log(`container-files.test.ts: SKIPPED: ${hadolintSkip}`);
  it('hadolint finds no problem', { skip: hadolintSkip }, () => {
    const r = spawnSync('hadolint', ['Dockerfile'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  const docker = spawnSync('docker', ['buildx', 'version'], { encoding: 'utf8' });
  const daemon = docker.status === 0 ? spawnSync('docker', ['info'], { encoding: 'utf8' }) : null;
  const dockerSkip =
    docker.error !== undefined
      ? 'docker is not installed'
      : docker.status !== 0
        ? 'docker has no buildx plugin (BuildKit checks need it)'
        : daemon?.status !== 0
          ? 'no Docker daemon answers'
          : false;
  if (dockerSkip) console.log(`container-files.test.ts: SKIPPED docker build --check: ${dockerSkip}`);
  it('docker build --check (BuildKit) finds no problem', { skip: dockerSkip, timeout: 120_000 }, () => {
    const r = spawnSync('docker', ['build', '--check', '.'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });
});

// ---- compose.yaml and the balancer ----------------------------------------------------------

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
}
const composeText = read('compose.yaml');
const compose = parseYaml(composeText, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;
const tollgates = Object.entries(services).filter(([, s]) => s.build === '.');
const nodes = tollgates.filter(([, s]) => s.command === undefined || s.command[0] === 'serve');
const balancerEntry = Object.entries(services).find(([, s]) => s.image?.startsWith('nginx:'));
const nginxConf = read('deploy/nginx/nginx.conf');

describe('compose.yaml', () => {
  it('dclint (the Compose schema and its rules) finds no problem, warnings included', () => {
    const bin = fileURLToPath(import.meta.resolve('dclint/package.json')).replace(/package\.json$/, 'bin/dclint.cjs');
    const r = spawnSync(process.execPath, [bin, '--formatter', 'json', '--max-warnings', '0', 'compose.yaml'], { cwd: root, encoding: 'utf8' });
    const report = JSON.parse(r.stdout) as { messages: { line: number; message: string }[] }[];
    assert.deepEqual(
      report.flatMap((f) => f.messages.map((m) => `line ${m.line}: ${m.message}`)),
      [],
    );
    assert.equal(r.status, 0, r.stderr);
  });

  it('runs PostgreSQL 15 and Redis 7, each with a health check and a named volume', () => {
    for (const [name, image] of [
      ['postgres', /^postgres:15(\.|$)/],
      ['redis', /^redis:7(\.|$)/],
    ] as const) {
      const s = services[name];
      assert.ok(s, `a ${name} service`);
      assert.match(s.image ?? '', image);
      assert.ok(s.healthcheck?.test.length, `${name} has a health check`);
      const volume = (s.volumes ?? [])[0]?.split(':')[0] ?? '';
      assert.ok(volume in (compose.volumes ?? {}), `${name} keeps its data in a named volume`);
    }
  });

  it('runs two Tollgate nodes of this image after a one-shot migrate, on PostgreSQL and Redis when they are healthy', () => {
    assert.equal(nodes.length, 2, `two serving nodes: ${nodes.map(([n]) => n).join(', ')}`);
    const migrate = tollgates.filter(([, s]) => s.command?.[0] === 'migrate');
    assert.equal(migrate.length, 1, 'one migrate service');
    const [migrateName] = migrate[0]!;
    for (const [name, s] of nodes) {
      assert.deepEqual(
        s.depends_on,
        {
          [migrateName]: { condition: 'service_completed_successfully' },
          postgres: { condition: 'service_healthy' },
          redis: { condition: 'service_healthy' },
        },
        name,
      );
    }
    for (const [name, s] of tollgates) {
      const env = s.environment ?? {};
      assert.match(env.DATABASE_URL ?? '', /^postgres:\/\/[^@]+@postgres:5432\//, `${name}: DATABASE_URL names the postgres service`);
      assert.equal(env.REDIS_URL, 'redis://redis:6379', `${name}: REDIS_URL names the redis service`);
      assert.match(env.TOLLGATE_ENCRYPTION_KEYS ?? '', /^\$\{TOLLGATE_ENCRYPTION_KEYS:\?/, `${name}: the keys are required, never defaulted`);
      assert.equal(env.TRUST_PROXY, 'true', `${name}: behind the balancer`);
      assert.ok(!('ports' in s), `${name} is reached through the balancer only`);
    }
  });

  it('every variable it gives a Tollgate service is one that loadConfig reads', () => {
    for (const [name, s] of tollgates) {
      for (const key of Object.keys(s.environment ?? {})) assert.ok(configVariables.has(key), `${name}: ${key} is read by lib/config.ts`);
    }
  });

  it('deploy/.env.example documents every variable compose.yaml interpolates, and no other', () => {
    const used = new Set([...composeText.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));
    const example = read('deploy/.env.example');
    const documented = new Set([...example.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
    assert.deepEqual([...documented].sort(), [...used].sort());
    for (const required of ['POSTGRES_PASSWORD', 'TOLLGATE_ENCRYPTION_KEYS']) {
      assert.match(example, new RegExp(`^${required}=$`, 'm'), `${required} has no default in the example: each deployment sets its own`);
    }
  });

  it('nginx forwards to both nodes on their port, after both are healthy', () => {
    assert.ok(balancerEntry, 'an nginx service');
    const [lbName, lb] = balancerEntry;
    assert.ok(
      lb.volumes?.some((v) => v.startsWith('./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf')),
      `${lbName} mounts deploy/nginx/nginx.conf`,
    );
    assert.deepEqual(Object.keys(lb.depends_on ?? {}).sort(), nodes.map(([n]) => n).sort());
    for (const dep of Object.values(lb.depends_on ?? {})) assert.equal(dep.condition, 'service_healthy');
    const upstream = /upstream tollgate \{([^}]*)\}/.exec(nginxConf);
    assert.ok(upstream, 'an upstream block');
    const servers = [...upstream[1]!.matchAll(/^\s*server (\S+?)(?:\s|;)/gm)].map((m) => m[1]);
    const port = nodes[0]![1].environment?.PORT ?? runtimeEnv.get('PORT');
    assert.deepEqual(servers.sort(), nodes.map(([n]) => `${n}:${port}`).sort());
  });

  it('nginx passes the client address on, streams request bodies and lets the live audit stream flow', () => {
    assert.match(nginxConf, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    assert.match(nginxConf, /client_max_body_size 0;/, "Tollgate's own body limits apply");
    const routes = readFileSync(path.join(root, 'packages/server/src/modules/audit/audit-stream.routes.ts'), 'utf8');
    const streamPath = /app\.get\('([^']+)'/.exec(routes)?.[1];
    assert.ok(streamPath, 'the stream route');
    const location = new RegExp(`location = ${streamPath.replaceAll('/', '\\/')} \\{([^}]*)\\}`).exec(nginxConf);
    assert.ok(location, `a location for ${streamPath}`);
    assert.match(location[1]!, /proxy_buffering off;/);
    const readTimeout = /proxy_read_timeout (\d+)(s|m|h);/.exec(location[1]!);
    assert.ok(readTimeout);
    const seconds = Number(readTimeout[1]) * { s: 1, m: 60, h: 3600 }[readTimeout[2] as 's' | 'm' | 'h'];
    const heartbeat = loadConfig({}).auditStreamHeartbeatMs / 1000;
    assert.ok(seconds > 2 * heartbeat, `the stream's read timeout (${seconds} s) outlasts two heartbeats (${heartbeat} s each)`);
  });
});
