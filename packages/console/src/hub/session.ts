/** The developer hub's session (hub-sessions' routes): open the link, read it back, sign out. */
import { createContext } from 'preact';
import { ApiError, type Api } from '../api.js';

export interface HubTheme {
  accentColor?: string;
  logoUrl?: string;
  title?: string;
}

export interface HubSession {
  id: string;
  object: 'hub_session';
  expiresAt: string;
  returnUrl: string | null;
  theme: HubTheme;
  customer: { id: string; name: string | null; email: string | null };
  csrfToken: string;
}

const SESSION_PATH = '/api/v1/hub/session';

/** Exchanges the single-use link for the cookie; null when the link is used, expired or unknown (401). */
export async function openHubSession(api: Api, token: string): Promise<HubSession | null> {
  return orNullOn401(() => api.post<HubSession>(SESSION_PATH, { token }));
}

/** The session the cookie holds (a reload), or null when it has none or it expired (401). */
export const readHubSession = (api: Api): Promise<HubSession | null> => orNullOn401(() => api.get<HubSession>(SESSION_PATH));

export const signOutOfHub = (api: Api) => api.delete<unknown>(SESSION_PATH);

async function orNullOn401(call: () => Promise<HubSession>): Promise<HubSession | null> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

/** The session's CSRF token, for the one request that is not the Api's: the upload, sent by XMLHttpRequest for its progress. */
export const HubCsrf = createContext<() => string | null>(() => null);
