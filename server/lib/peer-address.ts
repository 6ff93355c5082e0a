import { isIPv6 } from "node:net";

// The address of the TCP connection a request came in on. Next's route handlers see only a
// Request, so our own server (scripts/lib/next-server.mjs) writes the connection's address into
// PEER_ADDRESS_HEADER of every request, after removing any copy the client sent, and says so in
// PEER_ADDRESS_STAMPED. Where it does not serve (Vercel, `next dev`) the header is the client's
// word, so it is not read at all.

export const PEER_ADDRESS_HEADER = "x-dispatch-peer-address";
const PEER_ADDRESS_STAMPED = Symbol.for("dispatch.peerAddressStamped");

/** The connection's address as the back-off counts it, or null when no server of ours stamped it. */
export function peerAddress(headers: Headers): string | null {
  if ((globalThis as Record<symbol, unknown>)[PEER_ADDRESS_STAMPED] !== true) return null;
  const raw = headers.get(PEER_ADDRESS_HEADER)?.trim();
  return raw ? addressKey(raw) : null;
}

/**
 * One key per client that cannot vary it cheaply: an IPv4 address (also when it came as an
 * IPv4-mapped IPv6 one) or an IPv6 /64, the block one subscriber is usually handed whole.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address.slice(0, 64);
  const [head = "", tail] = address.split("%")[0]!.split("::");
  const front = head ? head.split(":") : [];
  const back = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
