import type { BatchOutcome, BatchSender } from './batch-sender.js';
import { isRetryableStatus, MAX_RETRIES, retryDelayMs } from './retry-policy.js';
import { ForwarderError, type UsageEvent } from './types.js';

export interface HttpBatchSenderOptions {
  /** Tollgate's base URL (the ingest host), e.g. https://tollgate.example.com. */
  url: string;
  /** A workspace key with the ingest scope; sent as Authorization: Bearer. */
  apiKey: string;
  /** Per attempt; a timeout is retried like a network error. Default 30 s. */
  timeoutMs?: number;
  /** Injected in tests so a retry waits no real time. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  fetch?: typeof fetch;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Envelope {
  accepted?: number;
  duplicates?: number;
  errors?: Array<{ index?: number; code?: string; message?: string; field?: string }>;
}

/**
 * POST /v1/ingest/batch with the spec's retry guidance. Every attempt of a batch carries the same
 * X-Idempotency-Key, so a network error (the batch may have been stored) is retried safely too.
 */
export function createHttpBatchSender(options: HttpBatchSenderOptions): BatchSender {
  const endpoint = new URL('/v1/ingest/batch', options.url).toString();
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' };

  return {
    async sendBatch(events: readonly UsageEvent[], idempotencyKey: string): Promise<BatchOutcome> {
      const body = JSON.stringify({ events });
      for (let attempt = 0; ; attempt++) {
        let res: Response;
        try {
          res = await doFetch(endpoint, {
            method: 'POST',
            headers: { ...headers, 'x-idempotency-key': idempotencyKey },
            body,
            signal: AbortSignal.timeout(timeoutMs),
          });
        } catch (err) {
          if (attempt < MAX_RETRIES) {
            await sleep(retryDelayMs(null, now()));
            continue;
          }
          throw new ForwarderError('SEND_FAILED', `POST ${endpoint} failed after ${attempt + 1} attempts: ${(err as Error).message}`);
        }
        if (res.ok) {
          const b = (await res.json()) as Envelope;
          return { ok: true, accepted: b.accepted ?? events.length, duplicates: b.duplicates ?? 0 };
        }
        if (isRetryableStatus(res.status) && attempt < MAX_RETRIES) {
          await res.body?.cancel();
          await sleep(retryDelayMs(res.headers.get('retry-after'), now()));
          continue;
        }
        const text = await res.text();
        let envelope: Envelope | null = null;
        try {
          envelope = JSON.parse(text) as Envelope;
        } catch {
          // not JSON (a gateway's page): reported as text below
        }
        const indexed = (envelope?.errors ?? []).filter((e) => typeof e.index === 'number');
        if (res.status === 400 && indexed.length > 0) {
          return {
            ok: false,
            rejected: indexed.map((e) => ({ index: e.index as number, code: e.code ?? 'REJECTED', message: e.message ?? '', field: e.field ?? '' })),
          };
        }
        const detail = envelope?.errors?.map((e) => `${e.code}: ${e.message}`).join('; ') ?? text.slice(0, 300);
        throw new ForwarderError('SEND_FAILED', `POST ${endpoint} answered ${res.status} after ${attempt + 1} attempts: ${detail}`, res.status);
      }
    },
  };
}
