/** The operator's console session (ARCHITECTURE.md, "The operator console"): sign in, read it back, sign out. */
import { ApiError, type Api } from './api.js';

export type OperatorRole = 'admin' | 'viewer';

export interface OperatorSession {
  id: string;
  object: 'operator_session';
  operator: { id: string; object: 'operator'; email: string; name: string | null; role: OperatorRole };
  workspace: { id: string; name: string };
  csrfToken: string;
  expiresAt: string;
}

export interface SignInBody {
  email: string;
  password: string;
  workspaceId?: string;
}

export const SESSIONS_PATH = '/api/v1/operator_sessions';
export const CURRENT_SESSION_PATH = `${SESSIONS_PATH}/current`;

/** The session the cookie holds, or null when there is none (401). */
export async function readCurrentSession(api: Api): Promise<OperatorSession | null> {
  try {
    return await api.get<OperatorSession>(CURRENT_SESSION_PATH);
  } catch (err) {
    // 404: a server without the operator API yet; the sign-in form then says what the server answers.
    if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return null;
    throw err;
  }
}

export const signIn = (api: Api, body: SignInBody) => api.post<OperatorSession>(SESSIONS_PATH, body);

export interface AcceptInvitationBody {
  token: string;
  name: string;
  password: string;
}

/** Accepts an invitation: the account is made and signed in, as a sign-in would. */
export const acceptInvitation = (api: Api, body: AcceptInvitationBody) => api.post<OperatorSession>('/api/v1/operator_invitations/accept', body);

export const signOut = (api: Api) => api.delete<unknown>(CURRENT_SESSION_PATH);
