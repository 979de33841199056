import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

export interface GroupRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** It was still running after the bound and was ended. */
  timedOut: boolean;
}

/**
 * `cmd args` from the repository root, in a process group of its own, to the end. A run still going
 * after `boundMs` (a bound on a hang, never a measure) gets SIGTERM, so a script's trap can stop
 * what it started by PID, and 10 s later its group, which holds only what it started, SIGKILL.
 */
export function runInOwnGroup(cmd: string, args: string[], env: NodeJS.ProcessEnv, boundMs: number): Promise<GroupRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const group = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        /* already gone */
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const hangTimer = setTimeout(() => {
      timedOut = true;
      group('SIGTERM');
      killTimer = setTimeout(() => group('SIGKILL'), 10_000);
    }, boundMs);
    child.on('error', (err) => {
      clearTimeout(hangTimer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(hangTimer);
      clearTimeout(killTimer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
