// Which network addresses an outbound request made on a user's behalf (webhooks, web push) may
// reach: not loopback, private, link-local, carrier-grade NAT, metadata or otherwise reserved ones,
// including IPv4 hidden inside IPv6 (mapped, compatible, SIIT, NAT64, 6to4) and the ranges that
// translate or tunnel to addresses nobody can check here (local-use NAT64, Teredo).
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const blockedIpv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blockedIpv4.addSubnet(network, prefix, 'ipv4');
}

const blockedIpv6 = new BlockList();
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates to IPv4 addresses of the operator's choosing
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: tunnels to an IPv4 address it hides (XORed)
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID (deprecated)
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local (includes fd00:ec2::254, a metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blockedIpv6.addSubnet(network, prefix, 'ipv6');
}

/** Host names that point at the instance itself or at a cloud metadata service whatever DNS says. */
const BLOCKED_HOSTNAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

export function isBlockedHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return BLOCKED_HOSTNAMES.has(name) || name.endsWith('.localhost') || name.endsWith('.internal');
}

/** Eight 16-bit groups of an IPv6 address, or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted IPv4 part becomes two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[2]!.split('.').map(Number);
    text = `${dotted[1]}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail].map((group) => parseInt(group, 16));
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

function ipv4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64 or 6to4), if any. */
function embeddedIpv4(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || (g5 === 0 && (g6 !== 0 || g7 > 1)))) return ipv4From(g6, g7);
  // SIIT's IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 2765).
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return ipv4From(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4From(g6, g7);
  if (g0 === 0x2002) return ipv4From(g1, g2);
  return null;
}

/** True when `address` (an IP literal) must not be reached; anything that is not an IP is blocked too. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return blockedIpv4.check(bare, 'ipv4');
  if (!isIPv6(bare)) return true;
  const groups = ipv6Groups(bare);
  if (!groups) return true;
  const inner = embeddedIpv4(groups);
  if (inner !== null && blockedIpv4.check(inner, 'ipv4')) return true;
  const normalized = groups.map((group) => group.toString(16)).join(':');
  return blockedIpv6.check(normalized, 'ipv6');
}
