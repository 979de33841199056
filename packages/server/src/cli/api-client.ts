import { Tollgate, TollgateError } from '@tollgate/sdk';
import type { CommandContext } from './command.js';

export interface ApiTarget {
  url: string;
  key: string;
}

/** Where to send and with which key, from the flags, else the environment. */
export function apiTarget({ values, fail }: Pick<CommandContext, 'values' | 'fail'>): ApiTarget {
  const url = ((values['api-url'] as string | undefined) ?? process.env.TOLLGATE_API_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const key = (values['api-key'] as string | undefined) ?? process.env.TOLLGATE_API_KEY ?? '';
  if (!/^https?:\/\/[^/]/.test(url)) fail(`--api-url must be an http:// or https:// address, got ${url}`);
  if (key.trim() === '') fail('this command calls the HTTP API: pass --api-key or set TOLLGATE_API_KEY (a secret key, sk_test_… or sk_live_…)');
  return { url, key };
}

/**
 * The SDK client: its retries are the spec's (429 and 503 after Retry-After, a request without an
 * answer only when it carries an idempotency key). A CLI sends what it has and exits, so nothing
 * is flushed on exit.
 */
export function apiClient(target: ApiTarget): Tollgate {
  return new Tollgate({ apiKey: target.key, baseUrl: target.url, flushOnExit: false, timeoutMs: 30_000 });
}

/** A failed call in a line or a few the user can act on (the key never appears: the SDK does not put it in messages). */
export function explain(err: unknown, target: ApiTarget): string {
  if (err instanceof TollgateError) {
    if (err.unreachable) {
      return `cannot reach Tollgate at ${target.url}: ${err.errors[0]?.message ?? err.message}\nIs the server running there? --api-url or TOLLGATE_API_URL says where it is.`;
    }
    const lines = err.errors.map((e) => `${err.status} ${e.code}: ${e.message}${e.field ? ` (${e.field})` : ''}`);
    return `${lines.join('\n')}${err.requestId ? `\n(request ${err.requestId})` : ''}`;
  }
  return (err as Error).message ?? String(err);
}

/** Runs an API command; a failed call is printed (exit 1), not thrown as a stack. */
export async function calling(target: ApiTarget, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof TollgateError)) throw err;
    process.stderr.write(`tollgate: ${explain(err, target)}\n`);
    process.exitCode = 1;
  }
}
