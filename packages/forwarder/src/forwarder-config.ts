import { DEFAULT_MAPPING, type MappingOptions } from './map-access-log.js';
import { ForwarderError } from './types.js';

export interface ForwarderConfig {
  url: string;
  apiKey: string;
  mapping: MappingOptions;
}

/**
 * The Lambda's configuration from its environment:
 * - TOLLGATE_URL (required): Tollgate's base URL, e.g. https://tollgate.example.com
 * - TOLLGATE_API_KEY (required): a workspace key with the ingest scope (sk_live_… or sk_test_…)
 * - TOLLGATE_CONSUMER_FIELD: the access-log field holding the consumer (default apiKeyId)
 * - TOLLGATE_METRIC_NAME: the metric each request counts as (default api_calls)
 */
export function readForwarderConfig(env: Record<string, string | undefined>): ForwarderConfig {
  const url = env.TOLLGATE_URL?.trim();
  const apiKey = env.TOLLGATE_API_KEY?.trim();
  if (!url) throw new ForwarderError('INVALID_CONFIG', 'TOLLGATE_URL is not set: the base URL of Tollgate, e.g. https://tollgate.example.com');
  try {
    new URL(url);
  } catch {
    throw new ForwarderError('INVALID_CONFIG', `TOLLGATE_URL is not a URL: ${JSON.stringify(url)}`);
  }
  if (!apiKey) throw new ForwarderError('INVALID_CONFIG', 'TOLLGATE_API_KEY is not set: a workspace key with the ingest scope');
  return {
    url,
    apiKey,
    mapping: {
      consumerField: env.TOLLGATE_CONSUMER_FIELD?.trim() || DEFAULT_MAPPING.consumerField,
      metricName: env.TOLLGATE_METRIC_NAME?.trim() || DEFAULT_MAPPING.metricName,
    },
  };
}
