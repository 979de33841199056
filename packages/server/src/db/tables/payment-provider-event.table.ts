export interface PaymentProviderEventTable {
  connectionId: string;
  /** The provider's own event id (Stripe: evt_…). */
  providerEventId: string;
  workspaceId: string;
  environment: string;
  type: string;
  /** The event's JSON as received. */
  payload: string;
  receivedAt: number;
  /** When billing applied it; null until then. */
  appliedAt: number | null;
}
