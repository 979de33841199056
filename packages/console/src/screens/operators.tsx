/**
 * The people who sign in to this workspace's console: invite one (the link is shown once, to send
 * by your own means: Tollgate sends no e-mail) and remove one. The server refuses removing the
 * last admin, and a viewer's changes; the page shows its words.
 */
import { SelectField } from '../components/choice-fields.js';
import { TextField } from '../components/field-errors.js';
import { ManagedList, NewForm, RowActions, type ListChanges } from '../components/managed-list.js';
import type { Column } from '../components/paged-table.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useConsole } from '../context.js';
import { formatInstant } from '../format.js';
import { formatTimeOfDay } from '../time.js';
import { formValues } from '../use-action.js';

interface Operator {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'viewer';
  createdAt: string;
}

interface CreatedInvitation {
  email: string;
  role: 'admin' | 'viewer';
  expiresAt: string;
  url: string;
}

const ROLES = [
  { value: 'viewer', label: 'Viewer: may read everything, change nothing' },
  { value: 'admin', label: 'Admin: may change everything' },
];

function columns(changes: ListChanges, selfId: string): Column<Operator>[] {
  const remove = (o: Operator) =>
    changes.ask(
      `Remove ${o.email}${o.id === selfId ? ' (you)' : ''}? They can no longer sign in, and their open sessions end at once.`,
      'Remove operator',
      (api) => api.delete(`/api/v1/operators/${encodeURIComponent(o.id)}`),
    );
  return [
    { label: 'Name', cell: (o) => (o.id === selfId ? `${o.name} (you)` : o.name) },
    { label: 'E-mail', cell: (o) => o.email },
    { label: 'Role', cell: (o) => o.role },
    { label: 'Since', cell: (o) => formatInstant(o.createdAt) },
    { label: 'Actions', cell: (o) => <RowActions subject={o.email} actions={[{ label: 'Remove', onClick: () => remove(o) }]} /> },
  ];
}

function Invite(props: { changes: ListChanges; close: () => void }) {
  const { create } = props.changes;
  async function submit(form: HTMLFormElement) {
    const v = formValues(form);
    const invitation = await create.run((api) => api.post<CreatedInvitation>('/api/v1/operator_invitations', { email: v.email ?? '', role: v.role }));
    if (!invitation) return;
    props.close();
    props.changes.show({
      title: `Invitation for ${invitation.email} (${invitation.role})`,
      label: 'Invitation link: send it to them yourself',
      secret: invitation.url,
      note: `The link works once, until ${formatTimeOfDay(invitation.expiresAt)}.`,
    });
  }
  return (
    <NewForm action={create} inputs={['email', 'role']} submit="Create invitation link" onSubmit={(f) => void submit(f)}>
      {(errors) => (
        <>
          <TextField name="email" label="E-mail" type="email" autoComplete="off" required errors={errors} />
          <SelectField name="role" label="Role" choices={ROLES} errors={errors} />
        </>
      )}
    </NewForm>
  );
}

export function Operators() {
  const { session } = useConsole();
  return (
    <>
      <ScreenTitle>Operators</ScreenTitle>
      <p class="muted">The people who can sign in to this workspace’s console, in test and live alike.</p>
      <ManagedList<Operator>
        id="operators"
        title="People with access"
        newLabel="Invite an operator"
        form={(changes, close) => <Invite changes={changes} close={close} />}
        path="/api/v1/operators"
        caption="Operators, newest first"
        columns={(changes) => columns(changes, session.operator.id)}
        empty="No operators."
      />
    </>
  );
}
