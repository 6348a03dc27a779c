import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/**
 * The SSRF guard of webhook delivery (decisions.md, "Subscriptions and webhooks": callback URLs on
 * loopback or private networks are refused in production mode). A callback URL is checked when
 * the subscription is saved and again at every connection, after DNS resolution, so that a name
 * re-pointed at an internal address later (DNS rebinding) is still refused: the connection goes
 * only to the address that was checked.
 */

/** The address of a callback URL is not a public one. */
export class CallbackAddressRefusedError extends Error {
  override name = 'CallbackAddressRefusedError';
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests pass their own). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

type Bytes = readonly number[];
interface Block {
  prefix: Bytes;
  bits: number;
  reason: string;
  /** Where an IPv4 address is embedded in this IPv6 block: it is judged as that IPv4 address. */
  embeddedIpv4At?: number;
}

function block(cidr: string, reason: string, parse: (text: string) => number[] | undefined, embeddedIpv4At?: number): Block {
  const [address = '', bits = ''] = cidr.split('/');
  const prefix = parse(address);
  if (!prefix) throw new Error(`not an address block: ${cidr}`);
  return { prefix, bits: Number(bits), reason, ...(embeddedIpv4At === undefined ? {} : { embeddedIpv4At }) };
}
const v4 = (cidr: string, reason: string): Block => block(cidr, reason, parseIpv4);
const v6 = (cidr: string, reason: string, embeddedIpv4At?: number): Block => block(cidr, reason, parseIpv6, embeddedIpv4At);

/** IANA IPv4 special-purpose registry entries that are not globally reachable, plus known metadata services. */
const IPV4_BLOCKS: readonly Block[] = [
  v4('0.0.0.0/8', 'this-network address'),
  v4('10.0.0.0/8', 'private address'),
  v4('100.64.0.0/10', 'shared address space (CGNAT)'),
  v4('127.0.0.0/8', 'loopback address'),
  v4('169.254.0.0/16', 'link-local address (cloud metadata service)'),
  v4('172.16.0.0/12', 'private address'),
  v4('192.0.0.0/24', 'IETF protocol assignment'),
  v4('192.0.2.0/24', 'documentation address'),
  v4('192.88.99.0/24', 'reserved address (6to4 relay)'),
  v4('192.168.0.0/16', 'private address'),
  v4('198.18.0.0/15', 'benchmarking address'),
  v4('198.51.100.0/24', 'documentation address'),
  v4('203.0.113.0/24', 'documentation address'),
  v4('224.0.0.0/4', 'multicast address'),
  v4('240.0.0.0/4', 'reserved address'),
  // Azure's wire server answers instance metadata on a public-looking address.
  v4('168.63.129.16/32', 'cloud metadata address'),
];

/** The IPv6 counterparts; the first matching block decides, so specific ones come first. */
const IPV6_BLOCKS: readonly Block[] = [
  v6('::/128', 'unspecified address'),
  v6('::1/128', 'loopback address'),
  v6('::ffff:0:0/96', 'IPv4-mapped address', 12),
  v6('::ffff:0:0:0/96', 'IPv4-translated address', 12),
  v6('::/96', 'IPv4-compatible address (deprecated)'),
  v6('64:ff9b::/96', 'NAT64 address', 12),
  v6('64:ff9b:1::/48', 'local-use NAT64 address'),
  v6('100::/64', 'discard-only address'),
  v6('2001:db8::/32', 'documentation address'),
  v6('2001::/23', 'IETF protocol assignment'),
  v6('2002::/16', '6to4 address', 2),
  v6('3fff::/20', 'documentation address'),
  v6('fc00::/7', 'unique local (private) address'),
  v6('fe80::/10', 'link-local address'),
  v6('fec0::/10', 'site-local address (deprecated)'),
  v6('ff00::/8', 'multicast address'),
];

