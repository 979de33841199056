import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { Environment } from '../../lib/crypto.js';

/**
 * A widget session: what the buyer's browser holds to drive the upgrade/cancel widget for ONE
 * subscription, for minutes. Minted by the seller's backend with its workspace key.
 */
export interface WidgetSession {
  id: string;
  environment: Environment;
  subscriptionId: string;
  customerId: string;
  /** Empty: any origin. */
  allowedOrigins: string[];
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

export const DEFAULT_EXPIRES_IN_SECONDS = 900;
export const MAX_ALLOWED_ORIGINS = 10;

export const CreateWidgetSessionBody = Type.Object(
  {
    subscriptionId: Type.String({ minLength: 1, maxLength: 100, description: 'sub_…: the one subscription the browser may act on.' }),
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 3600,
        default: DEFAULT_EXPIRES_IN_SECONDS,
        description: 'Lifetime in seconds, 60 to 3600 (default 900), in real time (never a test clock’s).',
      }),
    ),
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: MAX_ALLOWED_ORIGINS,
        description:
          'The pages that may use the session, as origins (`https://shop.example.com`, scheme and host and port only). Empty or absent: any origin. A request from another origin, or with no Origin header, gets 403 ORIGIN_NOT_ALLOWED.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWidgetSessionInput = Static<typeof CreateWidgetSessionBody>;

const common = {
  id: Type.String({ description: 'wses_…' }),
  object: Type.Literal('widget_session'),
  subscriptionId: Type.String(),
  customerId: Type.String(),
  expiresAt: Timestamp,
};

export const WidgetSessionSchema = Type.Object(
  {
    ...common,
    allowedOrigins: Type.Array(Type.String()),
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { title: 'WidgetSession' },
);

export const CreatedWidgetSessionSchema = Type.Object(
  {
    ...WidgetSessionSchema.properties,
    token: Type.Union([Type.String(), Type.Null()], {
      description:
        'wst_test_… or wst_live_…: hand it to the widget (Authorization: Bearer on /v1/widget/*). Shown only in this response; null in an idempotent replay.',
    }),
  },
  { title: 'CreatedWidgetSession' },
);

/** What the browser may learn about its own session: never the token, never the origins. */
export const WidgetSessionViewSchema = Type.Object(common, { title: 'WidgetSessionView' });

export function presentWidgetSession(s: WidgetSession): Static<typeof WidgetSessionSchema> {
  return {
    id: s.id,
    object: 'widget_session',
    subscriptionId: s.subscriptionId,
    customerId: s.customerId,
    expiresAt: toIso(s.expiresAt),
    allowedOrigins: s.allowedOrigins,
    createdAt: toIso(s.createdAt),
    revokedAt: toIsoOrNull(s.revokedAt),
  };
}
