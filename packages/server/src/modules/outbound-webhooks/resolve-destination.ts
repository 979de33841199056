import { lookup } from 'node:dns/promises';
import { classifyAddress, type AddressClass } from './ssrf.js';
import type { EndpointHost } from './endpoint-url.js';

/**
 * The SSRF guard at create and update (and the sender's own check before each connection, which
 * uses the same resolver and rules): a literal host is classified; a name is resolved and every
 * address it gives must be allowed. A name that does not resolve (yet), or not within the time
 * limit, is accepted here: the check at delivery time refuses it later if it then points inward.
 */
export type HostResolver = (name: string) => Promise<string[]>;

/** Every address the system resolver gives for a name (A and AAAA, as a connection would use). */
export const systemResolver: HostResolver = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

export const RESOLVE_TIMEOUT_MS = 2_000;

export type DestinationVerdict = { allowed: true } | { allowed: false; address: string; class: Exclude<AddressClass, 'public'> };

export function checkAddresses(addresses: readonly string[]): DestinationVerdict {
  for (const address of addresses) {
    const v = classifyAddress(address);
    if (!v.allowed) return { allowed: false, address, class: v.class };
  }
  return { allowed: true };
}

export async function checkDestination(host: EndpointHost, resolver: HostResolver, timeoutMs = RESOLVE_TIMEOUT_MS): Promise<DestinationVerdict> {
  if (host.kind === 'ip') return checkAddresses([host.address]);
  // RFC 6761: localhost names are loopback whatever a resolver says.
  if (host.name === 'localhost' || host.name.endsWith('.localhost')) return { allowed: false, address: host.name, class: 'loopback' };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const addresses = await Promise.race([resolver(host.name).catch(() => null), timedOut]);
    return addresses === null ? { allowed: true } : checkAddresses(addresses);
  } finally {
    clearTimeout(timer);
  }
}
