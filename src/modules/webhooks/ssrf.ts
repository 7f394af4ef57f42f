import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';

/**
 * The SSRF guard of webhook delivery (contract §12): unless the operator allows private targets,
 * a webhook may only connect to a public unicast address.
 *
 * The check runs on the address that is actually connected to: `guardedLookup` is the `lookup` of
 * every outgoing request, so a name that resolved to a public address when the endpoint was created
 * and to 127.0.0.1 now (DNS rebinding) is refused at connect time. IP literals never reach `lookup`,
 * so `blockedLiteral` checks them first. Numeric spellings (`http://2130706433/`,
 * `http://0177.0.0.1/`, `http://0x7f.1/`) are normalised to dotted quads by the WHATWG URL parser
 * before either check sees them.
 */

type Range = readonly [prefix: bigint, bits: number, label: string];

function ipv4ToBigInt(address: string): bigint | null {
  const parts = address.split('.');
  if (parts.length !== 4) {
    return null;
  }
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) {
      return null;
    }
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

/** Parses an IPv6 address (with `::`, an embedded dotted IPv4 tail, or a `%zone`) to a 128-bit number. */
function ipv6ToBigInt(input: string): bigint | null {
  let address = input.replace(/^\[|\]$/g, '');
  const zone = address.indexOf('%');
  if (zone !== -1) {
    address = address.slice(0, zone);
  }
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  if (address.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4ToBigInt(address.slice(lastColon + 1));
    if (v4 === null) {
      return null;
    }
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    const head = address.slice(0, lastColon + 1);
    // "::ffff:" → "::ffff" (drop the separator), but "::" stays the compression it is.
    address = head.endsWith('::') ? head : head.slice(0, -1);
  }
  const halves = address.split('::');
  if (halves.length > 2) {
    return null;
  }
  const parse = (part: string | undefined): number[] | null => {
    if (part === undefined || part === '') {
      return [];
    }
    const groups = part.split(':');
    const out: number[] = [];
    for (const group of groups) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) {
        return null;
      }
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if (head === null || rest === null) {
    return null;
  }
  const explicit = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) {
      return null;
    }
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  } else {
    if (explicit !== 8) {
      return null;
    }
    groups = [...head, ...tail];
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

const v4 = (cidr: string, label: string): Range => {
  const [address = '', bits = '32'] = cidr.split('/');
  return [ipv4ToBigInt(address) ?? 0n, Number(bits), label];
};
const v6 = (cidr: string, label: string): Range => {
  const [address = '', bits = '128'] = cidr.split('/');
  return [ipv6ToBigInt(address) ?? 0n, Number(bits), label];
};

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

const blockedIpv6: readonly Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0/96', 'IPv4-mapped'),
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

function matchRange(value: bigint, width: number, ranges: readonly Range[]): string | null {
  for (const [prefix, bits, label] of ranges) {
    const shift = BigInt(width - bits);
    if (value >> shift === prefix >> shift) {
      return label;
    }
  }
  return null;
}

/**
 * Why an address is not a public unicast target, or null when it is. IPv4-mapped and other
 * IPv4-embedding IPv6 forms are refused outright (a public server is never reached that way).
 */
export function blockedAddressReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare.split('%')[0] ?? '');
  if (family === 4) {
    const value = ipv4ToBigInt(bare);
    return value === null ? 'not an IP address' : matchRange(value, 32, blockedIpv4);
  }
  if (family === 6) {
    const value = ipv6ToBigInt(bare);
    return value === null ? 'not an IP address' : matchRange(value, 128, blockedIpv6);
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

/** For a URL hostname that is an IP literal: why it is refused, or null (also null for names). */
export function blockedLiteral(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(bare) === 0) {
    return null;
  }
  const reason = blockedAddressReason(bare);
  return reason === null ? null : `${bare} is ${reason}`;
}

/** How a name becomes addresses: `dns.lookup` in production, a fake resolver in tests. */
export type AddressResolver = (hostname: string, options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A `lookup` for http(s).request / net.connect that resolves with `resolve` and then keeps only public
 * addresses; when none is left the connection fails with BlockedTargetError before any socket opens.
 */
export const createGuardedLookup = (resolve: AddressResolver): LookupFunction => (hostname, options, callback) => {
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
    const allowed = addresses.filter((entry) => isPublicAddress(entry.address));
    const [first] = allowed;
    if (!first) {
      const shown = addresses.map((entry) => `${entry.address} (${blockedAddressReason(entry.address) ?? 'public'})`).join(', ');
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

/** The production guard: names resolved by the system resolver. */
export const guardedLookup: LookupFunction = createGuardedLookup(dns.lookup);
