import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { OperatorRole } from '../../lib/principal.js';
import { PASSWORD_MAX_LENGTH } from './password.js';

/** A person who signs in to the console of one workspace; works in both environments. */
export interface Operator {
  id: string;
  workspaceId: string;
  email: string;
  name: string;
  role: OperatorRole;
  createdAt: number;
  removedAt: number | null;
}

export interface OperatorInvitation {
  id: string;
  workspaceId: string;
  email: string;
  role: OperatorRole;
  invitedBy: string;
  expiresAt: number;
  acceptedAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}

/** A console session lasts 12 hours from sign-in, then the operator signs in again. */
export const SESSION_SECONDS = 12 * 60 * 60;
/** An invitation's link works once, within 7 days. */
export const INVITATION_SECONDS = 7 * 24 * 60 * 60;
/** Sign-in attempts per IP address and e-mail, and per IP address alone, in 15 minutes. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_ATTEMPTS_PER_EMAIL = 5;
export const SIGN_IN_ATTEMPTS_PER_IP = 50;

/** The console's cookie and the header that proves a request came from the console's own page. */
export const CONSOLE_COOKIE = '__Host-tollgate_console';
export const CSRF_HEADER = 'x-csrf-token';
export const ENVIRONMENT_HEADER = 'x-tollgate-environment';

/** E-mails are compared lower-cased and trimmed. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  description: 'An e-mail address (compared case-insensitively).',
  examples: ['ada@example.com'],
});
const Role = Type.Union([Type.Literal('admin'), Type.Literal('viewer')], {
  description: '`admin`: everything the API offers; `viewer`: reads only (the server refuses every other method).',
});
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH });

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Password,
    workspaceId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'ws_…: needed only when the e-mail is an operator of several workspaces with the same password (400 naming this field, and only after the password is checked).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SignInInput = Static<typeof SignInBody>;

export const InviteOperatorBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });
export type InviteOperatorInput = Static<typeof InviteOperatorBody>;

export const AcceptInvitationBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 100, description: 'tgi_…: the token of the invitation link (the part after #).' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'At least 12 characters.' }),
  },
  { additionalProperties: false },
);
export type AcceptInvitationInput = Static<typeof AcceptInvitationBody>;

export const OperatorSchema = Type.Object(
  {
    id: Type.String({ description: 'op_…' }),
    object: Type.Literal('operator'),
    email: Type.String(),
    name: Type.String(),
    role: Role,
    createdAt: Timestamp,
  },
  { title: 'Operator' },
);

export const OperatorSessionSchema = Type.Object(
  {
    id: Type.String({ description: 'opses_…' }),
    object: Type.Literal('operator_session'),
    operator: OperatorSchema,
    workspace: Type.Object({ id: Type.String(), name: Type.String() }),
    csrfToken: Type.String({
      description: 'Send it as X-CSRF-Token on every POST, PATCH, PUT and DELETE made with the session cookie. It lasts as long as the session.',
    }),
    expiresAt: Timestamp,
  },
  { title: 'OperatorSession' },
);

export const OperatorInvitationSchema = Type.Object(
  {
    id: Type.String({ description: 'opinv_…' }),
    object: Type.Literal('operator_invitation'),
    email: Type.String(),
    role: Role,
    invitedBy: Type.String({ description: 'The operator (op_…) or key (key_…) that invited.' }),
    expiresAt: Timestamp,
    acceptedAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { title: 'OperatorInvitation' },
);

export const CreatedOperatorInvitationSchema = Type.Object(
  {
    ...OperatorInvitationSchema.properties,
    token: Type.String({ description: 'tgi_…: shown only in this response.' }),
    url: Type.String({ description: 'The link to send: the console’s accept page with the token after #, so it never reaches a server log.' }),
  },
  { title: 'CreatedOperatorInvitation' },
);

export function presentOperator(o: Operator): Static<typeof OperatorSchema> {
  return { id: o.id, object: 'operator', email: o.email, name: o.name, role: o.role, createdAt: toIso(o.createdAt) };
}

export function presentInvitation(i: OperatorInvitation): Static<typeof OperatorInvitationSchema> {
  return {
    id: i.id,
    object: 'operator_invitation',
    email: i.email,
    role: i.role,
    invitedBy: i.invitedBy,
    expiresAt: toIso(i.expiresAt),
    acceptedAt: toIsoOrNull(i.acceptedAt),
    createdAt: toIso(i.createdAt),
  };
}
