/**
 * The answer of `what`, or a rejection with `onTimeout()` after `ms`. For waits whose bound is
 * ours to keep whatever the library below does (a frozen network can leave a query waiting for
 * its own, longer, timeout). The work itself is not cancelled: its late answer is dropped.
 */
export function within<T>(ms: number, what: Promise<T>, onTimeout: () => Error = () => new Error(`no answer within ${ms} ms`)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([what, timeout]).finally(() => clearTimeout(timer));
}
