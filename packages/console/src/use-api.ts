/**
 * Data for a screen: load, reload when the environment or the inputs change, drop an answer that
 * arrives after a newer request was made, and end the session on a 401. About thirty lines, so no
 * data-fetching library (ARCHITECTURE.md, "The operator console").
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { useApiScope } from './context.js';
import { problemFrom, type ApiProblem } from './errors.js';

export type Loaded<T> = { state: 'loading' } | { state: 'ok'; data: T } | { state: 'error'; problem: ApiProblem };

export function useApi<T>(load: (api: Api) => Promise<T>, inputs: readonly unknown[]): Loaded<T> & { reload: () => void } {
  const { api, environment, signedOut } = useApiScope();
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const ticket = ++latest.current;
    setResult({ state: 'loading' });
    load(api).then(
      (data) => ticket === latest.current && setResult({ state: 'ok', data }),
      (err: unknown) => {
        if (ticket !== latest.current) return;
        if (err instanceof ApiError && err.status === 401) signedOut();
        setResult({ state: 'error', problem: err instanceof ApiError ? err.problem : problemFrom(0, null) });
      },
    );
    // `load` is a new closure each render: the inputs name what it reads.
  }, [api, environment, round, ...inputs]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...result, reload };
}
