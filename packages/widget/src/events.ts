/**
 * The widget's 8 browser events: CustomEvents that bubble and cross shadow roots (composed), so a
 * listener on the element or on document hears them. Payloads carry ids, kinds, amounts and reason
 * codes, never a name or an e-mail. ADVISORY ONLY: analytics and UI, never entitlements; the
 * seller's backend learns of a change from Tollgate's signed webhooks (subscription.upgraded,
 * subscription.cancelled, …).
 */
export const WIDGET_EVENTS = {
  /** The flow was opened (modal) or shown (inline). */
  opened: 'svc.upgrade-cancel.opened',
  /** The buyer picked an offering (upgrade) or a reason (cancel). */
  selected: 'svc.upgrade-cancel.selected',
  /** A preview was shown (again on every apply-at change). */
  previewed: 'svc.upgrade-cancel.previewed',
  /** The buyer confirmed; the request is on its way. */
  confirmed: 'svc.upgrade-cancel.confirmed',
  /** The change or cancellation is done (the spec's name). */
  completed: 'svc.upgrade-cancel.completed',
  /** A retention offer was accepted instead of cancelling: once per accepted offer (the spec's name). */
  deflectionOfferAccepted: 'svc.upgrade-cancel.deflection_offer_accepted',
  /** The buyer closed the flow before it completed. */
  dismissed: 'svc.upgrade-cancel.dismissed',
  /** A step failed; the widget shows the error inline. */
  failed: 'svc.upgrade-cancel.failed',
} as const;

export type WidgetEventName = (typeof WIDGET_EVENTS)[keyof typeof WIDGET_EVENTS];

export function emit(target: EventTarget, name: WidgetEventName, detail: Record<string, unknown>): void {
  target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
}
