// Which addresses the node proxy may connect to (upstream proxyutil.IsProxyableIP and
// IsProxyableHostname). A Node's addresses are whatever its writer put there, so without these checks
// the proxy is a way into the API server's own machine: loopback services (etcd's client port),
// link-local ones (cloud metadata at 169.254.169.254) and the API server itself, proxying to itself
// over and over. Host names are resolved here, every address they resolve to is checked, and the
// proxy then connects to the checked address: a second lookup (DNS rebinding) cannot change it.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ipBytes } from '../certificate.js';

/** Why an address is refused; undefined: a unicast address elsewhere, proxyable. */
export type AddressKind = 'loopback' | 'unspecified' | 'link-local' | 'not-unicast';

/** The kinds the operator's opt-in (`serve --node-proxy-allow-loopback`) permits: both reach this machine's loopback. */
export const LOOPBACK_KINDS: ReadonlySet<AddressKind> = new Set(['loopback', 'unspecified']);

const DESCRIPTION: Record<AddressKind, string> = {
  'loopback': 'a loopback address',
  'unspecified': 'an unspecified address (this machine)',
  'link-local': 'a link-local address',
  'not-unicast': 'not a unicast address',
};

export function describeKind(kind: AddressKind): string {
  return DESCRIPTION[kind];
}

function ipv4Kind(b: Uint8Array): AddressKind | undefined {
  if (b[0] === 127) return 'loopback';
  // 0.0.0.0/8 is "this network"; Linux connects 0.0.0.0 to the local host.
  if (b[0] === 0) return 'unspecified';
  if (b[0] === 169 && b[1] === 254) return 'link-local';
  // Multicast 224/4, reserved 240/4 and the broadcast address.
  if (b[0]! >= 224) return 'not-unicast';
  return undefined;
}

/**
 * The kind of an IP address in any textual form Node accepts (IPv4, IPv6 with or without a zone,
 * IPv4-mapped `::ffff:a.b.c.d` and its hex spelling); an IPv4-compatible `::a.b.c.d` counts as its
 * IPv4 address, the safe reading. Throws on a string that is not an IP address.
 */
export function addressKind(ip: string): AddressKind | undefined {
  const family = isIP(ip);
  if (family === 4) return ipv4Kind(Uint8Array.from(ip.split('.').map(Number)));
  if (family !== 6) throw new TypeError(`not an IP address: ${ip}`);
  const b = ipBytes(ip);
  const zeros = (n: number) => b.subarray(0, n).every((x) => x === 0);
  if (zeros(10) && b[10] === 0xff && b[11] === 0xff) return ipv4Kind(b.subarray(12));
  if (zeros(16)) return 'unspecified';
  if (zeros(15) && b[15] === 1) return 'loopback';
  if (zeros(12)) return ipv4Kind(b.subarray(12));
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xff) return 'not-unicast';
  return undefined;
}

/** The 16-byte form of an address (IPv4 as IPv4-mapped), for comparing spellings. */
function canonical(ip: string): string {
  return (isIP(ip) === 4 ? ipBytes(`::ffff:${ip}`) : ipBytes(ip)).toString('hex');
}

/**
 * Whether `ip` is an address of this machine: loopback, unspecified, or one of its interfaces'.
 * The proxy's own-address check uses it with the server's port whatever address the server listens
 * on: a connection to any of them at that port may end at this server.
 */
export function isLocalAddress(ip: string): boolean {
  const kind = addressKind(ip);
  if (kind === 'loopback' || kind === 'unspecified') return true;
  const c = canonical(ip);
  return Object.values(networkInterfaces()).some((list) => (list ?? []).some((a) => canonical(a.address) === c));
}

/** Resolves a host name to every address it has (upstream's resolver.LookupIPAddr). */
export type Resolver = (host: string) => Promise<ReadonlyArray<{ address: string }>>;

export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/** The addresses to check for `host`: itself when it is an IP address (brackets and zone allowed), else what it resolves to. */
export async function resolveHost(host: string, resolver: Resolver = systemResolver): Promise<string[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return [bare];
  const found = (await resolver(bare)).map((a) => a.address);
  if (found.length === 0) throw new Error(`no addresses for host name ${JSON.stringify(bare)}`);
  return found;
}
