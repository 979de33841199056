import { isIPv4, isIPv6 } from 'node:net';

/**
 * The SSRF guard's address rules (OWASP API7): an endpoint may not reach loopback, private,
 * link-local, cloud metadata, or other special-purpose addresses, unless
 * OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES. Pure: classifies one address given as text, in the
 * canonical forms that `new URL()` and `dns.lookup` give (dotted IPv4, IPv6 with or without an
 * embedded IPv4 or a zone). IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is classified as its IPv4, and
 * NAT64 and 6to4 prefixes, which can carry any IPv4 address, are refused whole.
 */
export type AddressClass =
  'public' | 'unspecified' | 'loopback' | 'private' | 'link_local' | 'metadata' | 'shared' | 'reserved' | 'documentation' | 'multicast' | 'translated';

export type AddressVerdict = { allowed: true } | { allowed: false; class: Exclude<AddressClass, 'public'> };

type Rule = readonly [prefix: bigint, bits: number, cls: Exclude<AddressClass, 'public'>];

const v4 = (a: string, bits: number, cls: Exclude<AddressClass, 'public'>): Rule => [BigInt(ipv4ToNumber(a)!), bits, cls];

// Most specific first: the first match decides the class.
const IPV4_RULES: readonly Rule[] = [
  v4('169.254.169.254', 32, 'metadata'), // AWS, GCP, Azure, OpenStack
  v4('100.100.100.200', 32, 'metadata'), // Alibaba Cloud
  v4('0.0.0.0', 8, 'unspecified'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'shared'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link_local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'reserved'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'), // includes 255.255.255.255
];

const v6 = (a: string, bits: number, cls: Exclude<AddressClass, 'public'>): Rule => [ipv6ToBigInt(a)!, bits, cls];

const IPV6_RULES: readonly Rule[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('fd00:ec2::254', 128, 'metadata'), // AWS over IPv6
  v6('::', 96, 'reserved'), // IPv4-compatible (deprecated)
  v6('64:ff9b::', 96, 'translated'), // NAT64
  v6('64:ff9b:1::', 48, 'translated'), // local-use NAT64
  v6('100::', 64, 'reserved'), // discard-only
  v6('2001:db8::', 32, 'documentation'),
  v6('2002::', 16, 'translated'), // 6to4
  v6('fc00::', 7, 'private'), // unique local
  v6('fe80::', 10, 'link_local'),
  v6('ff00::', 8, 'multicast'),
];

/** Dotted-quad IPv4 to its 32-bit value; null if it is not exactly four decimal octets. */
export function ipv4ToNumber(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

/** IPv6 text (with `::`, an embedded IPv4 or a zone) to its 128-bit value; null if malformed. */
export function ipv6ToBigInt(text: string): bigint | null {
  let s = text.replace(/^\[|\]$/g, '');
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  // An embedded IPv4 (`::ffff:1.2.3.4`) becomes its two groups (`::ffff:102:304`).
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    const n = ipv4ToNumber(s.slice(lastColon + 1));
    if (n === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const group = (g: string) => (g === '' ? [] : g.split(':').map((h) => parseInt(h, 16)));
  const left = group(head);
  const right = rest === null ? [] : group(rest);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (rest === null && fill !== 0)) return null;
  const words = [...left, ...new Array<number>(fill).fill(0), ...right];
  return words.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
}

function match(value: bigint, width: number, rules: readonly Rule[]): AddressVerdict {
  for (const [prefix, bits, cls] of rules) {
    const shift = BigInt(width - bits);
    if (value >> shift === prefix >> shift) return { allowed: false, class: cls };
  }
  return { allowed: true };
}

/** Classifies one IP address; anything that is not an address at all is refused as reserved. */
export function classifyAddress(address: string): AddressVerdict {
  if (isIPv4(address)) return match(BigInt(ipv4ToNumber(address)!), 32, IPV4_RULES);
  const n = ipv6ToBigInt(address);
  if (n === null) return { allowed: false, class: 'reserved' };
  // IPv4-mapped (::ffff:0:0/96): the IPv4 address it maps decides.
  if (n >> 32n === 0xffffn) return match(n & 0xffffffffn, 32, IPV4_RULES);
  return match(n, 128, IPV6_RULES);
}
