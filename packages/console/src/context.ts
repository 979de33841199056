/** What every screen reads: the API client, the environment shown, the session, and a way to drop it (a 401). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Environment } from './api.js';
import type { OperatorSession } from './session.js';

/** What the data hook (and so PagedTable) needs: the console and the developer hub both provide it. */
export interface ApiScope {
  api: Api;
  environment: Environment;
  /** The server said 401: the session is over (the console's sign-in form, the hub's "link expired" page). */
  signedOut: () => void;
}

export interface ConsoleContext extends ApiScope {
  session: OperatorSession;
}

export const Console = createContext<ConsoleContext | null>(null);

/** The developer hub's provider of the same; the console provides Console, which is one too. */
export const HubScope = createContext<ApiScope | null>(null);

export function useApiScope(): ApiScope {
  const hub = useContext(HubScope);
  const operator = useContext(Console);
  const scope = hub ?? operator;
  if (!scope) throw new Error('useApiScope outside the console shell or the hub');
  return scope;
}

export function useConsole(): ConsoleContext {
  const c = useContext(Console);
  if (!c) throw new Error('useConsole outside the signed-in shell');
  return c;
}
