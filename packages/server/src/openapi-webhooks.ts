/**
 * The OpenAPI 3.1 `webhooks` section: one `post` per outbound event type (modules/outbound-webhooks
 * event catalog), with the Standard Webhooks headers and the payload's schema. A stub until the
 * catalog's schemas are written out (issue 19, work package 4); @fastify/swagger copies it as it is.
 */
export function outboundWebhookDocs(): Record<string, never> {
  return {};
}
