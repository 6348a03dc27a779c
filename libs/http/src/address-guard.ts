import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard of the services that connect to URLs a party registered: the notifier's webhook
 * delivery (docs/decisions.md, "Subscriptions and webhooks": callback URLs on loopback or private
 * networks are refused in production mode) and auth's fetch of a system client's JWKS
 * (docs/parties.md, "System clients and scopes"). A URL is checked when it is registered and again
 * at every connection, after DNS resolution, so that a name re-pointed at an internal address later
 * (DNS rebinding) is still refused: the connection goes only to the address that was checked.
 */

/** The address of a registered URL (a webhook's callback, a client's JWKS) is not a public one. */
export class CallbackAddressRefusedError extends Error {
  override name = 'CallbackAddressRefusedError';
}

/** What the refusals call the address checked: "the callback address" unless told otherwise. */
export interface GuardOptions {
  readonly subject?: string;
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests pass their own). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

type Family = 'ipv4' | 'ipv6';

/** One address block; `reason` is why its addresses are refused, undefined for a public rest. */
interface Rule {
  cidr: string;
  reason: string | undefined;
  block: BlockList;
}

function rule(family: Family, cidr: string, reason: string | undefined): Rule {
  const [network = '', bits = ''] = cidr.split('/');
  const block = new BlockList();
  block.addSubnet(network, Number(bits), family);
  return { cidr, reason, block };
}
const v4 = (cidr: string, reason: string): Rule => rule('ipv4', cidr, reason);
const v6 = (cidr: string, reason: string | undefined): Rule => rule('ipv6', cidr, reason);

/** IANA IPv4 special-purpose registry entries that are not globally reachable, plus known metadata services. */
const IPV4_RULES: readonly Rule[] = [
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

/**
 * An IPv6 block that carries an IPv4 address, judged as that IPv4 address: every forbidden IPv4
 * block becomes the IPv6 block of the addresses that embed it (`embed` writes an IPv4 network of
 * `bits` bits as an IPv6 CIDR), and the rest of the IPv6 block is public.
 */
function embedding(cidr: string, reason: string, embed: (ipv4Network: string, bits: number) => string): Rule[] {
  const embedded = IPV4_RULES.map((ipv4) => {
    const [network = '', bits = ''] = ipv4.cidr.split('/');
    return v6(embed(network, Number(bits)), `${reason} of a ${ipv4.reason}`);
  });
  return [...embedded, v6(cidr, undefined)];
}

/** `a.b.c.d` → the two IPv6 words `xxxx:xxxx` that carry it (6to4 writes the IPv4 address so). */
function ipv4AsWords(dotted: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** The IPv6 counterparts; the first matching block decides, so specific ones come first. */
const IPV6_RULES: readonly Rule[] = [
  v6('::/128', 'unspecified address'),
  v6('::1/128', 'loopback address'),
  ...embedding('::ffff:0:0/96', 'IPv4-mapped address', (network, bits) => `::ffff:${network}/${96 + bits}`),
  ...embedding('::ffff:0:0:0/96', 'IPv4-translated address', (network, bits) => `::ffff:0:${network}/${96 + bits}`),
  v6('::/96', 'IPv4-compatible address (deprecated)'),
  ...embedding('64:ff9b::/96', 'NAT64 address', (network, bits) => `64:ff9b::${network}/${96 + bits}`),
  v6('64:ff9b:1::/48', 'local-use NAT64 address'),
  v6('100::/64', 'discard-only address'),
  v6('2001:db8::/32', 'documentation address'),
  v6('2001::/23', 'IETF protocol assignment'),
  ...embedding('2002::/16', '6to4 address', (network, bits) => `2002:${ipv4AsWords(network)}::/${16 + bits}`),
  v6('3fff::/20', 'documentation address'),
  v6('fc00::/7', 'unique local (private) address'),
  v6('fe80::/10', 'link-local address'),
  v6('fec0::/10', 'site-local address (deprecated)'),
  v6('ff00::/8', 'multicast address'),
];

/**
 * Why `address` (an IP literal) must not be connected to, or undefined for a public unicast
 * address. Anything that is not a valid IP address is refused as well.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  if (isIP(address) === 4) return firstMatch(address, 'ipv4', IPV4_RULES);
  // An IPv6 literal may come bracketed (URL host) or with a zone id (`fe80::1%eth0`).
  const ipv6 = unbracket(address).split('%')[0] ?? '';
  if (isIP(ipv6) !== 6) return 'not an IP address';
  return firstMatch(ipv6, 'ipv6', IPV6_RULES);
}

/**
 * The reason of the first rule that holds `address`. The rules are checked per family: a
 * BlockList would also match an IPv4-mapped IPv6 address against IPv4 rules (and the reverse),
 * which the IPv4-mapped rules above already do, with a reason that says so.
 */
function firstMatch(address: string, family: Family, rules: readonly Rule[]): string | undefined {
  return rules.find((candidate) => candidate.block.check(address, family))?.reason;
}

/**
 * Refuses a host (name or literal) that is or resolves to a forbidden address. A name with several
 * addresses is refused when any of them is forbidden: a public webhook receiver has no reason to
 * also point into a private network.
 */
export async function assertPublicHost(hostname: string, resolve: Resolve, options: GuardOptions = {}): Promise<LookupAddress[]> {
  const host = unbracket(hostname);
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (addresses.length === 0) throw new CallbackAddressRefusedError(`${host} has no address`);
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) throw new CallbackAddressRefusedError(`${options.subject ?? 'the callback address'} resolves to a ${reason}`);
  }
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the sockets of webhook delivery and JWKS fetches: resolves with `resolve`, refuses forbidden
 * addresses (unless `allowPrivate`, development and tests), and hands the checked addresses to the
 * socket, which connects to nothing else. It runs once per new connection: a pooled connection was
 * checked when it opened. (Node skips `lookup` for an IP literal host; the sender checks those
 * itself before every request.)
 */
export function guardedLookup(resolve: Resolve, options: GuardOptions & { allowPrivate?: boolean } = {}) {
  const addressesOf = options.allowPrivate
    ? (hostname: string) => resolveAny(hostname, resolve)
    : (hostname: string) => assertPublicHost(hostname, resolve, options);
  return (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    addressesOf(hostname).then(
      (addresses) => {
        const wanted =
          lookupOptions.family === 4 || lookupOptions.family === 6 ? addresses.filter((entry) => entry.family === lookupOptions.family) : addresses;
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
