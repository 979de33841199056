/**
 * @tollgate/widget: importing it defines <tollgate-upgrade-cancel> (docs/subscriptions-and-billing.md,
 * "The upgrade/cancel widget"). The self-contained script build (dist/tollgate-widget.min.js, served by the server at
 * /widget/v1/) is this module with Lit and @tollgate/pricing bundled in.
 */
export { TollgateUpgradeCancel } from './tollgate-upgrade-cancel.js';
export { WIDGET_EVENTS, type WidgetEventName } from './events.js';
export { messages, type Messages } from './messages.js';
export type { ApplyAt, CancelReason, ChangeKind } from './api.js';
