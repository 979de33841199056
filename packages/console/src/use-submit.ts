/**
 * A form's request: busy while it runs, the API's problem when it fails (for formErrors), and the
 * session ended on a 401, as useApi does for loads.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { useConsole } from './context.js';
import { problemFrom, type ApiProblem } from './errors.js';

export function useSubmit() {
  const { api, signedOut } = useConsole();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  /** Runs the request; resolves to its answer, or null when it failed (the problem is then set). */
  async function run<T>(send: (api: Api) => Promise<T>): Promise<T | null> {
    setBusy(true);
    setProblem(null);
    try {
      return await send(api);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { busy, problem, run };
}
