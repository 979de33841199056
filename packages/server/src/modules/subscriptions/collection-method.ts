import { Type } from '@sinclair/typebox';

/**
 * Stripe's two ways: charge_automatically (the customer's payment method is charged when the
 * invoice is finalized) or send_invoice (the buyer pays by the due date, through the invoice's
 * hosted link or outside Tollgate).
 */
export const collectionMethods = ['charge_automatically', 'send_invoice'] as const;
export type CollectionMethod = (typeof collectionMethods)[number];
export const CollectionMethodSchema = Type.Union(
  collectionMethods.map((m) => Type.Literal(m)),
  {
    description:
      'charge_automatically: the payment method on file is charged when the invoice is finalized (nothing is charged while no payment provider is connected); send_invoice: the buyer pays by the due date.',
  },
);
