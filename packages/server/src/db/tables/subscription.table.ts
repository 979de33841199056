export interface SubscriptionTable {
  id: string;
  workspaceId: string;
  environment: string;
  customerId: string;
  productId: string;
  /** The offering subscribed to; null for a subscription priced by unitPrices. */
  offeringId: string | null;
  /** End (exclusive) of the trial; null without one. */
  trialEndsAt: number | null;
  status: string;
  billingPeriod: string;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  /** Bumped on every change; later changes (upgrade, cancel) compare it to detect races. */
  version: number;
  startedAt: number;
  cancelledAt: number | null;
  metadata: string;
  currency: string;
  /** JSON array of {metricName, limit, enforcement}. */
  usageLimits: string;
  /** JSON {amount, enforcement} or null: no budget. */
  spendBudget: string | null;
  /** JSON object metricName -> decimal price per unit. */
  unitPrices: string;
  /** Where period boundaries are counted from: the start, or the trial's end (pricing/periods.ts). */
  billingAnchor: number;
  /** anniversary or calendar. */
  periodAlignment: string;
  /** 1: the subscription ends at currentPeriodEnd (the renewal job cancels it then). */
  cancelAtPeriodEnd: number;
  /** JSON ScheduledChange applied by the renewal job at the period end; null: none. */
  scheduledChange: string | null;
  /** The test clock whose time this subscription lives in (test environment only). */
  testClockId: string | null;
  /** The price version (pv_) its current period is rated with; null without an offering. */
  priceVersionId: string | null;
  /** 1: renewals keep priceVersionId instead of taking the offering's current prices. */
  priceVersionPinned: number;
  /** JSON SubscriptionDiscount (an accepted retention offer's) or null. */
  discount: string | null;
  /** JSON CancellationDetails {reason, cancel_channel, comment, requestedAt} or null: no cancellation asked for. */
  cancellationDetails: string | null;
  /** PAST_DUE since (its time); null when not past due (0031). */
  pastDueSince: number | null;
  /** Past due: the entitlement check refuses from this instant (pastDueSince plus the grace period). */
  pastDueAccessUntil: number | null;
  /** charge_automatically | send_invoice; null: the workspace's billing settings decide. */
  collectionMethod: string | null;
  /** JSON PendingUpdate: an IMMEDIATE change waiting for its invoice to be paid (0033); null: none. */
  pendingUpdate: string | null;
  createdAt: number;
  updatedAt: number;
}
