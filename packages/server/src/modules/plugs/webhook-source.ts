import { createPublicKey } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { Environment, MapOf, Timestamp } from '../../http/schemas.js';
import { checkFieldMappings, checkMappingSource, MAX_PATH_LENGTH, type FieldMappings, type MappingError, type MappingSource } from './field-mapping.js';
import { describeSignature, providers, signatureSchemeOf, templates, type Provider, type SignatureOptions } from './provider-templates.js';

/**
 * A webhook source (a "plug"): where one provider's signed webhooks arrive and how they become
 * usage of one metric. Its id is the only routing identifier in the webhook URL; the workspace
 * and environment come from the stored source, never from the request.
 */
export interface WebhookSource {
  id: string;
  workspaceId: string;
  environment: Env;
  provider: Provider;
  displayName: string;
  metricId: string;
  signatureOptions: SignatureOptions;
  eventTypeFrom: MappingSource;
  eventFilter: string[];
  fieldMappings: FieldMappings;
  dedupWindowHours: number;
  /** The signing secret sealed with AES-256-GCM (lib/secret-box.ts); null when none is set. */
  secret: { ciphertext: string; keyId: string; hint: string } | null;
  createdAt: number;
  updatedAt: number;
}

export const DEFAULT_DEDUP_WINDOW_HOURS = 72;
export const MAX_DEDUP_WINDOW_HOURS = 720;
export const webhookPath = (sourceId: string) => `/v1/ingest/webhook/${sourceId}`;
/** What the sealed secret is bound to: a ciphertext moved to another source fails to open. */
export const secretAssociatedData = (sourceId: string) => `webhook_source:${sourceId}`;

const Source = Type.Union([Type.String({ maxLength: MAX_PATH_LENGTH }), Type.Object({ header: Type.String({ maxLength: 100 }) }), Type.Number()], {
  description: `An RFC 9535 JSONPath over the body ("$.data.object.amount", at most ${MAX_PATH_LENGTH} characters), a header ({"header": "X-GitHub-Delivery"}), or for quantity only a constant number.`,
});
const FieldMappingsSchema = Type.Object(
  {
    quantity: Source,
    tenant_id: Source,
    event_id: Source,
    timestamp: Type.Optional(Source),
    properties: Type.Optional(
      MapOf(Source, { maxKeys: 20, maxKeyLength: 40, description: 'Up to 20 metadata keys of at most 40 characters, each with its source.' }),
    ),
  },
  {
    description:
      "The spec's field mappings. quantity (number), tenant_id (the customer's externalId or cus_ id) and event_id (the provider's event id, deduplicated for the source's window) are required; timestamp (ISO 8601 or Unix seconds or milliseconds) defaults to receipt time; properties become the usage event's metadata.",
  },
);
const SignatureOptionsSchema = Type.Object(
  {
    algorithm: Type.Optional(Type.Union([Type.Literal('sha256'), Type.Literal('sha1')])),
    header: Type.Optional(Type.String({ maxLength: 100 })),
    encoding: Type.Optional(Type.Union([Type.Literal('hex'), Type.Literal('base64')])),
    prefix: Type.Optional(Type.String({ maxLength: 100 })),
  },
  {
    additionalProperties: false,
    description:
      'code_hosting: algorithm sha256 (X-Hub-Signature-256, default) or sha1 (legacy X-Hub-Signature). custom: header (default X-Signature-256), algorithm (sha256 or sha1), encoding (hex or base64), prefix (e.g. "sha256="). Other providers take none.',
  },
);

export const WebhookSourceSchema = Type.Object(
  {
    id: Type.String({ description: 'wsrc_…' }),
    object: Type.Literal('webhook_source'),
    environment: Environment,
    provider: Type.Union(providers.map((p) => Type.Literal(p))),
    displayName: Type.String({ description: 'Label in the ingestion log and audit trail (their sourceDisplayName, as it was when each was written).' }),
    metricId: Type.String({ description: 'The billable metric (mtr_…) that receives the extracted quantity.' }),
    metricName: Type.String(),
    url: Type.String({ description: 'Path of the webhook URL to give the provider: POST {api_url}/v1/ingest/webhook/{id}.' }),
    signature: Type.Object(
      { scheme: Type.String(), header: Type.String(), algorithm: Type.String(), encoding: Type.String(), prefix: Type.String() },
      { description: 'How requests are verified (fixed by the provider template, options for code_hosting and custom).' },
    ),
    hasSigningSecret: Type.Boolean({ description: 'False: every request is refused with 401 until a secret is set.' }),
    signingSecretHint: Type.Union([Type.String(), Type.Null()], {
      description: 'The last four characters, to tell secrets apart. The secret itself is never returned.',
    }),
    eventTypeFrom: Source,
    eventFilter: Type.Array(Type.String(), { description: 'Event types processed; others get 200 and are discarded. Empty: every type.' }),
    fieldMappings: FieldMappingsSchema,
    dedupWindowHours: Type.Integer({ description: 'How long a provider event id is remembered; a replay within it gets 200 and is dropped.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookSource' },
);
export type WebhookSourceView = Static<typeof WebhookSourceSchema>;

const EventTypes = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 });
const EventTypeList = Type.String({ maxLength: 100 * 201 });
/** Checked by checkFieldMappings, which names each problem; the bounds only keep a body small. */
const MappingsInput = (description: string) => MapOf(Type.Unknown(), { maxKeys: 10, maxKeyLength: 40, description });

