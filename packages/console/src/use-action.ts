/**
 * A button's or a form's request: busy while it runs (so a second click sends nothing), the API's
 * problem when it fails (a 401 ends the session, as useApi does), and what it answered.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { useConsole } from './context.js';
import { problemFrom, type ApiProblem } from './errors.js';
import type { Loaded } from './use-api.js';

export interface Action<T> {
  busy: boolean;
  problem: ApiProblem | null;
  result: T | null;
  /** Runs the request unless one is running; resolves to its answer, or null when it failed. */
  run(send: (api: Api) => Promise<T>): Promise<T | null>;
  reset(): void;
}

export function useAction<T>(): Action<T> {
  const { api, signedOut } = useConsole();
  const [state, setState] = useState<{ busy: boolean; problem: ApiProblem | null; result: T | null }>({ busy: false, problem: null, result: null });
  return {
    ...state,
    async run(send) {
      if (state.busy) return null;
      setState({ busy: true, problem: null, result: null });
      try {
        const result = await send(api);
        setState({ busy: false, problem: null, result });
        return result;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) signedOut();
        setState({ busy: false, problem: err instanceof ApiError ? err.problem : problemFrom(0, null), result: null });
        return null;
      }
    },
    reset: () => setState({ busy: false, problem: null, result: null }),
  };
}

/**
 * The data of a load, kept while it reloads: a screen that reloads after an action keeps its
 * content (and the focus and status message inside it) instead of blinking to "Loading…".
 */
export function useKept<T>(loaded: Loaded<T>): T | null {
  const kept = useRef<T | null>(null);
  if (loaded.state === 'ok') kept.current = loaded.data;
  return kept.current;
}
