import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { Environment, Metadata, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';

export interface Customer {
  id: string;
  environment: Env;
  externalId: string | null;
  name: string | null;
  email: string | null;
  metadata: Record<string, string>;
  /** The test clock this customer lives on (test environment only); null: real time. */
  testClockId: string | null;
  createdAt: number;
  updatedAt: number;
}

const ExternalId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Your own id for this customer; unique per workspace and environment.',
});

/** A path's customer: `/customers/{id}` names one as ingestion does. */
export const CustomerRefParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'The customer: its cus_ id or the externalId you gave it, as in usage events (an id match wins). Percent-encode it; an externalId longer than 100 characters cannot go in a path (find it with GET /api/v1/customers?externalId=…).',
  }),
});

export const CustomerSchema = Type.Object(
  {
    id: Type.String({ description: 'cus_…' }),
    object: Type.Literal('customer'),
    environment: Environment,
    externalId: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    metadata: Metadata,
    testClockId: Type.Union([Type.String(), Type.Null()], { description: 'clock_…: the test clock this customer and its subscriptions live on.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Customer' },
);

export const CreateCustomerBody = Type.Object(
  {
    externalId: Type.Optional(ExternalId),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    metadata: Type.Optional(Metadata),
    testClockId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Test environment only: the customer lives on this test clock (clock_…); its subscriptions start, renew and are invoiced in its time.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCustomerInput = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = Type.Object(
  {
    externalId: Type.Optional(Type.Union([ExternalId, Type.Null()])),
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 320 }), Type.Null()])),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCustomerInput = Static<typeof UpdateCustomerBody>;

export function presentCustomer(c: Customer): Static<typeof CustomerSchema> {
  return { ...c, object: 'customer', createdAt: toIso(c.createdAt), updatedAt: toIso(c.updatedAt) };
}
