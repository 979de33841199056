import { AppError } from '../lib/errors.js';

/**
 * Browser code the server builds from source at the first request when no build is on disk (the
 * widget's script, the console): built once per process; a failure is not kept, so the next
 * call builds again.
 */
export function buildOnce<T>(build: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= build().catch((err: unknown) => {
      loading = null;
      throw err;
    });
    return loading;
  };
}

/** The built files, or a 503 with Retry-After that says what failed and how to fix it (never a 500). */
export async function builtOr503<T>(load: () => Promise<T>, what: string, fix: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw new AppError('SERVICE_UNAVAILABLE', `${what} could not be built (${err instanceof Error ? err.message : String(err)}): ${fix}.`, {
      headers: { 'retry-after': '30' },
    });
  }
}
