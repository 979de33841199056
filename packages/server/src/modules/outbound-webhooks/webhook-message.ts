import type { Environment } from '../../lib/crypto.js';
import type { CatalogType } from './event-catalog.js';

/** One event as sent: the body is the exact bytes signed on every attempt (webhook-payload.ts). */
export interface WebhookMessage {
  id: string;
  seq: number;
  workspaceId: string;
  environment: Environment;
  eventType: CatalogType;
  orderingKey: string | null;
  body: string;
  source: 'event' | 'test';
  correlationId: string;
  createdAt: number;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** Why an attempt is made: the retry schedule (the first attempt and every retry), an operator's replay, a test event. */
export type AttemptTrigger = 'scheduled' | 'replay' | 'test';
/** What a delivery's next_attempt_trigger holds (migration 0017); null there means `scheduled`. */
export type NextAttemptTrigger = Exclude<AttemptTrigger, 'scheduled'>;

/** One message to one endpoint. */
export interface WebhookDelivery {
  messageId: string;
  endpointId: string;
  status: DeliveryStatus;
  attempts: number;
  scheduleStep: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  /** What triggers the next attempt; null: the retry schedule. */
  nextAttemptTrigger: NextAttemptTrigger | null;
  createdAt: number;
  updatedAt: number;
}

/** Why a delivery failed without an attempt: its endpoint was disabled when it was written, or since. */
export const ENDPOINT_DISABLED_ERROR = 'endpoint_disabled';
/** Why a pending delivery failed without an attempt: its endpoint was deleted. */
export const ENDPOINT_DELETED_ERROR = 'endpoint_deleted';
