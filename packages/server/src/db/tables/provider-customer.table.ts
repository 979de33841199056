export interface ProviderCustomerTable {
  workspaceId: string;
  environment: string;
  provider: string;
  customerId: string;
  /** The provider's own customer id (Stripe: cus_… in Stripe's namespace). */
  providerCustomerId: string;
  /** JSON {id, brand, last4, expMonth, expYear} of the default payment method; null: none yet. */
  paymentMethod: string | null;
  updatedAt: number;
}
