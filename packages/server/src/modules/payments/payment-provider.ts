/**
 * The payment provider port (issue 39): what billing asks of whoever moves the money. Billing
 * calls this, never a provider's client. Adapters: Stripe (stripe-provider.ts, through the official
 * `stripe` client) and manual (payments an operator records; it never charges).
 *
 * Amounts cross the port as decimal strings in the currency, as invoices carry them ("150.00" USD,
 * "500" JPY, "5.120" KWD): the adapter converts to its provider's units (Stripe: stripe-amounts.ts,
 * whose smallest unit is not always ISO's: ISK, UGX and MGA differ). Every call that can move money
 * carries an idempotency key the caller derives from its own rows (the invoice and the attempt
 * number), so a retry after a timeout or a crash cannot charge twice: the provider answers the
 * first call's result again.
 */

/** A customer at the provider (Stripe: `cus_…` in Stripe's namespace, not ours). */
export interface ProviderCustomer {
  id: string;
}

/** The card (or other method) a customer pays with by default: only what may be shown. */
export interface PaymentMethodSummary {
  id: string;
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
}

/** A hosted page where the buyer adds or replaces a payment method (Stripe Checkout, setup mode). */
export interface SetupSession {
  id: string;
  url: string;
}

/**
 * Where a charge stands, in the provider's words mapped to ours:
 * - succeeded: the money is captured;
 * - failed: refused (declined, insufficient funds…), with the provider's code;
 * - requires_action: the buyer must act (3-D Secure) at `actionUrl`;
 * - processing: asked, no outcome yet (the webhook or the reconciliation will tell).
 */
export type ChargeStatus = 'succeeded' | 'failed' | 'requires_action' | 'processing';

export interface ChargeResult {
  /**
   * The provider's reference (Stripe: the PaymentIntent's `pi_…`); null when nothing was asked of
   * the provider (the customer has no payment method: status failed, `no_payment_method`).
   */
  providerReference: string | null;
  status: ChargeStatus;
  /** Decimal string in `currency` (ISO 4217, upper case). */
  amount: string;
  currency: string;
  /**
   * On failed: the provider's decline or error code (`card_declined`, `insufficient_funds`…); on
   * requires_action, why when the provider says (`authentication_required`).
   */
  failureCode: string | null;
  failureMessage: string | null;
  /** On requires_action: where the buyer completes the payment. */
  actionUrl: string | null;
}

export interface ChargeRequest {
  customer: ProviderCustomer;
  /** Decimal string in `currency`; an amount the provider cannot carry exactly is refused, never rounded. */
  amount: string;
  /** ISO 4217, upper case; the adapter sends what the provider expects (Stripe: lower case). */
  currency: string;
  /**
   * Derived from the invoice and the attempt number: the same attempt never charges twice. The
   * provider replays its first answer only to the same parameters (Stripe answers a different
   * amount, method or metadata under the same key with an idempotency error), so a retry of an
   * attempt sends exactly what the attempt sent.
   */
  idempotencyKey: string;
  /**
   * The payment method to charge (from defaultPaymentMethod). Store it with the attempt and send it
   * again on a retry: without it the adapter charges the customer's default at the time of the
   * call, which a card update in between changes (and Stripe then refuses the replay).
   */
  paymentMethodId?: string | null;
  /**
   * Where the provider sends the buyer back after authenticating (3-D Secure). With it, a charge
   * that needs the buyer gives requires_action with an `actionUrl`; without it, `actionUrl` is null
   * and the buyer must be brought to a page of ours.
   */
  returnUrl?: string | null;
  /** Ours, echoed in the provider's objects and webhooks so an outcome finds its attempt. */
  metadata: { invoiceId: string; attemptId: string; workspaceId: string; environment: string };
  description: string;
}

/**
 * A hosted page where the buyer pays an amount once (Stripe Checkout, payment mode): how a
 * send_invoice invoice is paid. Its outcome comes as a charge's does, by its reference.
 */
export interface PaymentPageRequest {
  customer: ProviderCustomer;
  /** Decimal string in `currency`. */
  amount: string;
  currency: string;
  /** Derived from the invoice and the attempt: a retry gives the same page, never a second one. */
  idempotencyKey: string;
  /** Where the buyer lands after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
  metadata: ChargeRequest['metadata'];
  description: string;
}

export interface RefundRequest {
  providerReference: string;
  /** Decimal string in `currency`, the charge's currency; never more than is left unrefunded (the provider refuses). */
  amount: string;
  currency: string;
  idempotencyKey: string;
  metadata: { invoiceId: string; creditNoteId: string; workspaceId: string; environment: string };
}

export interface RefundResult {
  providerReference: string;
  status: 'succeeded' | 'pending' | 'failed';
  /** Decimal string in the refund's currency. */
  amount: string;
}

/** A provider's answer that is not an outcome: unreachable, timed out, refused our credentials. */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    /** unavailable: may be retried with the same idempotency key; rejected: our request is wrong (a bug, or bad credentials). */
    readonly kind: 'unavailable' | 'rejected',
    readonly providerCode: string | null = null,
  ) {
    super(message);
  }
}

export interface PaymentProvider {
  readonly name: 'stripe' | 'manual';
  createCustomer(input: { email: string | null; name: string; idempotencyKey: string; metadata: Record<string, string> }): Promise<ProviderCustomer>;
  createSetupSession(input: { customer: ProviderCustomer; currency: string; successUrl: string; cancelUrl: string }): Promise<SetupSession>;
  /**
   * After a setup session completes (Stripe: checkout.session.completed), makes the method it saved
   * the customer's default and returns both; null while the session is not complete. Stripe's
   * Checkout in setup mode attaches the method to the customer but never makes it the default, so
   * without this a new card would not be charged. Safe to repeat.
   */
  applySetupSession(sessionId: string): Promise<{ customer: ProviderCustomer; paymentMethod: PaymentMethodSummary } | null>;
  defaultPaymentMethod(customer: ProviderCustomer): Promise<PaymentMethodSummary | null>;
  charge(input: ChargeRequest): Promise<ChargeResult>;
  /**
   * Opens a hosted payment page: requires_action with the page at `actionUrl` and the page's
   * reference (Stripe: the Checkout Session's `cs_…`) while the buyer has not paid. retrieveCharge
   * and cancelCharge take that reference too: paid, they give the charge (its own reference,
   * `pi_…`); expired or withdrawn, failed with `expired` or `canceled`.
   */
  createPaymentPage(input: PaymentPageRequest): Promise<ChargeResult>;
  /**
   * The charge as it stands now, by its reference (reconciliation). When the answer to charge() was
   * lost there is no reference yet: call charge() again with the same request and key, which gives
   * the provider's first answer brought up to date.
   */
  retrieveCharge(providerReference: string): Promise<ChargeResult>;
  refund(input: RefundRequest): Promise<RefundResult>;
  /**
   * Withdraws a charge that has not succeeded (one waiting for the buyer's 3-D Secure) so it can
   * never succeed after a newer attempt does; gives the charge as it then stands (succeeded when
   * the buyer got there first: that is the payment, and no new attempt is needed).
   */
  cancelCharge(providerReference: string): Promise<ChargeResult>;
}
