import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import type { OperationContext } from '../lib/operation-context.js';
import type { FieldMappings } from '../modules/plugs/field-mapping.js';
import type { Provider } from '../modules/plugs/provider-templates.js';
import { createWebhookSource } from '../modules/plugs/save-webhook-source.js';
import { webhookPath } from '../modules/plugs/webhook-source.js';

/** Keys of `webhookSources` in `tollgate demo --json`. */
export type DemoSourceKey = 'payment' | 'messaging' | 'email' | 'codeHosting' | 'chat' | 'custom';

export interface DemoWebhookSource {
  id: string;
  provider: Provider;
  metricName: string;
  /** Path of the webhook URL on this server. */
  url: string;
  /** The signing secret; for the email provider, the PEM private key whose public half the source holds. */
  secret: string;
  eventFilter: string[];
  fieldMappings: FieldMappings;
}

const DEMO_SOURCES: Array<[DemoSourceKey, Provider, string, string]> = [
  ['payment', 'payment', 'Payments (Stripe-style)', 'payment_volume'],
  ['messaging', 'messaging', 'SMS delivered (Twilio-style)', 'api_calls'],
  ['email', 'email', 'Emails delivered (SendGrid-style)', 'api_calls'],
  ['codeHosting', 'code_hosting', 'Pushes (GitHub-style)', 'agent_runs'],
  ['chat', 'chat', 'Chat messages (Slack-style)', 'api_calls'],
  ['custom', 'custom', 'Custom HMAC sender', 'tokens'],
];

/** One source per built-in provider, each with a fresh secret that is returned here only. */
export async function createDemoSources(deps: Deps, ctx: OperationContext): Promise<Record<DemoSourceKey, DemoWebhookSource>> {
  const out = {} as Record<DemoSourceKey, DemoWebhookSource>;
  for (const [key, provider, displayName, metricName] of DEMO_SOURCES) {
    let secret: string;
    let signingSecret: string;
    if (provider === 'email') {
      const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      secret = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      signingSecret = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    } else {
      secret = provider === 'payment' ? `whsec_${randomBytes(24).toString('base64url')}` : randomBytes(20).toString('hex');
      signingSecret = secret;
    }
    const { source } = await createWebhookSource(deps, ctx, { provider, displayName, metricName, signingSecret });
    out[key] = {
      id: source.id,
      provider,
      metricName,
      url: webhookPath(source.id),
      secret,
      eventFilter: source.eventFilter,
      fieldMappings: source.fieldMappings,
    };
  }
  return out;
}
