/**
 * Sign in with e-mail and password (and a workspace id when the e-mail belongs to several; a link
 * may carry it as ?workspace=). The API's 401 and 429 are shown in its words, 429 with the wait,
 * both in the form's alert region, which a screen reader announces as it fills.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { formErrors, problemFrom, retryText, type ApiProblem } from '../errors.js';
import { signIn, type OperatorSession } from '../session.js';

const INPUTS = ['email', 'password', 'workspaceId'] as const;

export function SignIn(props: { api: Api; workspace: string; onSignedIn: (session: OperatorSession) => void; notice?: string | null }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  // The 401 names the password field, but it is about the e-mail and the password together (it
  // never says which is wrong): the alert region says it, not a message under one field.
  const errors = formErrors(problem, problem?.status === 401 ? [] : INPUTS);
  const general = [...errors.general, ...(problem?.retryAfterSeconds != null && problem.status === 429 ? [retryText(problem.retryAfterSeconds)] : [])];

  async function submit(e: Event) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const value = (name: string) => {
      const v = data.get(name);
      return typeof v === 'string' ? v : '';
    };
    const text = (name: string) => value(name).trim();
    const workspaceId = text('workspaceId');
    setBusy(true);
    setProblem(null);
    try {
      const session = await signIn(props.api, {
        email: text('email'),
        password: value('password'),
        ...(workspaceId === '' ? {} : { workspaceId }),
      });
      props.onSignedIn(session);
    } catch (err) {
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the Tollgate console</h1>
      {props.notice && <p class="notice">{props.notice}</p>}
      <FormAlert messages={general} />
      <form onSubmit={(e) => void submit(e)} aria-busy={busy ? 'true' : 'false'}>
        <TextField name="email" label="E-mail" type="email" autoComplete="username" required errors={errors} />
        <TextField name="password" label="Password" type="password" autoComplete="current-password" required errors={errors} />
        <TextField
          name="workspaceId"
          label="Workspace id (optional)"
          hint="Only when your e-mail belongs to more than one workspace: ws_…"
          defaultValue={props.workspace}
          autoComplete="off"
          spellcheck={false}
          errors={errors}
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