const mutable = {
  displayName: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Label in the ingestion log and audit trail: each log entry and webhook.rejected event keeps the name of its time (sourceDisplayName).',
  }),
  metricId: Type.String({ maxLength: 100, description: 'mtr_… id of the billable metric; or give metricName.' }),
  metricName: Type.String({ maxLength: 100, description: 'The metric by name, instead of metricId.' }),
  signingSecret: Type.String({
    maxLength: 10_000,
    description: "The provider's signing secret (for email: the verification public key). Stored sealed with AES-256-GCM and never returned.",
  }),
  signature: SignatureOptionsSchema,
  eventTypeFrom: Source,
  eventFilter: Type.Union([EventTypes, EventTypeList], {
    description: 'Event types to process (at most 100, each at most 200 characters): an array, or a comma-separated list.',
  }),
  event_filter: Type.Union([EventTypes, EventTypeList], { description: "The spec's name for eventFilter; give one or the other." }),
  fieldMappings: MappingsInput("Merged over the template's defaults (or, on update, over the current mappings)."),
  field_mappings: MappingsInput("The spec's name for fieldMappings; give one or the other."),
  dedupWindowHours: Type.Integer({ minimum: 1, maximum: MAX_DEDUP_WINDOW_HOURS, description: 'Default 72.' }),
};
const opt = <T extends Record<string, import('@sinclair/typebox').TSchema>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof T]: import('@sinclair/typebox').TOptional<T[K]> };

export const CreateWebhookSourceBody = Type.Object(
  { provider: Type.Union(providers.map((p) => Type.Literal(p))), ...opt(mutable), displayName: mutable.displayName },
  { additionalProperties: false },
);
export type CreateWebhookSourceInput = Static<typeof CreateWebhookSourceBody>;
export const UpdateWebhookSourceBody = Type.Object(opt(mutable), { additionalProperties: false, minProperties: 1 });
export type UpdateWebhookSourceInput = Static<typeof UpdateWebhookSourceBody>;

export function presentWebhookSource(s: WebhookSource, metricName: string): WebhookSourceView {
  return {
    id: s.id,
    object: 'webhook_source',
    environment: s.environment,
    provider: s.provider,
    displayName: s.displayName,
    metricId: s.metricId,
    metricName,
    url: webhookPath(s.id),
    signature: describeSignature(signatureSchemeOf(s.provider, s.signatureOptions)),
    hasSigningSecret: s.secret !== null,
    signingSecretHint: s.secret?.hint ?? null,
    eventTypeFrom: s.eventTypeFrom,
    eventFilter: s.eventFilter,
    fieldMappings: s.fieldMappings,
    dedupWindowHours: s.dedupWindowHours,
    createdAt: toIso(s.createdAt),
    updatedAt: toIso(s.updatedAt),
  };
}

/** The settings of a source after checking, before the metric is resolved and the secret sealed. */
export interface SourceSettings {
  displayName: string;
  signatureOptions: SignatureOptions;
  eventTypeFrom: MappingSource;
  eventFilter: string[];
  fieldMappings: FieldMappings;
  dedupWindowHours: number;
  /** undefined: unchanged. */
  signingSecret: string | undefined;
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
const PRINTABLE = /^[\x20-\x7e]{0,50}$/;

function checkSignatureOptions(provider: Provider, raw: SignatureOptions, errors: MappingError[]): SignatureOptions {
  const given = Object.keys(raw);
  if (provider === 'custom') {
    if (raw.header !== undefined && !HEADER_NAME.test(raw.header))
      errors.push({ field: 'body.signature.header', message: 'must be an HTTP header name (1-100 token characters), such as X-Signature-256.' });
    if (raw.prefix !== undefined && !PRINTABLE.test(raw.prefix))
      errors.push({ field: 'body.signature.prefix', message: 'must be at most 50 printable ASCII characters, such as "sha256=".' });
    return raw;
  }
  if (provider === 'code_hosting') {
    const extra = given.filter((k) => k !== 'algorithm');
    for (const k of extra)
      errors.push({
        field: `body.signature.${k}`,
        message: `is fixed for the code_hosting provider (X-Hub-Signature-256 or X-Hub-Signature); only algorithm may be set.`,
      });
    return raw.algorithm ? { algorithm: raw.algorithm } : {};
  }
  for (const k of given) {
    errors.push({
      field: `body.signature.${k}`,
      message: `is fixed for the ${provider} provider (${describeSignature(signatureSchemeOf(provider, {})).header}); signature options apply to code_hosting and custom only.`,
    });
  }
  return {};
}

function checkEventFilter(raw: string[] | string, field: string, errors: MappingError[]): string[] {
  const list =
    typeof raw === 'string'
      ? raw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : raw;
  if (list.length > 100) errors.push({ field, message: `holds at most 100 event types (got ${list.length}).` });
  list.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim() === '' || t.length > 200)
      errors.push({ field: `${field}.${i}`, message: 'must be a non-empty event type of at most 200 characters.' });
  });
  return [...new Set(list.map((t) => t.trim()))];
}

