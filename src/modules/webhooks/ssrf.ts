import dns from 'node:dns';
import net, { BlockList, type LookupFunction } from 'node:net';

/**
 * The SSRF guard of webhook delivery (docs/guides/webhooks.md): unless the operator allows private targets,
 * a webhook may only connect to a public unicast address.
 *
 * The check runs on the address that is actually connected to: `guardedLookup` is the `lookup` of
 * every outgoing request, so a name that resolved to a public address when the endpoint was created
 * and to 127.0.0.1 now (DNS rebinding) is refused at connect time. IP literals never reach `lookup`,
 * so `blockedLiteral` checks them first. Numeric spellings (`http://2130706433/`,
 * `http://0177.0.0.1/`, `http://0x7f.1/`) are normalised to dotted quads by the WHATWG URL parser
 * before either check sees them.
 */

/** A named range; node:net's BlockList does the parsing and the prefix match. */
type Range = readonly [range: BlockList, label: string];

const subnet = (family: 'ipv4' | 'ipv6', cidr: string, label: string): Range => {
  const [address = '', bits = ''] = cidr.split('/');
  const range = new BlockList();
  range.addSubnet(address, Number(bits), family);
  return [range, label];
};
const v4 = (cidr: string, label: string): Range => subnet('ipv4', cidr, label);
const v6 = (cidr: string, label: string): Range => subnet('ipv6', cidr, label);

/** Not public unicast (RFC 6890 special-purpose registries, plus multicast and reserved space). */
const blockedIpv4: readonly Range[] = [
  v4('0.0.0.0/8', '"this network" (0.0.0.0/8)'),
  v4('10.0.0.0/8', 'private (RFC 1918)'),
  v4('100.64.0.0/10', 'carrier-grade NAT (100.64.0.0/10)'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private (RFC 1918)'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private (RFC 1918)'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved or broadcast'),
];

/** In order: the first match names the reason (`::` and `::1` before the IPv4-compatible `::/96`). */
const blockedIpv6: readonly Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0/96', 'IPv4-mapped'),
  v6('::ffff:0:0:0/96', 'IPv4-translated (SIIT)'),
  v6('::/96', 'IPv4-compatible'),
  v6('64:ff9b::/96', 'NAT64'),
  v6('64:ff9b:1::/48', 'NAT64'),
  v6('100::/64', 'discard-only'),
  v6('2001::/32', 'Teredo'),
  v6('2001:db8::/32', 'documentation'),
  v6('2002::/16', '6to4'),
  v6('fc00::/7', 'unique local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];

/**
 * Refused whatever the settings, sandbox included: link-local addresses, where cloud instance
 * metadata services answer (169.254.169.254, fe80::/10), the other providers' metadata addresses,
 * and every IPv6 spelling that embeds a link-local IPv4 address.
 */
const alwaysBlocked: readonly Range[] = [
  v4('169.254.0.0/16', 'link-local (cloud metadata)'),
  v4('100.100.100.200/32', 'a cloud metadata address'),
  v6('fe80::/10', 'link-local'),
  v6('fd00:ec2::254/128', 'a cloud metadata address'),
  v6('::ffff:a9fe:0/112', 'IPv4-mapped link-local (cloud metadata)'),
  v6('::ffff:0:a9fe:0/112', 'IPv4-translated link-local (cloud metadata)'),
  v6('::a9fe:0/112', 'IPv4-compatible link-local (cloud metadata)'),
  v6('64:ff9b::a9fe:0/112', 'NAT64 link-local (cloud metadata)'),
];

/**
 * Which targets a delivery may reach: `public` only public unicast addresses (every live endpoint,
 * and sandbox ones unless the operator allows private targets); `private` also loopback and private
 * ranges (sandbox endpoints with WEBHOOK_ALLOW_PRIVATE_TARGETS=true), never the `alwaysBlocked` ones.
 */
export type TargetPolicy = 'public' | 'private';

/**
 * Answers of `refusalUnder` by policy and address (a pure function; BlockList checks cost a few
 * microseconds each, and every delivery checks its URL's address). Bounded: emptied when full.
 */
const refusals: Record<TargetPolicy, Map<string, string | null>> = { public: new Map(), private: new Map() };
const refusalCacheSize = 1_024;

/** Why `address` may not be reached under `policy`, or null when it may. */
export function refusalUnder(policy: TargetPolicy, address: string): string | null {
  const cache = refusals[policy];
  const known = cache.get(address);
  if (known !== undefined) {
    return known;
  }
  const reason = computeRefusal(policy, address);
  if (cache.size >= refusalCacheSize) {
    cache.clear();
  }
  cache.set(address, reason);
  return reason;
}

function computeRefusal(policy: TargetPolicy, address: string): string | null {
  if (policy === 'public') {
    return blockedAddressReason(address);
  }
  const bare = (address.replace(/^\[|\]$/g, '').split('%')[0] ?? '').toLowerCase();
  const family = net.isIP(bare);
  if (family === 0) {
    return 'not an IP address';
  }
  return alwaysBlocked.find(([range]) => range.check(bare, family === 4 ? 'ipv4' : 'ipv6'))?.[1] ?? null;
}

/**
 * Why an address is not a public unicast target, or null when it is. IPv4-mapped and other
 * IPv4-embedding IPv6 forms are refused outright (a public server is never reached that way).
 * Only the standard spellings count as addresses (`net.isIP`); a `%zone` does not change the range.
 */
export function blockedAddressReason(address: string): string | null {
  const bare = (address.replace(/^\[|\]$/g, '').split('%')[0] ?? '').toLowerCase();
  const family = net.isIP(bare);
  if (family === 4) {
    return blockedIpv4.find(([range]) => range.check(bare, 'ipv4'))?.[1] ?? null;
  }
  if (family === 6) {
    return blockedIpv6.find(([range]) => range.check(bare, 'ipv6'))?.[1] ?? null;
  }
  return 'not an IP address';
}

export function isPublicAddress(address: string): boolean {
  return blockedAddressReason(address) === null;
}

/** Thrown (as a connection error) when a webhook target is not allowed. */
export class BlockedTargetError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'BlockedTargetError';
  }
}

