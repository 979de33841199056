import { EventSource } from 'eventsource';

export interface Received {
  id: string;
  data: Record<string, any>;
}

/**
 * A real EventSource client (the `eventsource` package, v4) on the audit stream, sending the
 * key and X-Tenant-Id through its fetch option. It records every connection attempt with the
 * Last-Event-ID it carried, and can hold reconnections back (`hold()` / `release()`) so a test
 * decides what happens while the client is away. `base` may change (a restarted server on
 * another port): the next connection goes there.
 */
export class StreamClient {
  readonly events: Received[] = [];
  readonly attempts: Array<{ lastEventId: string | null; url: string }> = [];
  readonly errors: string[] = [];
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  private readonly es: EventSource;

  constructor(
    public base: string,
    readonly query: string,
    key: string,
    tenantId: string,
  ) {
    this.es = new EventSource(`http://tollgate.invalid/api/v1/events/stream${query}`, {
      fetch: async (input, init) => {
        const headers = { ...(init?.headers as Record<string, string>) };
        this.attempts.push({ lastEventId: headers['Last-Event-ID'] ?? null, url: String(input) });
        if (this.gate) await this.gate;
        const url = String(input).replace('http://tollgate.invalid', this.base);
        return fetch(url, { ...init, headers: { ...headers, authorization: `Bearer ${key}`, 'x-tenant-id': tenantId } });
      },
    });
    this.es.addEventListener('audit_event', (e) => this.events.push({ id: e.lastEventId, data: JSON.parse(e.data) as Record<string, any> }));
    this.es.addEventListener('stream_error', (e) => this.errors.push(e.data));
  }

  /** Connections from now on wait until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.gate = null;
    this.open?.();
  }

  get eventTypes(): string[] {
    return this.events.map((e) => e.data.eventType as string);
  }

  close(): void {
    this.release();
    this.es.close();
  }
}

/** Polls until check() holds; fails with `what` after timeoutMs. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
