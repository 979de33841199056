import http from 'node:http';
import https from 'node:https';
import { isIPv6, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { classifyRequestError, type AttemptResult } from './attempt-outcome.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { checkAddresses, type HostResolver } from './resolve-destination.js';
import { classifyAddress } from './ssrf.js';

/**
 * One delivery attempt: a POST of the stored body, and what came back. No redirect is followed
 * (node:http never does; a 3xx is judged a failure by attempt-outcome.ts). One deadline covers
 * the DNS look-up, the connection, the TLS handshake, the headers and the body.
 *
 * The SSRF guard at delivery time: a literal address is classified before anything is sent; a
 * name is resolved by the socket's own `lookup`, which refuses the connection when any address
 * is special, so the address checked is the address connected to, on every new connection
 * (a keep-alive socket was checked when it opened), and a DNS change after the endpoint was
 * saved cannot bypass the guard.
 */

/** What the delivery log keeps of a response body. */
export const RESPONSE_KEEP_BYTES = 1024;
/** Past this much of a response body the connection is dropped rather than read on. */
const RESPONSE_READ_BYTES = 64 * 1024;

export const USER_AGENT = 'Tollgate-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface OutboundRequest {
  url: string;
  /** webhook-id, webhook-timestamp, webhook-signature (sign-message.ts). */
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** The SSRF guard on (OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES off). */
  guard: boolean;
  allowHttp: boolean;
  resolver: HostResolver;
  agents: { http: http.Agent; https: https.Agent };
  /** Aborts the attempt (the sender is closing); it then resolves as abandoned. */
  signal: AbortSignal;
}

export type AttemptOutcome = { abandoned: true; latencyMs: number } | { abandoned: false; result: AttemptResult; latencyMs: number };

/** Keep-alive agents, one pair per sender; connections to one host are reused across its deliveries. */
export function createAgents(): { http: http.Agent; https: https.Agent } {
  // Idle sockets are dropped before the usual 5 s keep-alive of servers, so a reused socket is rarely one the peer is closing.
  const options = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' as const };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

const notAllowed = (message: string) => Object.assign(new Error(message), { code: 'URL_NOT_ALLOWED' });

/**
 * A socket `lookup` that resolves with `resolver` and, when guarded, refuses a name any of whose
 * addresses is special (all are checked, as at create time: a mixed answer is refused whole).
 */
export function guardedLookup(resolver: HostResolver, guard: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
    if (guard && (name === 'localhost' || name.endsWith('.localhost'))) {
      callback(notAllowed(`${hostname} is a loopback name: webhook endpoints must be public (OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES is off)`), '', 4);
      return;
    }
    const answer = async () => {
      const addresses = await resolver(name);
      if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
      if (guard) {
        const v = checkAddresses(addresses);
        if (!v.allowed)
          throw notAllowed(`${hostname} resolves to ${v.address}, a ${v.class} address: refused (OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES is off)`);
      }
      const all = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
      const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
      if (wanted.length === 0) throw Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' });
      return wanted;
    };
    answer().then(
      (all) => {
        if (options.all) (callback as unknown as (err: null, all: Array<{ address: string; family: number }>) => void)(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
      (err: unknown) => {
        const code = (err as { code?: string })?.code;
        callback(Object.assign(err instanceof Error ? err : new Error(String(err)), { code: code ?? 'ENOTFOUND' }), '', 4);
      },
    );
  };
}

/** Refuses, before any connection, what the URL itself says: its form under today's settings, and a literal special address. */
function refusedUpFront(raw: string, r: Pick<OutboundRequest, 'guard' | 'allowHttp'>): string | null {
  const checked = checkEndpointUrl(raw, { allowHttp: r.allowHttp });
  if (!checked.ok) return `the URL ${checked.message}`;
  if (r.guard && checked.host.kind === 'ip') {
    const v = classifyAddress(checked.host.address);
    if (!v.allowed) return `${checked.host.address} is a ${v.class} address: refused (OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES is off)`;
  }
  return null;
}

export function sendAttempt(r: OutboundRequest): Promise<AttemptOutcome> {
  const started = performance.now();
  const latency = () => Math.max(0, Math.round(performance.now() - started));
  const refused = refusedUpFront(r.url, r);
  if (refused !== null) return Promise.resolve({ abandoned: false, result: { kind: 'error', code: 'url_not_allowed', message: refused }, latencyMs: 0 });

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let current: http.ClientRequest | null = null;
    /** `keep`: the answer was read to its end, so the connection goes back to the agent's pool. */
    const finish = (outcome: AttemptOutcome, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      r.signal.removeEventListener('abort', onAbort);
      if (!keep) current?.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () =>
        finish({ abandoned: false, result: { kind: 'error', code: 'timeout', message: `no complete answer within ${r.timeoutMs} ms` }, latencyMs: latency() }),
      r.timeoutMs,
    );
    const onAbort = () => finish({ abandoned: true, latencyMs: latency() });
    if (r.signal.aborted) return onAbort();
    r.signal.addEventListener('abort', onAbort, { once: true });

    const url = new URL(r.url);
    const send = (retried: boolean) => {
      const req = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        agent: url.protocol === 'https:' ? r.agents.https : r.agents.http,
        lookup: guardedLookup(r.resolver, r.guard),
        headers: {
          ...r.headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(r.body)),
          'user-agent': USER_AGENT,
        },
      });
      current = req;
      req.on('error', (err) => {
        // A kept-alive socket the receiver closed meanwhile fails before any answer: once more on a new one.
        if (!retried && req.reusedSocket && (err as { code?: string }).code === 'ECONNRESET' && !settled) return send(true);
        finish({ abandoned: false, result: { kind: 'error', ...classifyRequestError(err) }, latencyMs: latency() });
      });
      req.on('response', (res) => {
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let readBytes = 0;
        let truncated = false;
        const done = (keep: boolean) =>
          finish(
            {
              abandoned: false,
              result: {
                kind: 'response',
                status: res.statusCode ?? 0,
                body: Buffer.concat(kept).toString('utf8'),
                truncated,
                retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
                location: typeof res.headers.location === 'string' ? res.headers.location.slice(0, 200) : undefined,
              },
              latencyMs: latency(),
            },
            keep,
          );
        res.on('data', (chunk: Buffer) => {
          readBytes += chunk.length;
          if (keptBytes < RESPONSE_KEEP_BYTES) {
            const part = chunk.subarray(0, RESPONSE_KEEP_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
            if (part.length < chunk.length) truncated = true;
          } else truncated = true;
          // Enough read: the answer is known; the rest is not worth the connection.
          if (readBytes > RESPONSE_READ_BYTES) done(false);
        });
        res.on('end', () => done(true));
        res.on('error', (err) => finish({ abandoned: false, result: { kind: 'error', ...classifyRequestError(err) }, latencyMs: latency() }));
      });
      req.end(r.body);
    };
    send(false);
  });
}
