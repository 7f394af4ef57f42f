import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockedTargetError, blockedAddressReason, blockedLiteral, createGuardedLookup, isPublicAddress, refusalUnder } from './ssrf.ts';

test('public unicast addresses are allowed', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.167.255.255', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e', '1:2:3:4:5:6:7:8']) {
    assert.equal(blockedAddressReason(address), null, address);
  }
});

test('every special-purpose range is refused, with its name', () => {
  const cases: Array<[string, RegExp]> = [
    ['0.0.0.0', /this network/],
    ['0.255.1.2', /this network/],
    ['10.0.0.1', /RFC 1918/],
    ['172.16.0.1', /RFC 1918/],
    ['172.31.255.255', /RFC 1918/],
    ['192.168.0.1', /RFC 1918/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /link-local/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /reserved or broadcast/],
    ['192.0.2.1', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
    ['::ffff:7f00:1', /IPv4-mapped/],
    ['::ffff:8.8.8.8', /IPv4-mapped/],
    ['0:0:0:0:0:ffff:10.0.0.1', /IPv4-mapped/],
    ['::10.0.0.1', /IPv4-compatible/],
    ['64:ff9b::7f00:1', /NAT64/],
    ['fc00::1', /unique local/],
    ['fdff:ffff::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['2002:7f00:1::', /6to4/],
  ];
  for (const [address, reason] of cases) {
    assert.match(blockedAddressReason(address) ?? 'allowed', reason, address);
    assert.equal(isPublicAddress(address), false, address);
  }
  assert.equal(blockedAddressReason('example.com'), 'not an IP address');
});

test('IPv4 embedded in IPv6 is refused in every spelling, and so is the rest of the special-purpose IPv6 space', () => {
  const cases: Array<[string, RegExp]> = [
    ['::FFFF:127.0.0.1', /IPv4-mapped/],
    ['[::ffff:169.254.169.254]', /IPv4-mapped/],
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', /IPv4-mapped/],
    ['::ffff:0a00:0001', /IPv4-mapped/],
    ['::ffff:93.184.216.34', /IPv4-mapped/],
    ['::ffff:0:127.0.0.1', /IPv4-translated/],
    ['::ffff:0:808:808', /IPv4-translated/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['::7f00:1', /IPv4-compatible/],
    ['64:ff9b::8.8.8.8', /NAT64/],
    ['64:ff9b:1::a00:1', /NAT64/],
    ['2002:c0a8:1::1', /6to4/],
    ['2001:0:4136:e378::1', /Teredo/],
    ['100::1', /discard-only/],
    ['fec0::1', /site-local/],
    ['FE80::1%25eth0', /link-local/],
    ['192.0.0.8', /IETF protocol assignments/],
    ['192.88.99.1', /6to4 relay anycast/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['198.19.255.255', /benchmarking/],
  ];
  for (const [address, reason] of cases) {
    assert.match(blockedAddressReason(address) ?? 'allowed', reason, address);
  }
  for (const address of ['2001:4860:4860::8888', '2003::1', '64:ff9c::1', '::1:0:0:0:1', '198.20.0.1', '192.0.1.1']) {
    assert.equal(blockedAddressReason(address), null, `${address} is public`);
  }
});

test('URL hosts: numeric IPv4 spellings are normalised by the URL parser, then refused', () => {
  for (const spelling of ['2130706433', '0177.0.0.1', '0x7f000001', '0x7f.1', '127.1', '017700000001', '0', '[::ffff:127.0.0.1]', '[::1]']) {
    const { hostname } = new URL(`http://${spelling}/`);
    assert.ok(blockedLiteral(hostname) !== null, `${spelling} → ${hostname}`);
  }
  assert.equal(blockedLiteral('example.com'), null, 'names are checked at connect time, not here');
  assert.equal(blockedLiteral('8.8.8.8'), null);
});

test('a name is judged by every address it resolves to: only private → refused before any socket; a mix → only the public ones are used', async () => {
  const records: Record<string, Array<{ address: string; family: number }>> = {
    'internal.example': [
      { address: '10.1.2.3', family: 4 },
      { address: 'fd00::1', family: 6 },
    ],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'mixed.example': [
      { address: '192.168.0.10', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ],
  };
  const lookup = createGuardedLookup((hostname, _options, callback) => callback(null, records[hostname] ?? []));
  const resolveOne = (hostname: string) =>
    new Promise<{ error: Error | null; address: string }>((resolve) => {
      lookup(hostname, { family: 0 }, (error, address) => resolve({ error, address: String(address) }));
    });
  const resolveAll = (hostname: string) =>
    new Promise<{ error: Error | null; addresses: unknown }>((resolve) => {
      lookup(hostname, { all: true }, (error, addresses) => resolve({ error, addresses }));
    });

  const internal = await resolveOne('internal.example');
  assert.ok(internal.error instanceof BlockedTargetError);
  assert.match(internal.error.message, /internal\.example resolves only to addresses webhooks may not reach: 10\.1\.2\.3 \(private \(RFC 1918\)\), fd00::1 \(unique local\)/);
  const metadata = await resolveAll('metadata.example');
  assert.ok(metadata.error instanceof BlockedTargetError);
  assert.match(metadata.error.message, /169\.254\.169\.254 \(link-local/);
  assert.deepEqual(metadata.addresses, []);

  assert.deepEqual(await resolveOne('mixed.example'), { error: null, address: '93.184.216.34' });
  const mixedAll = await resolveAll('mixed.example');
  assert.equal(mixedAll.error, null);
  assert.deepEqual(mixedAll.addresses, [{ address: '93.184.216.34', family: 4 }]);
});

test('refusalUnder: the private policy allows loopback and private ranges, never link-local or cloud metadata (any spelling); the public policy is blockedAddressReason', () => {
  for (const address of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '172.16.0.1', '::1', 'fc00::1', '8.8.8.8']) {
    assert.equal(refusalUnder('private', address), null, address);
  }
  for (const address of ['169.254.169.254', '169.254.0.1', '100.100.100.200', 'fe80::1', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:0:169.254.169.254', '::169.254.169.254', '64:ff9b::169.254.169.254']) {
    assert.match(refusalUnder('private', address) ?? 'allowed', /link-local|metadata/, address);
    assert.notEqual(refusalUnder('public', address), null, address);
  }
  for (const address of ['127.0.0.1', '10.0.0.1', '::1', '8.8.8.8', 'example.com']) {
    assert.equal(refusalUnder('public', address), blockedAddressReason(address), address);
  }
  assert.equal(refusalUnder('private', 'example.com'), 'not an IP address');
});
