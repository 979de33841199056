import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { Environment } from '../../lib/crypto.js';

/**
 * A hub session: what a customer's browser holds to use the developer hub for ONE customer, for
 * hours at most. Minted by the seller's backend with its workspace key; opened once through its link.
 */
export interface HubSession {
  id: string;
  environment: Environment;
  customerId: string;
  returnUrl: string | null;
  theme: HubTheme;
  linkUsedAt: number | null;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

export const DEFAULT_EXPIRES_IN_SECONDS = 3600;

export const HubThemeSchema = Type.Object(
  {
    accentColor: Type.Optional(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Buttons and links, as #rrggbb.' })),
    logoUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048, description: 'Your logo, an https URL.' })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'Shown in the header and the page title.' })),
  },
  {
    additionalProperties: false,
    title: 'HubTheme',
    description: 'How the hub looks for your customers; every field optional.',
    examples: [{ accentColor: '#4f46e5', logoUrl: 'https://shop.example.com/logo.svg', title: 'Acme developers' }],
  },
);
export type HubTheme = Static<typeof HubThemeSchema>;

export const CreateHubSessionBody = Type.Object(
  {
    customerId: Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'The one customer whose keys, usage, invoices and subscriptions the hub shows: its cus_ id, or the externalId you gave it (as in usage events; an id match wins). The session names it by its cus_ id.',
    }),
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: 300,
        maximum: 86_400,
        default: DEFAULT_EXPIRES_IN_SECONDS,
        description: 'Lifetime in seconds, 300 to 86,400 (default 3,600), in real time, counted from now (not from the opening of the link).',
      }),
    ),
    returnUrl: Type.Optional(
      Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'Where the hub’s "back" link leads: a page of your site.' }),
    ),
    theme: Type.Optional(HubThemeSchema),
  },
  { additionalProperties: false },
);
export type CreateHubSessionInput = Static<typeof CreateHubSessionBody>;

const common = {
  id: Type.String({ description: 'hses_…' }),
  object: Type.Literal('hub_session'),
  expiresAt: Timestamp,
  returnUrl: Type.Union([Type.String(), Type.Null()]),
  theme: HubThemeSchema,
};

export const HubSessionSchema = Type.Object(
  {
    ...common,
    customerId: Type.String({ description: 'cus_…, also when the session was minted with the externalId.' }),
    openedAt: NullableTimestamp,
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { title: 'HubSession' },
);

export const CreatedHubSessionSchema = Type.Object(
  {
    ...HubSessionSchema.properties,
    url: Type.Union([Type.String(), Type.Null()], {
      description:
        'The single-use link to send your customer to (`…/hub#hbl_…`): opening it signs the browser in. Shown only in this response; null in an idempotent replay.',
    }),
  },
  { title: 'CreatedHubSession' },
);

/** What the customer's browser learns about its own session: never a secret but its CSRF token. */
export const HubSessionViewSchema = Type.Object(
  {
    ...common,
    customer: Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), email: Type.Union([Type.String(), Type.Null()]) }),
    csrfToken: Type.String({ description: 'Send it as X-CSRF-Token on every POST, PUT, PATCH and DELETE of the hub routes.' }),
  },
  { title: 'HubSessionView' },
);

export const OpenHubSessionBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The hbl_… link token, from the fragment of the link.' }) },
  { additionalProperties: false },
);

export function presentHubSession(s: HubSession): Static<typeof HubSessionSchema> {
  return {
    id: s.id,
    object: 'hub_session',
    customerId: s.customerId,
    expiresAt: toIso(s.expiresAt),
    returnUrl: s.returnUrl,
    theme: s.theme,
    openedAt: toIsoOrNull(s.linkUsedAt),
    createdAt: toIso(s.createdAt),
    revokedAt: toIsoOrNull(s.revokedAt),
  };
}

export function presentHubSessionView(
  s: HubSession,
  customer: { id: string; name: string | null; email: string | null },
  csrfToken: string,
): Static<typeof HubSessionViewSchema> {
  return {
    id: s.id,
    object: 'hub_session',
    expiresAt: toIso(s.expiresAt),
    returnUrl: s.returnUrl,
    theme: s.theme,
    customer: { id: customer.id, name: customer.name, email: customer.email },
    csrfToken,
  };
}
