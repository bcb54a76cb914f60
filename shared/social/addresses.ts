import ipaddr from 'ipaddr.js';

/**
 * Which addresses and names social login's outgoing calls may reach (shared/social/outbound.ts): the one
 * classifier the write-time check, the explicit check route, discovery and login share (docs/security.md,
 * "Outgoing calls").
 *
 * An address is refused unless it is ordinary public unicast: loopback, private, link-local, carrier-grade NAT,
 * unique-local, multicast, broadcast, documentation, benchmarking and every other reserved range of ipaddr.js's
 * tables are refused. An IPv6 address that carries an IPv4 address is judged by the IPv4 address it carries
 * (every one it carries, for Teredo): IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, IPv4-compatible
 * `::/96`, 6to4 `2002::/16`, NAT64 `64:ff9b::/96`, and Teredo `2001::/32` (its server and its client). The NAT64
 * local-use prefix `64:ff9b:1::/48` translates to whatever the local network chooses: refused outright.
 */

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const v4 = (high: number, low: number): IPv4 =>
  new ipaddr.IPv4([(high >> 8) & 0xff, high & 0xff, (low >> 8) & 0xff, low & 0xff]);

const nat64LocalUse = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
const ipv4Compatible = ipaddr.IPv6.parseCIDR('::/96');

/** The IPv4 addresses an IPv6 address carries; empty when it carries none. */
export function embeddedIPv4(address: IPv6): IPv4[] {
  const parts = address.parts as [number, number, number, number, number, number, number, number];
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return address.match(nat64LocalUse) ? [] : [v4(parts[6], parts[7])];
    case '6to4':
      return [v4(parts[1], parts[2])];
    case 'teredo':
      // RFC 4380: the server's address in clear, the client's (public) address with every bit inverted.
      return [v4(parts[2], parts[3]), v4(parts[6] ^ 0xffff, parts[7] ^ 0xffff)];
    default:
      // `::` and `::1` are the unspecified and loopback addresses, not IPv4-compatible ones: refused below anyway.
      return address.match(ipv4Compatible) ? [v4(parts[6], parts[7])] : [];
  }
}

function forbiddenIPv4(address: IPv4): boolean {
  return address.range() !== 'unicast';
}

function forbiddenIPv6(address: IPv6): boolean {
  if (address.match(nat64LocalUse)) return true;
  const carried = embeddedIPv4(address);
  if (carried.length > 0) return carried.some(forbiddenIPv4);
  return address.range() !== 'unicast';
}

/** Whether an address is one no provider may be reached at; anything that is not an IP address is refused. */
export function isForbiddenAddress(address: string): boolean {
  let parsed: IPv4 | IPv6;
  try {
    // IPv4 only in its four decimal parts: the forms a URL or a resolver hands over (`0x7f.1` never arrives here).
    if (ipaddr.IPv4.isValidFourPartDecimal(address)) parsed = ipaddr.IPv4.parse(address);
    else if (ipaddr.IPv6.isValid(address)) parsed = ipaddr.IPv6.parse(address);
    else return true;
  } catch {
    return true;
  }
  return parsed.kind() === 'ipv4' ? forbiddenIPv4(parsed as IPv4) : forbiddenIPv6(parsed as IPv6);
}

/**
 * Whether a host name is one that only names this machine or a private network: `localhost` and anything under
 * `.localhost` or `.internal`, in any case, with or without the trailing dot of a fully qualified name. Such a name
 * is refused when it is written, not only when it would be connected to.
 */
export function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal');
}
