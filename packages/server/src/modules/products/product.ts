import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { Environment, Metadata, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';

export const productKinds = ['STANDARD_API', 'AGENTIC_API', 'AI_AGENT', 'MCP_SERVER'] as const;
export type ProductKind = (typeof productKinds)[number];

/** Which credential a product's customers call it with (spec: Authentication 1 and 2). */
export function credentialTypeFor(kind: ProductKind): 'api_key' | 'client_credentials' {
  return kind === 'STANDARD_API' || kind === 'AGENTIC_API' ? 'api_key' : 'client_credentials';
}

export interface Product {
  id: string;
  environment: Env;
  name: string;
  kind: ProductKind;
  description: string | null;
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

const Kind = Type.Union(
  productKinds.map((k) => Type.Literal(k)),
  {
    description:
      'STANDARD_API and AGENTIC_API products are called with bearer product keys; AI_AGENT and MCP_SERVER products with client credentials (OAuth 2.0).',
  },
);
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 2000 });

export const ProductSchema = Type.Object(
  {
    id: Type.String({ description: 'prod_…' }),
    object: Type.Literal('product'),
    environment: Environment,
    name: Type.String(),
    kind: Kind,
    description: Type.Union([Type.String(), Type.Null()]),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Product' },
);

export const CreateProductBody = Type.Object(
  { name: Name, kind: Kind, description: Type.Optional(Description), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export type CreateProductInput = Static<typeof CreateProductBody>;

/** kind is fixed at creation: the credentials already issued depend on it. */
export const UpdateProductBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateProductInput = Static<typeof UpdateProductBody>;

export function presentProduct(p: Product): Static<typeof ProductSchema> {
  return { ...p, object: 'product', createdAt: toIso(p.createdAt), updatedAt: toIso(p.updatedAt) };
}
