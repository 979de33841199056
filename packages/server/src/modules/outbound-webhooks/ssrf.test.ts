import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, type AddressClass } from './ssrf.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { checkDestination, type HostResolver } from './resolve-destination.js';

describe('outbound-webhooks.classifyAddress: refused ranges', () => {
  const cases: Array<[rule: string, address: string, expected: AddressClass]> = [
    ['0.0.0.0/8 is "this network"', '0.1.2.3', 'unspecified'],
    ['10/8 is private', '10.1.2.3', 'private'],
    ['100.64/10 is carrier-grade shared space', '100.64.0.1', 'shared'],
    ['100.100.100.200 is Alibaba metadata', '100.100.100.200', 'metadata'],
    ['127/8 is loopback', '127.0.0.1', 'loopback'],
    ['127/8 is loopback to its end', '127.255.255.254', 'loopback'],
    ['169.254.169.254 is the cloud metadata service', '169.254.169.254', 'metadata'],
    ['169.254/16 is link-local', '169.254.1.1', 'link_local'],
    ['172.16/12 is private (first)', '172.16.0.1', 'private'],
    ['172.16/12 is private (last)', '172.31.255.255', 'private'],
    ['192.0.0/24 is IETF protocol space', '192.0.0.8', 'reserved'],
    ['192.0.2/24 is documentation', '192.0.2.1', 'documentation'],
    ['192.168/16 is private', '192.168.1.1', 'private'],
    ['198.18/15 is benchmarking', '198.19.0.1', 'reserved'],
    ['198.51.100/24 is documentation', '198.51.100.7', 'documentation'],
    ['203.0.113/24 is documentation', '203.0.113.9', 'documentation'],
    ['224/4 is multicast', '239.1.1.1', 'multicast'],
    ['240/4 is reserved', '240.0.0.1', 'reserved'],
    ['255.255.255.255 is broadcast', '255.255.255.255', 'reserved'],
    [':: is unspecified', '::', 'unspecified'],
    ['::1 is loopback', '::1', 'loopback'],
    ['::1 in full form is loopback', '0:0:0:0:0:0:0:1', 'loopback'],
    ['fd00:ec2::254 is AWS metadata over IPv6', 'fd00:ec2::254', 'metadata'],
    ['fc00::/7 is unique local', 'fd12:3456::1', 'private'],
    ['fc00::/7 includes fc00::', 'fc00::1', 'private'],
    ['fe80::/10 is link-local', 'fe80::1', 'link_local'],
    ['fe80::/10 with a zone is link-local', 'fe80::1%eth0', 'link_local'],
    ['ff00::/8 is multicast', 'ff02::1', 'multicast'],
    ['2001:db8::/32 is documentation', '2001:db8::1', 'documentation'],
    ['64:ff9b::/96 (NAT64) is refused whole', '64:ff9b::808:808', 'translated'],
    ['64:ff9b:1::/48 (local NAT64) is refused whole', '64:ff9b:1::1', 'translated'],
    ['2002::/16 (6to4) is refused whole', '2002:c000:204::1', 'translated'],
    ['::/96 (IPv4-compatible) is reserved', '::7f00:1', 'reserved'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped loopback, as new URL() writes it', '::ffff:7f00:1', 'loopback'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254', 'metadata'],
    ['IPv4-mapped private', '::ffff:a01:203', 'private'],
    ['text that is no address', 'not-an-ip', 'reserved'],
  ];
  for (const [rule, address, expected] of cases) {
    it(`${rule}: ${address}`, () => assert.deepEqual(classifyAddress(address), { allowed: false, class: expected }));
  }
});

describe('outbound-webhooks.classifyAddress: public addresses pass', () => {
  for (const address of [
    '93.184.216.34',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2001:db9::1',
  ]) {
    it(address, () => assert.deepEqual(classifyAddress(address), { allowed: true }));
  }
});

describe('outbound-webhooks.endpoint URL literals: the WHATWG parser gives the classifier one canonical form', () => {
  const cases: Array<[rule: string, url: string, address: string, expected: AddressClass]> = [
    ['decimal IPv4', 'https://2130706433/hook', '127.0.0.1', 'loopback'],
    ['octal IPv4', 'https://0177.0.0.1/hook', '127.0.0.1', 'loopback'],
    ['hex IPv4 with a short form', 'https://0x7f.1/hook', '127.0.0.1', 'loopback'],
    ['short dotted IPv4', 'https://127.1/hook', '127.0.0.1', 'loopback'],
    ['hex metadata', 'https://0xa9fea9fe/latest', '169.254.169.254', 'metadata'],
    ['IPv6 loopback', 'https://[::1]/hook', '::1', 'loopback'],
    ['IPv6 link-local', 'https://[fe80::1]/hook', 'fe80::1', 'link_local'],
    ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1', 'loopback'],
    ['AWS metadata over IPv6', 'https://[fd00:ec2::254]/latest', 'fd00:ec2::254', 'metadata'],
  ];
  for (const [rule, url, address, expected] of cases) {
    it(`${rule}: ${url}`, () => {
      const checked = checkEndpointUrl(url, { allowHttp: false });
      assert.ok(checked.ok);
      assert.deepEqual(checked.host, { kind: 'ip', address });
      assert.deepEqual(classifyAddress(address), { allowed: false, class: expected });
    });
  }
});

describe('outbound-webhooks.checkDestination: names are resolved, and every address must pass', () => {
  const resolver =
    (table: Record<string, string[]>): HostResolver =>
    async (name) => {
      const found = table[name];
      if (!found) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return found;
    };
  const dns = resolver({
    'evil.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'v6.test': ['::1'],
    'hooks.example': ['93.184.216.34', '2606:2800:220:1::1'],
  });
  const cases: Array<[rule: string, name: string, expected: Awaited<ReturnType<typeof checkDestination>>]> = [
    ['a name resolving to 127.0.0.1 is refused', 'evil.test', { allowed: false, address: '127.0.0.1', class: 'loopback' }],
    ['one private address among public ones is enough to refuse', 'mixed.test', { allowed: false, address: '10.0.0.5', class: 'private' }],
    ['a name resolving to ::1 is refused', 'v6.test', { allowed: false, address: '::1', class: 'loopback' }],
    ['localhost is loopback whatever the resolver says (RFC 6761)', 'localhost', { allowed: false, address: 'localhost', class: 'loopback' }],
    ['so is a name under .localhost', 'app.localhost', { allowed: false, address: 'app.localhost', class: 'loopback' }],
    ['public addresses pass', 'hooks.example', { allowed: true }],
    ['a name that does not resolve yet passes (checked again at delivery)', 'nowhere.test', { allowed: true }],
  ];
  for (const [rule, name, expected] of cases) {
    it(rule, async () => assert.deepEqual(await checkDestination({ kind: 'name', name }, dns), expected));
  }
  it('a resolver slower than the limit is not waited for', async () => {
    const never: HostResolver = () => new Promise(() => undefined);
    assert.deepEqual(await checkDestination({ kind: 'name', name: 'slow.test' }, never, 5), { allowed: true });
  });
});