function checkSecret(provider: Provider, secret: string, errors: MappingError[]): void {
  if (secret.length === 0) {
    errors.push({
      field: 'body.signingSecret',
      message: 'must not be empty; omit it to leave the source without a secret (it then refuses every request with 401).',
    });
  } else if (secret.length > 10_000) {
    errors.push({ field: 'body.signingSecret', message: 'must be at most 10,000 characters.' });
  } else if (provider === 'email') {
    // Catch a pasted private key or a truncated key now, not as 401s later.
    const pem = secret.includes('-----BEGIN') ? secret : `-----BEGIN PUBLIC KEY-----\n${secret.trim()}\n-----END PUBLIC KEY-----\n`;
    try {
      // createPublicKey would derive the public half of a pasted private key: refuse it instead.
      if (secret.includes('PRIVATE KEY')) throw new Error('a private key');
      const key = createPublicKey(pem);
      if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not P-256');
    } catch {
      errors.push({
        field: 'body.signingSecret',
        message: "must be the email provider's ECDSA P-256 verification public key: PEM, or the base64 key its dashboard shows.",
      });
    }
  }
}

type SettingsInput = Partial<Omit<CreateWebhookSourceInput, 'provider'>>;

/**
 * Pure: checks a create or update body against the provider's rules and merges field mappings
 * over the base (the template's on create, the current ones on update). Every problem names its
 * field.
 */
export function checkSourceSettings(
  provider: Provider,
  input: SettingsInput,
  base: Omit<SourceSettings, 'signingSecret'>,
): { ok: true; value: SourceSettings } | { ok: false; errors: MappingError[] } {
  const errors: MappingError[] = [];
  for (const [camel, snake] of [
    ['eventFilter', 'event_filter'],
    ['fieldMappings', 'field_mappings'],
  ] as const) {
    if (input[camel] !== undefined && input[snake] !== undefined)
      errors.push({ field: `body.${snake}`, message: `is the spec's name for ${camel}: give one or the other.` });
  }
  const signatureOptions = input.signature ? checkSignatureOptions(provider, input.signature, errors) : base.signatureOptions;
  const filterRaw = input.eventFilter ?? input.event_filter;
  const eventFilter =
    filterRaw === undefined
      ? base.eventFilter
      : checkEventFilter(filterRaw, input.eventFilter !== undefined ? 'body.eventFilter' : 'body.event_filter', errors);
  let eventTypeFrom = base.eventTypeFrom;
  if (input.eventTypeFrom !== undefined) {
    const r = checkMappingSource(input.eventTypeFrom, 'body.eventTypeFrom', false);
    if (r.ok) eventTypeFrom = r.value;
    else errors.push(...r.errors);
  }
  let fieldMappings = base.fieldMappings;
  const mappingsRaw = input.fieldMappings ?? input.field_mappings;
  if (mappingsRaw !== undefined) {
    const at = input.fieldMappings !== undefined ? 'body.fieldMappings' : 'body.field_mappings';
    // A null timestamp removes the mapping (receipt time is then used).
    const merged: Record<string, unknown> = { ...base.fieldMappings, ...mappingsRaw };
    if (merged.timestamp === null) delete merged.timestamp;
    const r = checkFieldMappings(merged, at);
    if (r.ok) fieldMappings = r.value;
    else errors.push(...r.errors);
  }
  if (input.signingSecret !== undefined) checkSecret(provider, input.signingSecret, errors);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      displayName: input.displayName ?? base.displayName,
      signatureOptions,
      eventTypeFrom,
      eventFilter,
      fieldMappings,
      dedupWindowHours: input.dedupWindowHours ?? base.dedupWindowHours,
      signingSecret: input.signingSecret,
    },
  };
}

/** What a new source of this provider starts from. */
export function templateSettings(provider: Provider, displayName: string): Omit<SourceSettings, 'signingSecret'> {
  const t = templates[provider];
  return {
    displayName,
    signatureOptions: {},
    eventTypeFrom: t.eventTypeFrom,
    eventFilter: [...t.eventFilter],
    fieldMappings: t.fieldMappings,
    dedupWindowHours: DEFAULT_DEDUP_WINDOW_HOURS,
  };
}

/** The secret's hint: its last four characters (for a PEM key, of the key material). */
export function secretHint(secret: string): string {
  const material = secret.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  return material.slice(-4);
}
