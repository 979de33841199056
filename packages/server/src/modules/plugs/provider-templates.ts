import type { FieldMappings, MappingSource } from './field-mapping.js';
import type { SignatureScheme } from '../../lib/webhook-signature.js';

/**
 * The built-in provider templates. A template decides how requests are signed, where the
 * provider puts the event type (a body field or a header), and the default event filter and
 * field mappings a new source starts from. Pure data: the operator API reads it, and so does the
 * table in docs/webhooks.md.
 */
export const providers = ['payment', 'messaging', 'email', 'code_hosting', 'chat', 'custom'] as const;
export type Provider = (typeof providers)[number];

/** Options a source may set on its signature; only code hosting and custom have any. */
export interface SignatureOptions {
  /** code_hosting: sha256 (X-Hub-Signature-256, the default) or sha1 (legacy X-Hub-Signature). custom: the HMAC. */
  algorithm?: 'sha256' | 'sha1';
  /** custom only. */
  header?: string;
  encoding?: 'hex' | 'base64';
  prefix?: string;
}

export interface ProviderTemplate {
  provider: Provider;
  /** Who this template is modelled on, for documentation. */
  modelledOn: string;
  /** What the signing secret is for this provider, for error messages and documentation. */
  secretDescription: string;
  eventTypeFrom: MappingSource;
  eventFilter: string[];
  fieldMappings: FieldMappings;
}

export const templates: Record<Provider, ProviderTemplate> = {
  payment: {
    provider: 'payment',
    modelledOn: 'Stripe',
    secretDescription: "the endpoint's signing secret (whsec_…)",
    eventTypeFrom: '$.type',
    eventFilter: ['payment_intent.succeeded'],
    // Stripe amounts are in the currency's minor unit (cents): price the metric per minor unit.
    fieldMappings: {
      quantity: '$.data.object.amount',
      tenant_id: '$.data.object.customer',
      event_id: '$.id',
      timestamp: '$.created',
      properties: { currency: '$.data.object.currency' },
    },
  },
  messaging: {
    provider: 'messaging',
    modelledOn: 'Twilio',
    secretDescription: "the account's auth token",
    eventTypeFrom: '$.MessageStatus',
    eventFilter: ['delivered'],
    // Status callbacks carry no timestamp and no quantity: one delivered message counts one.
    fieldMappings: { quantity: 1, tenant_id: '$.AccountSid', event_id: '$.MessageSid' },
  },
  email: {
    provider: 'email',
    modelledOn: 'SendGrid (Twilio SendGrid Event Webhook)',
    secretDescription: 'the verification public key (PEM, or the base64 key the dashboard shows)',
    eventTypeFrom: '$.event',
    eventFilter: ['delivered'],
    // tenant_id is a custom argument the sender attaches to each message; SendGrid copies custom
    // arguments to the top level of every event.
    fieldMappings: {
      quantity: 1,
      tenant_id: '$.tenant_id',
      event_id: '$.sg_event_id',
      timestamp: '$.timestamp',
      properties: { message_id: '$.sg_message_id' },
    },
  },
  code_hosting: {
    provider: 'code_hosting',
    modelledOn: 'GitHub',
    secretDescription: "the webhook's secret",
    eventTypeFrom: { header: 'X-GitHub-Event' },
    eventFilter: ['push'],
    fieldMappings: {
      quantity: 1,
      tenant_id: '$.repository.owner.login',
      event_id: { header: 'X-GitHub-Delivery' },
      properties: { repository: '$.repository.full_name' },
    },
  },
  chat: {
    provider: 'chat',
    modelledOn: 'Slack (Events API)',
    secretDescription: "the app's signing secret",
    eventTypeFrom: '$.event.type',
    eventFilter: ['message'],
    fieldMappings: {
      quantity: 1,
      tenant_id: '$.team_id',
      event_id: '$.event_id',
      timestamp: '$.event_time',
      properties: { channel: '$.event.channel' },
    },
  },
  custom: {
    provider: 'custom',
    modelledOn: 'any sender that signs the body with an HMAC',
    secretDescription: 'the shared HMAC secret',
    eventTypeFrom: '$.type',
    eventFilter: [],
    fieldMappings: { quantity: '$.quantity', tenant_id: '$.tenant_id', event_id: '$.id', timestamp: '$.timestamp' },
  },
};

export const DEFAULT_CUSTOM_SIGNATURE = { header: 'X-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: '' } as const;

/** The scheme a source verifies with: fixed by its template, with the options it may set. */
export function signatureSchemeOf(provider: Provider, options: SignatureOptions): SignatureScheme {
  switch (provider) {
    case 'payment':
      return { kind: 'stripe' };
    case 'messaging':
      return { kind: 'twilio' };
    case 'email':
      return { kind: 'sendgrid' };
    case 'chat':
      return { kind: 'slack' };
    case 'code_hosting':
      return options.algorithm === 'sha1' ? { kind: 'hub_sha1' } : { kind: 'hub_sha256' };
    case 'custom':
      return {
        kind: 'custom',
        header: options.header ?? DEFAULT_CUSTOM_SIGNATURE.header,
        algorithm: options.algorithm ?? DEFAULT_CUSTOM_SIGNATURE.algorithm,
        encoding: options.encoding ?? DEFAULT_CUSTOM_SIGNATURE.encoding,
        prefix: options.prefix ?? DEFAULT_CUSTOM_SIGNATURE.prefix,
      };
  }
}

/** The signature as the API shows it: the scheme and where it is read from. */
export function describeSignature(scheme: SignatureScheme): { scheme: string; header: string; algorithm: string; encoding: string; prefix: string } {
  switch (scheme.kind) {
    case 'stripe':
      return { scheme: 'stripe', header: 'Stripe-Signature', algorithm: 'sha256', encoding: 'hex', prefix: 't=<timestamp>,v1=' };
    case 'hub_sha256':
      return { scheme: 'hub_sha256', header: 'X-Hub-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' };
    case 'hub_sha1':
      return { scheme: 'hub_sha1', header: 'X-Hub-Signature', algorithm: 'sha1', encoding: 'hex', prefix: 'sha1=' };
    case 'raw_sha256':
      return { scheme: 'raw_sha256', header: 'X-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: '' };
    case 'twilio':
      return { scheme: 'twilio', header: 'X-Twilio-Signature', algorithm: 'sha1', encoding: 'base64', prefix: '' };
    case 'sendgrid':
      return { scheme: 'sendgrid', header: 'X-Twilio-Email-Event-Webhook-Signature', algorithm: 'ecdsa-p256-sha256', encoding: 'base64', prefix: '' };
    case 'slack':
      return { scheme: 'slack', header: 'X-Slack-Signature', algorithm: 'sha256', encoding: 'hex', prefix: 'v0=' };
    case 'custom':
      return { scheme: 'custom', header: scheme.header, algorithm: scheme.algorithm, encoding: scheme.encoding, prefix: scheme.prefix };
  }
}
