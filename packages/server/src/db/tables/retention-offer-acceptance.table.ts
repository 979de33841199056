export interface RetentionOfferAcceptanceTable {
  id: string;
  workspaceId: string;
  environment: string;
  subscriptionId: string;
  /** One of the six cancel reasons; unique per (tenant, subscription). */
  reason: string;
  /** DISCOUNT_20_PERCENT, DOWNGRADE_PROMPT or SUPPORT_HANDOFF: what was accepted. */
  offerType: string;
  /** JSON: the offer as it was shown. */
  offer: string;
  /** API (an operator's key) or EMBED (a widget session). */
  channel: string;
  /** The subscription's time (its test clock's, else real time). */
  acceptedAt: number;
  createdAt: number;
}
