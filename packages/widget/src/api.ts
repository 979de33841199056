import type { Offering, RatePlan } from '@tollgate/pricing';

/** The widget backend's answers, as far as the widget reads them (docs/subscriptions-and-billing.md, "Plan changes and cancellation"). */
export type ApplyAt = 'IMMEDIATE' | 'PERIOD_END';
export type ChangeKind = 'UPGRADE' | 'DOWNGRADE' | 'LATERAL';
export const CANCEL_REASONS = ['TOO_EXPENSIVE', 'MISSING_FEATURES', 'SWITCHED_SERVICE', 'UNUSED', 'TECHNICAL_ISSUES', 'OTHER'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export interface WidgetSubscription {
  id: string;
  status: string;
  version: number;
  currency: string;
  offering: { id: string; name: string; priceText: string } | null;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  scheduledChange: { offeringId: string; offeringName: string; effectiveAt: string } | null;
}

export interface WidgetConfig {
  currentOfferingId: string | null;
  offerings: Offering[];
  ratePlans: RatePlan[];
}

export interface Candidate {
  offeringId: string;
  name: string;
  kind: ChangeKind;
}

export type RetentionOffer =
  | { type: 'DISCOUNT_20_PERCENT'; description: string }
  | { type: 'DOWNGRADE_PROMPT'; offeringId: string; offeringName: string; description: string }
  | { type: 'SUPPORT_HANDOFF'; url: string; description: string }
  | { type: 'NONE' };

export interface Preview {
  subscriptionVersion: number;
  action: ChangeKind | 'CANCEL';
  applyAt: ApplyAt;
  currency: string;
  effectiveAt: string;
  credit: string | null;
  debit: string | null;
  netChargeToday: string | null;
  usageToDate: string;
  invoiceTotal: string | null;
  nextRenewalAt: string | null;
  nextRenewalAmount: string | null;
  summary: string;
}

export interface ChangeResult {
  action: ChangeKind | 'CANCEL';
  applyAt: ApplyAt;
  status: string;
  offeringId: string | null;
  offeringName: string | null;
  invoiceId: string | null;
  /** As printed on the invoice (INV-2026-000123); null while it is a draft; absent from servers before issue 38. */
  invoiceNumber?: string | null;
  creditNoteId: string | null;
  /** As printed on the credit note (CN-2026-000007); absent from servers before issue 38. */
  creditNoteNumber?: string | null;
  creditNoteAmount: string | null;
  scheduledAt: string | null;
  effectiveAt: string | null;
  /**
   * An IMMEDIATE change that pays first (the seller collects through Stripe): the payment's outcome;
   * the change takes effect only once it succeeded. null or absent: nothing was charged at once.
   */
  payment?: {
    status: 'pending' | 'processing' | 'requires_action' | 'succeeded' | 'failed';
    failureCode: string | null;
    failureMessage: string | null;
    actionUrl: string | null;
  } | null;
  subscription: WidgetSubscription;
}

/** What went wrong, in the terms the widget words errors by (messages.ts). */
export type FailureKind = 'invalid' | 'expired' | 'changed' | 'pending' | 'network' | 'other';

export class WidgetApiError extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The kind of a failed answer: the status and the error code of the API's envelope. A 401 is an
 * expired session only when the server says so (SESSION_EXPIRED: a session it knew); a malformed
 * or unknown token is not valid, and the server does not say whether it ever existed.
 */
export function failureKind(status: number, code: string): FailureKind {
  if (status === 401) return code === 'SESSION_EXPIRED' ? 'expired' : 'invalid';
  if (status === 409 && code === 'SUBSCRIPTION_CHANGED') return 'changed';
  if (status === 409 && code === 'CHANGE_PENDING') return 'pending';
  if (status === 0 || status === 429 || status >= 500) return 'network';
  return 'other';
}

/** The widget session's calls to /v1/widget/* with its bearer token. */
export class WidgetApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/v1/widget${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new WidgetApiError('network', 0, 'NETWORK', String(err));
    }
    const json = (await res.json().catch(() => null)) as { errors?: Array<{ code?: string; message?: string }> } | null;
    if (!res.ok) {
      // The API's error envelope: {success: false, errors: [{code, message, field?}]}.
      const first = json?.errors?.[0];
      const code = first?.code ?? `HTTP_${res.status}`;
      throw new WidgetApiError(failureKind(res.status, code), res.status, code, first?.message ?? res.statusText);
    }
    return json as T;
  }

  subscription = () => this.call<WidgetSubscription>('GET', '/subscription');
  config = () => this.call<WidgetConfig>('GET', '/config');
  candidates = async () => (await this.call<{ data: Candidate[] }>('GET', '/change-candidates')).data;
  preview = (body: { offeringId?: string; cancel?: true; reason?: CancelReason; applyAt: ApplyAt }) => this.call<Preview>('POST', '/preview-change', body);
  upgrade = (body: { offeringId: string; applyAt: ApplyAt; expectedVersion: number; returnUrl?: string }, idempotencyKey: string) =>
    this.call<ChangeResult>('POST', '/upgrade', body, { 'idempotency-key': idempotencyKey });
  cancel = (body: { reason: CancelReason; applyAt: ApplyAt; expectedVersion: number }, idempotencyKey: string) =>
    this.call<ChangeResult>('POST', '/cancel', body, { 'idempotency-key': idempotencyKey });
  retentionOffer = async (reason: CancelReason) =>
    (await this.call<{ offer: RetentionOffer; acceptanceId: string | null }>('GET', `/retention-offers?reason=${reason}`)).offer;
  acceptOffer = (reason: CancelReason, offerType: string) => this.call<{ id: string }>('POST', '/retention-offer', { reason, offerType });
}