/**
 * Why `address` (an IP literal) must not receive webhooks, or undefined for a public unicast
 * address. Anything that is not a valid IP address is refused as well.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const ipv4 = parseIpv4(address);
  if (ipv4) return matchBlock(ipv4, IPV4_BLOCKS);
  const ipv6 = parseIpv6(address);
  if (!ipv6) return 'not an IP address';
  const block = IPV6_BLOCKS.find((candidate) => inBlock(ipv6, candidate));
  if (!block) return undefined;
  if (block.embeddedIpv4At === undefined) return block.reason;
  const embedded = matchBlock(ipv6.slice(block.embeddedIpv4At, block.embeddedIpv4At + 4), IPV4_BLOCKS);
  return embedded && `${block.reason} of a ${embedded}`;
}

/**
 * Refuses a host (name or literal) that is or resolves to a forbidden address. A name with several
 * addresses is refused when any of them is forbidden: a public webhook receiver has no reason to
 * also point into a private network.
 */
export async function assertPublicHost(hostname: string, resolve: Resolve): Promise<LookupAddress[]> {
  const host = unbracket(hostname);
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (addresses.length === 0) throw new CallbackAddressRefusedError(`${host} has no address`);
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) throw new CallbackAddressRefusedError(`the callback address resolves to a ${reason}`);
  }
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the sockets of webhook delivery: resolves with `resolve`, refuses forbidden
 * addresses (unless `allowPrivate`, development and tests), and hands the checked addresses to the
 * socket, which connects to nothing else. It runs once per new connection: a pooled connection was
 * checked when it opened. (Node skips `lookup` for an IP literal host; the sender checks those
 * itself before every request.)
 */
export function guardedLookup(resolve: Resolve, options: { allowPrivate?: boolean } = {}) {
  const addressesOf = options.allowPrivate ? (hostname: string) => resolveAny(hostname, resolve) : (hostname: string) => assertPublicHost(hostname, resolve);
  return (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    addressesOf(hostname).then(
      (addresses) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? addresses.filter((entry) => entry.family === lookupOptions.family) : addresses;
        const first = wanted[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} has no IPv${lookupOptions.family} address`), { code: 'ENOTFOUND' }), []);
        if (lookupOptions.all) return callback(null, wanted);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

async function resolveAny(hostname: string, resolve: Resolve): Promise<LookupAddress[]> {
  const host = unbracket(hostname);
  return isIP(host) ? [{ address: host, family: isIP(host) }] : resolve(host);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function matchBlock(bytes: Bytes, blocks: readonly Block[]): string | undefined {
  return blocks.find((block) => inBlock(bytes, block))?.reason;
}

function inBlock(bytes: Bytes, block: Block): boolean {
  if (bytes.length !== block.prefix.length) return false;
  for (let bit = 0; bit < block.bits; bit += 8) {
    const remaining = block.bits - bit;
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((block.prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** Dotted-quad IPv4 (the only form Node and the WHATWG URL parser hand us) → 4 bytes. */
function parseIpv4(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').map(Number);
}

/** Any textual IPv6 form (`::`, embedded dotted quad, zone id) → 16 bytes. */
function parseIpv6(text: string): number[] | undefined {
  const address = unbracket(text).split('%')[0] ?? '';
  if (isIP(address) !== 6) return undefined;
  let groups = address;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const [, words = '', quad = ''] = dotted;
    const ipv4 = parseIpv4(quad);
    if (!ipv4) return undefined;
    tail.push(...ipv4);
    groups = words.endsWith('::') ? words : words.slice(0, -1);
  }
  const [head = '', rest] = groups.split('::') as [string, string | undefined];
  const words = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const headWords = words(head);
  const restWords = rest === undefined ? [] : words(rest);
  const missing = 8 - tail.length / 2 - headWords.length - restWords.length;
  if (rest === undefined && missing !== 0) return undefined;
  const all = [...headWords, ...Array<number>(Math.max(missing, 0)).fill(0), ...restWords];
  return [...all.flatMap((word) => [word >> 8, word & 0xff]), ...tail];
}
