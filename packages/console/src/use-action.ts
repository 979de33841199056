/**
 * A change a screen makes (create, revoke, advance): busy while it runs, the API's problem when it
 * fails (a 401 ends the session, as useApi does), and a count of successes a screen keys its list
 * by, so the list loads again after a change.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { useConsole } from './context.js';
import { problemFrom, type ApiProblem } from './errors.js';

export interface Action {
  busy: boolean;
  problem: ApiProblem | null;
  /** Successful runs so far. */
  done: number;
  /** The call's answer, or null when it failed (the problem then says why). */
  run<T>(call: (api: Api) => Promise<T>): Promise<T | null>;
  reset(): void;
}

export function useAction(): Action {
  const { api, signedOut } = useConsole();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [done, setDone] = useState(0);
  async function run<T>(call: (api: Api) => Promise<T>): Promise<T | null> {
    setBusy(true);
    setProblem(null);
    try {
      const answer = await call(api);
      setDone((n) => n + 1);
      return answer;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { busy, problem, done, run, reset: () => setProblem(null) };
}

/** A form's text values by name, trimmed; empty ones left out, so the API applies its defaults. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((v, k) => {
    if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  });
  return out;
}
