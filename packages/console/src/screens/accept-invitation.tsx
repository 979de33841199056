/**
 * The page an invitation link opens (/console/accept#tgi_…): the newcomer chooses a name and a
 * password, and is signed in with the role the invitation gave. The token sits after `#`, so it
 * never reaches a server log; it is sent once, in the body of the accept call.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import { FormAlert, TextField } from '../components/field-errors.js';
import { formErrors, problemFrom, type ApiProblem } from '../errors.js';
import { acceptInvitation, type OperatorSession } from '../session.js';

// The token is not an input: its error (used, expired) lands with the form's general ones.
const INPUTS = ['name', 'password'] as const;

export function AcceptInvitation(props: { api: Api; token: string; onSignedIn: (session: OperatorSession) => void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const errors = formErrors(problem, INPUTS);

  async function submit(e: Event) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const value = (name: string) => {
      const v = data.get(name);
      return typeof v === 'string' ? v : '';
    };
    setBusy(true);
    setProblem(null);
    try {
      const session = await acceptInvitation(props.api, { token: props.token, name: value('name').trim(), password: value('password') });
      props.onSignedIn(session);
    } catch (err) {
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
      setBusy(false);
    }
  }

  if (props.token === '') {
    return (
      <main id="main" class="sign-in">
        <h1>Join a Tollgate workspace</h1>
        <FormAlert messages={['This link has no invitation in it. Open the whole link you were sent, or ask an admin of the workspace for a new one.']} />
      </main>
    );
  }

  return (
    <main id="main" class="sign-in">
      <h1>Join a Tollgate workspace</h1>
      <p>Choose your name and a password (at least 12 characters) to accept the invitation.</p>
      <FormAlert messages={errors.general} />
      <form onSubmit={(e) => void submit(e)} aria-busy={busy ? 'true' : 'false'}>
        <TextField name="name" label="Your name" autoComplete="name" required errors={errors} />
        <TextField name="password" label="New password" type="password" autoComplete="new-password" required errors={errors} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Joining…' : 'Join and sign in'}
        </button>
      </form>
    </main>
  );
}
