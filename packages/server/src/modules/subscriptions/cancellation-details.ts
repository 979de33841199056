import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../../http/schemas.js';
import { toIso } from '../../lib/clock.js';

/**
 * How a cancellation was asked for, kept on the subscription from the request until the
 * subscription is gone or the cancellation withdrawn. The spec stamps the widget's cancel with
 * `cancel_channel = EMBED` (part 7) and names the field so; it is kept under that name, inside an
 * otherwise camelCase object.
 */

/** The six canonical cancel reasons; each has its retention offer (modules/retention-offers). */
export const cancelReasons = ['TOO_EXPENSIVE', 'MISSING_FEATURES', 'SWITCHED_SERVICE', 'UNUSED', 'TECHNICAL_ISSUES', 'OTHER'] as const;
export type CancelReason = (typeof cancelReasons)[number];

/**
 * Who asked: the operator API (POST …/cancel, PATCH cancelAtPeriodEnd), the buyer in the embedded
 * widget, or dunning (the workspace's final rule after the last payment retry failed).
 */
export const cancelChannels = ['API', 'EMBED', 'DUNNING'] as const;
export type CancelChannel = (typeof cancelChannels)[number];

/** The longest comment a cancellation keeps. */
export const CANCEL_COMMENT_MAX = 500;

export interface CancellationDetails {
  reason: CancelReason | null;
  cancel_channel: CancelChannel;
  comment: string | null;
  /** When it was asked for, in the subscription's time (its test clock's, if it has one). */
  requestedAt: number;
}

export const CancelCommentSchema = Type.String({
  maxLength: CANCEL_COMMENT_MAX,
  description: "Free text, e.g. the buyer's own words; kept on the subscription (cancellationDetails.comment) and in the audit event.",
});

export const CancellationDetailsSchema = Type.Object({
  reason: Type.Union([...cancelReasons.map((r) => Type.Literal(r)), Type.Null()], {
    description: 'One of the six cancel reasons, or null when none was given.',
  }),
  cancel_channel: Type.Union(
    cancelChannels.map((c) => Type.Literal(c)),
    {
      description:
        'EMBED: the buyer, in the upgrade/cancel widget. API: the operator API (POST …/cancel, or PATCH cancelAtPeriodEnd). DUNNING: the workspace’s final rule (pastDueFinalAction cancel_subscription) after the last payment retry failed.',
    },
  ),
  comment: Type.Union([Type.String({ maxLength: CANCEL_COMMENT_MAX }), Type.Null()]),
  requestedAt: Timestamp,
});

export function presentCancellationDetails(d: CancellationDetails | null): Static<typeof CancellationDetailsSchema> | null {
  return d === null ? null : { reason: d.reason, cancel_channel: d.cancel_channel, comment: d.comment, requestedAt: toIso(d.requestedAt) };
}