/** For a URL hostname that is an IP literal: why it is refused under `policy`, or null (also null for names). */
export function blockedLiteral(hostname: string, policy: TargetPolicy = 'public'): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(bare) === 0) {
    return null;
  }
  const reason = refusalUnder(policy, bare);
  return reason === null ? null : `${bare} is ${reason}`;
}

/** How a name becomes addresses: `dns.lookup` in production, a fake resolver in tests. */
export type AddressResolver = (hostname: string, options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A `lookup` for http(s).request / net.connect that resolves with `resolve` and then keeps only the
 * addresses `policy` allows (public ones by default); when none is left the connection fails with
 * BlockedTargetError before any socket opens.
 */
export const createGuardedLookup = (resolve: AddressResolver, policy: TargetPolicy = 'public'): LookupFunction => (hostname, options, callback) => {
  resolve(hostname, { ...options, all: true }, (error, addresses) => {
    const wantsAll = options.all === true;
    if (error) {
      if (wantsAll) {
        (callback as (error: Error | null, addresses: dns.LookupAddress[]) => void)(error, []);
      } else {
        callback(error, '', 0);
      }
      return;
    }
    const allowed = addresses.filter((entry) => refusalUnder(policy, entry.address) === null);
    const [first] = allowed;
    if (!first) {
      const shown = addresses.map((entry) => `${entry.address} (${refusalUnder(policy, entry.address) ?? 'allowed'})`).join(', ');
      const refusal = new BlockedTargetError(`${hostname} resolves only to addresses webhooks may not reach: ${shown}`);
      if (wantsAll) {
        (callback as (error: Error | null, addresses: dns.LookupAddress[]) => void)(refusal, []);
      } else {
        callback(refusal, '', 0);
      }
      return;
    }
    if (wantsAll) {
      (callback as (error: Error | null, addresses: dns.LookupAddress[]) => void)(null, allowed);
    } else {
      callback(null, first.address, first.family);
    }
  });
};

/** Host names that always mean this machine, refused before any lookup when private targets are not allowed. */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The production guards: names resolved by the system resolver, kept to what each policy allows. */
export const guardedLookups: Readonly<Record<TargetPolicy, LookupFunction>> = {
  public: createGuardedLookup(dns.lookup, 'public'),
  private: createGuardedLookup(dns.lookup, 'private'),
};
