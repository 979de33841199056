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
  /** Calls to action, highlights and theme; published with the list, on the same publish. */
  draftDisplay: StorefrontDisplay;
  publishedDisplay: StorefrontDisplay | null;
  publishedVersion: number;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Where a card's button sends the buyer: the seller's own page (sign-up, checkout, contact). */
export interface CallToAction {
  label: string;
  url: string;
}

/** How one listed offering shows on the page. Offerings without an entry show plainly. */
export interface OfferingDisplaySettings {
  offeringId: string;
  highlighted: boolean;
  callToAction: CallToAction | null;
}

/** The seller's look for the hosted page; every field optional. */
export interface StorefrontTheme {
  accentColor?: string;
  backgroundColor?: string;
  fontFamily?: string;
  logoUrl?: string;
}

export interface StorefrontDisplay {
  offerings: OfferingDisplaySettings[];
  theme: StorefrontTheme;
}

export const EMPTY_STOREFRONT_DISPLAY: StorefrontDisplay = { offerings: [], theme: {} };

/** The display without entries for offerings no longer listed (a list edit may drop some). */
export function displayForList(display: StorefrontDisplay, offeringIds: readonly string[]): StorefrontDisplay {
  const listed = new Set(offeringIds);
  return { offerings: display.offerings.filter((o) => listed.has(o.offeringId)), theme: display.theme };
}

/** The hosted pricing page: public, server-rendered, stable for the storefront's life. */
export const pricingPagePath = (storefrontId: string) => `/pricing/${storefrontId}`;

const HEX_COLOR = '^#[0-9a-fA-F]{6}$';

export const CallToActionSchema = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 40, description: 'The button\'s text, e.g. "Start free trial".' }),
    url: Type.String({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2048,
      description: 'Where the button goes: your sign-up or checkout page, with the offering id if you need it. http or https only.',
    }),
  },
  { additionalProperties: false, title: 'CallToAction' },
);

export const OfferingDisplaySchema = Type.Object(
  {
    offeringId: Type.String({ minLength: 1, maxLength: 100, description: "off_…: one of the storefront's offeringIds." }),
    highlighted: Type.Optional(Type.Boolean({ default: false, description: 'Set the card apart, with a "Most popular" badge.' })),
    callToAction: Type.Optional(Type.Union([CallToActionSchema, Type.Null()], { description: 'A button on the card; null or absent: none.' })),
  },
  { additionalProperties: false, title: 'OfferingDisplay' },
);

export const StorefrontThemeSchema = Type.Object(
  {
    accentColor: Type.Optional(
      Type.String({
        pattern: HEX_COLOR,
        description:
          'Prices, buttons and the highlighted card, as #rrggbb. Text on it is white or near-black, whichever reads (WCAG AA); a colour too light to read on white is used for fills only.',
      }),
    ),
    backgroundColor: Type.Optional(
      Type.String({
        pattern: HEX_COLOR,
        description: 'The page behind the cards, as #rrggbb; the title and switch take white or near-black text, whichever reads.',
      }),
    ),
    fontFamily: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9 -]{0,62}$',
        description:
          "A font family installed on the buyer's device, tried before the system font (the page loads no web fonts): letters, digits, spaces and hyphens.",
      }),
    ),
    logoUrl: Type.Optional(
      Type.String({
        pattern: '^(https://[^\\s"\'<>]+|data:image/(png|svg\\+xml|webp|jpeg);base64,[A-Za-z0-9+/=]+)$',
        maxLength: 32_768,
        description:
          'Your logo above the title: an https URL (at most 2,048 characters) or a base64 data: URL of a PNG, SVG, WebP or JPEG image (at most 32 KiB).',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'StorefrontTheme',
    examples: [{ accentColor: '#4f46e5', backgroundColor: '#f5f3ff', fontFamily: 'Inter', logoUrl: 'https://shop.example.com/logo.svg' }],
  },
);

const OfferingDisplayList = Type.Array(OfferingDisplaySchema, {
  maxItems: 12,
  description: 'Per listed offering: a call to action and a highlight. Replaced whole; offerings not named show plainly.',
});

const StorefrontDisplayFields = {
  offeringDisplay: Type.Array(
    Type.Object({ offeringId: Type.String(), highlighted: Type.Boolean(), callToAction: Type.Union([CallToActionSchema, Type.Null()]) }),
  ),
  theme: StorefrontThemeSchema,
};

export const StorefrontSchema = Type.Object(
  {
    id: Type.String({ description: 'sf_…' }),
    object: Type.Literal('storefront'),
    environment: Environment,
    name: Type.String(),
    draft: Type.Object(
      { offeringIds: Type.Array(Type.String()), ...StorefrontDisplayFields },
      { description: 'What the next publish shows; ?preview=true reads it.' },
    ),
    published: Type.Union(
      [
        Type.Object({
          offeringIds: Type.Array(Type.String()),
          ...StorefrontDisplayFields,
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
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    offeringIds: Type.Optional(OfferingIds),
    offeringDisplay: Type.Optional(OfferingDisplayList),
    theme: Type.Optional(StorefrontThemeSchema),
  },
  { additionalProperties: false },
);
export type CreateStorefrontInput = Static<typeof CreateStorefrontBody>;

export const UpdateStorefrontBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    offeringIds: Type.Optional(OfferingIds),
    offeringDisplay: Type.Optional(OfferingDisplayList),
    theme: Type.Optional(StorefrontThemeSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateStorefrontInput = Static<typeof UpdateStorefrontBody>;

const sameList = (a: readonly string[] | null, b: readonly string[]) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);
const sameDisplay = (a: StorefrontDisplay | null, b: StorefrontDisplay) => JSON.stringify(a ?? EMPTY_STOREFRONT_DISPLAY) === JSON.stringify(b);

/**
 * The body's display settings, normalised: every entry with both fields, the theme without empty
 * keys. Which ids are allowed is checked against the list (checkStorefrontDisplay).
 */
export function displayFromInput(
  offerings: ReadonlyArray<{ offeringId: string; highlighted?: boolean; callToAction?: CallToAction | null }>,
  theme: StorefrontTheme,
): StorefrontDisplay {
  return {
    offerings: offerings.map((o) => ({ offeringId: o.offeringId, highlighted: o.highlighted ?? false, callToAction: o.callToAction ?? null })),
    theme: Object.fromEntries(Object.entries(theme).filter(([, v]) => typeof v === 'string' && v !== '')),
  };
}

const presentDisplay = (d: StorefrontDisplay) => ({ offeringDisplay: d.offerings, theme: d.theme });

export function presentStorefront(s: Storefront): Static<typeof StorefrontSchema> {
  return {
    id: s.id,
    object: 'storefront',
    environment: s.environment,
    name: s.name,
    draft: { offeringIds: s.draftOfferingIds, ...presentDisplay(s.draftDisplay) },
    published:
      s.publishedOfferingIds === null || s.publishedAt === null
        ? null
        : {
            offeringIds: s.publishedOfferingIds,
            ...presentDisplay(s.publishedDisplay ?? EMPTY_STOREFRONT_DISPLAY),
            version: s.publishedVersion,
            publishedAt: toIso(s.publishedAt),
          },
    hasUnpublishedChanges: !sameList(s.publishedOfferingIds, s.draftOfferingIds) || !sameDisplay(s.publishedDisplay, s.draftDisplay),
    pricingPagePath: pricingPagePath(s.id),
    createdAt: toIso(s.createdAt),
    updatedAt: toIso(s.updatedAt),
  };
}
