import type { Config } from '../../lib/config.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Tenant } from '../../lib/tenant.js';

/**
 * An invoice's payment page (Stripe's hosted_invoice_url): `/pay/<token>` on Tollgate, a page that
 * shows what is owed and sends the buyer to a Stripe-hosted Checkout page to pay it. A Checkout
 * Session lives 24 hours at most, an invoice for weeks, so the address is ours and stays the same
 * while the Checkout Sessions behind it come and go.
 *
 * The token names the workspace, the environment and the invoice, and carries a tag of the key ring
 * over them (SecretBox.mac), so it is never stored, cannot be guessed from an invoice id, and still
 * opens after a key rotation while the old key is configured.
 */

/** What presenting an invoice needs to give its payment page's address. */
export type InvoiceLinks = { config: Pick<Config, 'publicUrl' | 'port'>; secrets: Pick<SecretBox, 'mac' | 'verifyMac'> };

const PURPOSE = 'hosted invoice';
/** 22 base64url characters: 132 bits of the HMAC, more than a guess can reach, and the address stays short. */
const TAG_LENGTH = 22;
/** Path parameters are at most 100 characters; a token is two ids of about 30, a letter and the tag. */
export const HOSTED_TOKEN_MAX = 100;

const ENV_LETTER = { live: 'l', test: 't' } as const;

const payload = (t: Tenant, invoiceId: string) => `${t.workspaceId}.${ENV_LETTER[t.environment]}.${invoiceId}`;

/** `<workspace>.<l|t>.<invoice>.<tag>`: readable ids (none is a secret), the tag is what cannot be forged. */
export function hostedInvoiceToken(secrets: InvoiceLinks['secrets'], t: Tenant, invoiceId: string): string {
  const body = payload(t, invoiceId);
  return `${body}.${secrets.mac(PURPOSE, body, TAG_LENGTH)}`;
}

/** The tenant and invoice a token names, or null when it is malformed or its tag does not match. */
export function readHostedInvoiceToken(secrets: InvoiceLinks['secrets'], token: string): (Tenant & { invoiceId: string }) | null {
  if (token.length > HOSTED_TOKEN_MAX) return null;
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [workspaceId, letter, invoiceId, tag] = parts as [string, string, string, string];
  const environment = letter === 'l' ? 'live' : letter === 't' ? 'test' : null;
  if (!workspaceId || !invoiceId || environment === null || tag.length !== TAG_LENGTH) return null;
  if (!secrets.verifyMac(PURPOSE, `${workspaceId}.${letter}.${invoiceId}`, tag, TAG_LENGTH)) return null;
  return { workspaceId, environment, invoiceId };
}

/** Where people reach this server: PUBLIC_URL, else this machine on its port (development). */
export const publicBase = (config: InvoiceLinks['config']) => config.publicUrl ?? `http://localhost:${config.port}`;

/** The payment page's address; null for a draft (not yet owed) and a void invoice (never owed). */
export function hostedInvoiceUrl(links: InvoiceLinks, tenant: Tenant, invoice: { id: string; status: string }): string | null {
  if (invoice.status === 'draft' || invoice.status === 'void') return null;
  return `${publicBase(links.config)}/pay/${hostedInvoiceToken(links.secrets, tenant, invoice.id)}`;
}
