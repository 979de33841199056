import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { Environment, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';

/**
 * Which offerings a seller's pricing page shows. Editing changes the draft; publishing makes the
 * draft what storefront keys read. The published list names offerings, whose current content
 * is shown: a change to a published offering or plan shows at once (and changes the etag).
 */
export interface Storefront {
  id: string;
  environment: Env;
  name: string;
  draftOfferingIds: string[];
  publishedOfferingIds: string[] | null;
  publishedVersion: number;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** The hosted pricing page: public, server-rendered, stable for the storefront's life. */
export const pricingPagePath = (storefrontId: string) => `/pricing/${storefrontId}`;

export const StorefrontSchema = Type.Object(
  {
    id: Type.String({ description: 'sf_…' }),
    object: Type.Literal('storefront'),
    environment: Environment,
    name: Type.String(),
    draft: Type.Object({ offeringIds: Type.Array(Type.String()) }, { description: 'What the next publish shows; ?preview=true reads it.' }),
    published: Type.Union(
      [
        Type.Object({
          offeringIds: Type.Array(Type.String()),
          version: Type.Integer({ description: 'Increases with every publish.' }),
          publishedAt: Timestamp,
        }),
        Type.Null(),
      ],
      { description: 'What storefront keys read; null until the first publish.' },
    ),
    hasUnpublishedChanges: Type.Boolean({ description: 'The draft differs from what is published.' }),
    pricingPagePath: Type.String({ description: 'The hosted pricing page (public; shows the published offerings).' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Storefront' },
);

const OfferingIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 12, description: 'off_… ids, in display order.' });

export const CreateStorefrontBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), offeringIds: Type.Optional(OfferingIds) },
  { additionalProperties: false },
);
export type CreateStorefrontInput = Static<typeof CreateStorefrontBody>;

export const UpdateStorefrontBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), offeringIds: Type.Optional(OfferingIds) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateStorefrontInput = Static<typeof UpdateStorefrontBody>;

const sameList = (a: readonly string[] | null, b: readonly string[]) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

export function presentStorefront(s: Storefront): Static<typeof StorefrontSchema> {
  return {
    id: s.id,
    object: 'storefront',
    environment: s.environment,
    name: s.name,
    draft: { offeringIds: s.draftOfferingIds },
    published:
      s.publishedOfferingIds === null || s.publishedAt === null
        ? null
        : { offeringIds: s.publishedOfferingIds, version: s.publishedVersion, publishedAt: toIso(s.publishedAt) },
    hasUnpublishedChanges: !sameList(s.publishedOfferingIds, s.draftOfferingIds),
    pricingPagePath: pricingPagePath(s.id),
    createdAt: toIso(s.createdAt),
    updatedAt: toIso(s.updatedAt),
  };
}
