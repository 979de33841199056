import type { Deps } from '../deps.js';

/**
 * Runs a job now and then every `intervalMs`, logging its result or failure; a failed run waits
 * for the next. The timer does not keep the process alive. Returns a stop function.
 */
export function runOnStartAndEvery<T extends object>(deps: Pick<Deps, 'log'>, intervalMs: number, what: string, job: () => Promise<T>): () => void {
  const run = () =>
    job()
      .then((result) => deps.log.info({ result }, what))
      .catch((err) => deps.log.error({ err }, `${what} failed`));
  void run();
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
