import "server-only";
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

// Outbound calls to a URL someone typed in (a runner's base URL) must not reach this machine or
// the networks behind it: loopback, unspecified, link-local (cloud metadata services live there),
// private and shared ranges, and the other special-purpose blocks of RFC 6890 that no public
// service uses. IPv4-mapped IPv6 addresses are checked as the IPv4 address they carry.
const nonPublic = new BlockList();
const IPV4_RANGES: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];
const IPV6_RANGES: [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];
for (const [network, prefix] of IPV4_RANGES) nonPublic.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of IPV6_RANGES) nonPublic.addSubnet(network, prefix, "ipv6");

/** True for an IP address a public service could have; false for special-purpose ones and non-addresses. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !nonPublic.check(address, family === 4 ? "ipv4" : "ipv6");
}

const bare = (host: string) => host.replace(/^\[(.*)\]$/, "$1").toLowerCase();

/**
 * Whether an outbound call may go to `hostname` (as a URL spells it): a host the operator listed
 * in `allowedHosts` may be anything; any other must be a public address, or a name whose every
 * address is public (one private answer is enough for a name to point inside).
 */
export async function mayConnectTo(hostname: string, allowedHosts: readonly string[]): Promise<boolean> {
  const host = bare(hostname);
  if (allowedHosts.some((allowed) => bare(allowed) === host)) return true;
  if (isIP(host)) return isPublicAddress(host);
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.length > 0 && addresses.every((a) => isPublicAddress(a.address));
  } catch {
    return false;
  }
}
