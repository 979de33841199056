/**
 * `tollgate <command> [options]`: the command table and its dispatch. Each command group lives in
 * its own module (service, workspace, users, secrets, audit, backup; api: through the HTTP API with a key); a command is a row with its
 * path, usage, options and run(). Nothing touches storage or the network until the arguments
 * parsed, so a mistyped command creates no database.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../lib/config.js';
import { closest, commandHelp, name, overviewLine, usageLine, type Command } from './command.js';
import { CliFailure, describeFailure } from './failure.js';
import { createProgress } from './progress.js';
import { serviceCommands } from './service-commands.js';
import { workspaceCommands } from './workspace-commands.js';
import { secretsCommands } from './secrets-commands.js';
import { auditCommands } from './audit-commands.js';
import { backupCommands } from './backup-commands.js';
import { apiCommands } from './api-commands.js';
import { usersCommands } from './users-commands.js';
import { serverVersion as version } from '../version.js';

export const commands: readonly Command[] = [
  ...serviceCommands,
  ...workspaceCommands,
  ...usersCommands,
  ...secretsCommands,
  ...auditCommands,
  ...backupCommands,
  ...apiCommands,
];

const HELP_FLAGS = ['--help', '-h'];

const USAGE_LINE = 'Usage: tollgate <command> [options]; tollgate --help lists the commands';

const usage = `Usage: tollgate <command> [options]

Commands:
${commands.map(overviewLine).join('\n')}
  help [COMMAND]                          this overview, or one command's usage (also: tollgate COMMAND --help)
  --version                               print the version

Configuration comes from the environment (docs/configuration.md): DATABASE_URL, DATA_DIR, PORT, …`;

const CONFIG_HINT = 'Configuration comes from the environment: see docs/configuration.md for every variable.';

function groupHelp(group: string): string {
  const members = commands.filter((c) => c.path[0] === group);
  return `Usage: tollgate ${group} <command> [options]\n\nCommands:\n${members.map(overviewLine).join('\n')}\n\nRun tollgate help ${group} <command> for one command's options.`;
}

function exitWith(text: string, code: number): never {
  process.stderr.write(`${text}\n`);
  process.exit(code);
}

/** What the user may have meant by a command line that names no command. */
function suggestion(argv: string[]): string {
  const [first = '', second] = argv;
  const groups = [...new Set(commands.map((c) => c.path[0]!))];
  if (groups.includes(first)) {
    const subs = commands.filter((c) => c.path[0] === first).map((c) => c.path[1]!);
    const near = second === undefined ? null : closest(second, subs);
    return near ? `Did you mean \`tollgate ${first} ${near}\`?` : `tollgate ${first} takes one of: ${subs.join(', ')}.`;
  }
  const near = closest(first, [...groups, 'help']);
  return near ? `Did you mean \`tollgate ${near}\`?` : '';
}

/** A mistyped command: what was typed, the closest command and one line of usage (--help has the rest). */
function unknown(argv: string[]): never {
  const hint = suggestion(argv);
  const [first = ''] = argv;
  const group = commands.some((c) => c.path[0] === first && c.path.length > 1);
  const line = group ? `Usage: tollgate ${first} <command> [options]; tollgate help ${first} lists them` : USAGE_LINE;
  exitWith(`tollgate: unknown command: ${argv.join(' ')}${hint ? `\n${hint}` : ''}\n${line}`, 2);
}

/** The command argv starts with: the longest path that matches. */
const find = (argv: readonly string[]) =>
  commands.filter((c) => c.path.every((p, i) => argv[i] === p)).sort((a, b) => b.path.length - a.path.length)[0] ?? null;

/** `tollgate help X…`, `tollgate X --help`: the command's usage, or a group's list; null when X names neither. */
function helpFor(words: string[]): string | null {
  if (words.length === 0) return usage;
  const cmd = find(words);
  if (cmd && cmd.path.length === words.length) return commandHelp(cmd);
  if (words.length === 1 && commands.some((c) => c.path[0] === words[0] && c.path.length > 1)) return groupHelp(words[0]!);
  return null;
}

async function main(argv: string[]): Promise<void> {
  const [first] = argv;
  if (first === undefined || HELP_FLAGS.includes(first)) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`${version}\n`);
    return;
  }
  if (first === 'help') {
    const text = helpFor(argv.slice(1));
    if (text === null) unknown(argv.slice(1));
    process.stdout.write(`${text}\n`);
    return;
  }
  const cmd = find(argv);
  if (!cmd) {
    // `tollgate workspace --help`: the group's commands.
    const words = argv.filter((a) => !HELP_FLAGS.includes(a));
    const text = words.length < argv.length ? helpFor(words) : null;
    if (text === null) unknown(argv);
    process.stdout.write(`${text}\n`);
    return;
  }
  const fail = (message: string): never => exitWith(`tollgate: ${message}\n${usageLine(cmd)}`, 2);
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv.slice(cmd.path.length),
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: (cmd.positionals ?? 0) > 0,
      strict: true,
    });
  } catch (err) {
    return fail(`${name(cmd)}: ${(err as Error).message}`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${commandHelp(cmd)}\n`);
    return;
  }
  if (parsed.positionals.length > (cmd.positionals ?? 0)) fail(`${name(cmd)}: unexpected argument ${parsed.positionals[cmd.positionals ?? 0]}`);
  await cmd.run({ ...parsed, progress: createProgress(process.stderr, parsed.values.progress === true), fail });
}

main(process.argv.slice(2)).catch(async (err) => {
  if (err instanceof ConfigError) exitWith(`tollgate: ${err.message}\n${CONFIG_HINT}`, 2);
  const failure = describeFailure(err);
  if (failure) exitWith(`tollgate: ${failure.message}${failure.hint ? `\n${failure.hint}` : ''}`, err instanceof CliFailure ? err.exitCode : 1);
  // Only a command that opened the database can have thrown it, so bootstrap is loaded by then.
  const { StartupError } = await import('../bootstrap.js');
  if (err instanceof StartupError) exitWith(`tollgate: ${err.message}`, 1);
  exitWith(`tollgate: an unexpected error (a bug: please report it with what follows)\n${(err as Error).stack ?? String(err)}`, 1);
});
