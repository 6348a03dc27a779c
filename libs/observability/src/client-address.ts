import { isIPv6 } from 'node:net';

/**
 * What a client address is counted as by the limits per address (auth's login throttle, the
 * gateway's limit on the routes without a token): an IPv4 address as it is (an IPv4-mapped IPv6 one as IPv4), an
 * IPv6 address by its /64, the smallest network a home or office is given (RFC 6177), within which
 * one client may take any address it likes.
 */
export function addressKeyOf(address: string): string {
  const mapped = /^::ffff:(?<ipv4>\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.groups?.ipv4;
  if (mapped) return mapped;
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in hex without leading zeros (`::` expanded, a trailing IPv4 part converted). */
function ipv6Groups(address: string): string[] {
  const [withoutZone = ''] = address.toLowerCase().split('%');
  const [head, tail] = withoutZone.split('::') as [string, string | undefined];
  const groupsOf = (part: string | undefined) => (part ? part.split(':') : []).flatMap((group) => (group.includes('.') ? ipv4AsGroups(group) : [group]));
  const first = groupsOf(head);
  const last = groupsOf(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - first.length - last.length).fill('0');
  return [...first, ...zeros, ...last].map((group) => parseInt(group, 16).toString(16));
}

function ipv4AsGroups(ipv4: string): string[] {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
