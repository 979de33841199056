/** What every screen reads: the API client, the environment shown, the session, and a way to drop it (a 401). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Environment } from './api.js';
import type { OperatorSession } from './session.js';

export interface ConsoleContext {
  api: Api;
  environment: Environment;
  session: OperatorSession;
  /** The server said 401: the session is over, the sign-in form shows again. */
  signedOut: () => void;
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const c = useContext(Console);
  if (!c) throw new Error('useConsole outside the signed-in shell');
  return c;
}
