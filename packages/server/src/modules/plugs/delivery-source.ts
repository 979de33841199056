import type { Deps } from '../../deps.js';
import { SecretBoxError } from '../../lib/secret-box.js';
import { cacheSpec } from '../../lib/caches.js';
import { compileFieldMappings, compileSource, type CompiledMappings, type CompiledSource } from './field-mapping.js';
import { signatureSchemeOf } from './provider-templates.js';
import { signatureHeaderNames, type SignatureScheme } from '../../lib/webhook-signature.js';
import { secretAssociatedData, type WebhookSource } from './webhook-source.js';
import { findWebhookSourceForDelivery } from './webhook-source.repository.js';
import { findMetric } from '../metrics/metric.repository.js';
import { dimensionReaderOf, type DimensionReader } from '../usage/rating-dimension.js';
import { findWorkspaceRateLimit } from '../tenancy/workspace.repository.js';

export const PLUGS_CHANNEL = 'plugs.invalidate';
export const DELIVERY_SOURCE_TTL_MS = 5_000;

/** A source as the receiver needs it: secret opened, mappings compiled, metric named. */
export interface DeliverySource {
  source: WebhookSource;
  metricName: string;
  /** Where the metric's rating dimensions are in an event's metadata. */
  dimensions: DimensionReader;
  scheme: SignatureScheme;
  /** Null when none is set or it cannot be opened: verification then fails closed. */
  secret: string | null;
  mappings: CompiledMappings;
  eventType: CompiledSource;
  signatureHeaders: string[];
  /** The workspace's own requests-per-minute limit; null: the default. */
  rateLimitPerMinute: number | null;
}

export const deliverySourceCache = cacheSpec<DeliverySource>({
  name: 'webhook sources',
  ttlMs: () => DELIVERY_SOURCE_TTL_MS,
  maxEntries: 10_000,
  channels: [PLUGS_CHANNEL],
});

/**
 * Cached for a few seconds (every change clears it on every node through the bus), so a burst
 * of webhooks decrypts and compiles once. Unknown ids are not cached: random ids cannot push
 * real sources out.
 */
export async function loadDeliverySource(deps: Deps, id: string): Promise<DeliverySource | null> {
  const cache = deps.caches.of(deliverySourceCache);
  const cached = cache.get(id);
  if (cached) return cached;
  const generation = cache.generation;
  const source = await findWebhookSourceForDelivery(deps.db, id);
  if (!source) return null;
  const metric = await findMetric(deps.db, source, source.metricId);
  if (metric === null) return null;
  const rateLimitPerMinute = await findWorkspaceRateLimit(deps.db, source.workspaceId);
  let secret: string | null = null;
  if (source.secret) {
    try {
      secret = deps.secrets.open(source.secret, secretAssociatedData(source.id));
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      deps.log.error({ sourceId: source.id, err: err.message }, 'webhook signing secret cannot be opened; every request to this source gets 401');
    }
  }
  const scheme = signatureSchemeOf(source.provider, source.signatureOptions);
  const loaded: DeliverySource = {
    source,
    metricName: metric.name,
    dimensions: dimensionReaderOf(metric.dimensionPaths),
    scheme,
    secret,
    mappings: compileFieldMappings(source.fieldMappings),
    eventType: compileSource(source.eventTypeFrom),
    signatureHeaders: signatureHeaderNames(scheme),
    rateLimitPerMinute,
  };
  cache.set(id, loaded, generation);
  return loaded;
}

/** After a committed source change: drop cached sources here and, through the bus, everywhere. */
export function webhookSourcesChanged(deps: Deps): Promise<void> {
  return deps.caches.clearEverywhere(PLUGS_CHANNEL, 'webhook source');
}

/** The development bypass: honoured in the development profile only. */
export function verificationBypassed(deps: Pick<Deps, 'config'>): boolean {
  return deps.config.webhookVerificationDisabled && deps.config.profile === 'development';
}
