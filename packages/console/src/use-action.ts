/**
 * A change a screen makes (create, revoke, advance, replay): busy while it runs (so a second click
 * sends nothing), the API's problem when it fails (a 401 ends the session, as useApi does), what it
 * answered, and a count of successes a screen keys its list by, so the list loads again after a change.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { useConsole } from './context.js';
import { problemFrom, type ApiProblem } from './errors.js';
import type { Loaded } from './use-api.js';

export interface Action<T = unknown> {
  busy: boolean;
  problem: ApiProblem | null;
  /** The last successful answer, until the next run or reset. */
  result: T | null;
  /** Successful runs so far. */
  done: number;
  /** Runs the request unless one is running; resolves to its answer, or null when it failed (the problem then says why). */
  run<U extends T>(send: (api: Api) => Promise<U>): Promise<U | null>;
  reset(): void;
}

export function useAction<T = unknown>(): Action<T> {
  const { api, signedOut } = useConsole();
  const [state, setState] = useState<{ busy: boolean; problem: ApiProblem | null; result: T | null }>({ busy: false, problem: null, result: null });
  const [done, setDone] = useState(0);
  // A ref, not the state: two clicks in one frame both see the state before either re-render.
  const running = useRef(false);
  return {
    ...state,
    done,
    async run<U extends T>(send: (api: Api) => Promise<U>): Promise<U | null> {
      if (running.current) return null;
      running.current = true;
      setState({ busy: true, problem: null, result: null });
      try {
        const result = await send(api);
        setState({ busy: false, problem: null, result });
        setDone((n) => n + 1);
        return result;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) signedOut();
        setState({ busy: false, problem: err instanceof ApiError ? err.problem : problemFrom(0, null), result: null });
        return null;
      } finally {
        running.current = false;
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

/** A form's text values by name, trimmed; empty ones left out, so the API applies its defaults. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((v, k) => {
    if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  });
  return out;
}
