import "server-only";
import http from "node:http";
import https from "node:https";
import { lookup as dnsLookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { isPublicAddress } from "./public-address";

// GET of a URL someone else named (an Agent API client's image_url), kept off this machine and
// the networks behind it. The address is checked when the connection is made, on the addresses
// the connection really uses (a name that resolved to a public address for a check and to a
// private one for the connection gets nowhere), on every redirect hop; the body is read up to
// a limit and no further; the whole exchange has one deadline.

export type PublicFetchRefusal =
  | { reason: "scheme"; message: string }
  | { reason: "address"; message: string }
  | { reason: "redirect"; message: string }
  | { reason: "status"; message: string; status: number }
  | { reason: "timeout"; message: string }
  | { reason: "too_large"; message: string }
  | { reason: "network"; message: string };

export class PublicFetchError extends Error {
  constructor(readonly refusal: PublicFetchRefusal) {
    super(refusal.message);
    this.name = "PublicFetchError";
  }
}

export type PublicFetchOptions = {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Hosts (as URLs spell them) the operator allows although they are not public. */
  allowedHosts: readonly string[];
  /** Sent as Accept. */
  accept?: string;
};

export const bare = (host: string) => host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
const refuse = (refusal: PublicFetchRefusal): never => {
  throw new PublicFetchError(refusal);
};

/** A lookup that hands the socket only public addresses, or fails the connection naming the host. */
export function publicLookup(host: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as { address: string; family: number }[];
      if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
        return callback(new PublicFetchError({ reason: "address", message: `${host} resolves to a private or local address` }), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function requestOnce(url: URL, opts: PublicFetchOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const host = bare(url.hostname);
  const allowed = opts.allowedHosts.some((h) => bare(h) === host);
  if (!allowed && isIP(host) && !isPublicAddress(host)) refuse({ reason: "address", message: `${host} is a private or local address` });
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      signal,
      headers: { accept: opts.accept ?? "*/*", "user-agent": "Dispatch image fetcher" },
      ...(allowed || isIP(host) ? {} : { lookup: publicLookup(host) }),
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}

/**
 * The body of `url` (http or https), following at most `maxRedirects` redirects, each one
 * checked like the first. Throws PublicFetchError saying why not.
 */
export async function fetchPublic(rawUrl: string, opts: PublicFetchOptions): Promise<{ body: Buffer; contentType: string | null; url: string }> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let url = new URL(rawUrl);
  let hop = 0;
  try {
    for (; ; hop++) {
      if (url.protocol !== "http:" && url.protocol !== "https:") refuse({ reason: "scheme", message: `${url.protocol} URLs are not fetched; use http or https` });
      const res = await requestOnce(url, opts, signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (hop >= opts.maxRedirects) refuse({ reason: "redirect", message: `more than ${opts.maxRedirects} redirects` });
        url = new URL(res.headers.location, url);
        continue;
      }
      if (status < 200 || status >= 300) {
        res.resume();
        refuse({ reason: "status", status, message: `the server answered HTTP ${status}` });
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        res.destroy();
        refuse({ reason: "too_large", message: `larger than ${opts.maxBytes} bytes` });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res) {
        size += (chunk as Buffer).length;
        if (size > opts.maxBytes) {
          res.destroy();
          refuse({ reason: "too_large", message: `larger than ${opts.maxBytes} bytes` });
        }
        chunks.push(chunk as Buffer);
      }
      return { body: Buffer.concat(chunks), contentType: res.headers["content-type"] ?? null, url: url.toString() };
    }
  } catch (err) {
    const cause = err instanceof PublicFetchError ? err : (err as { cause?: unknown }).cause;
    if (cause instanceof PublicFetchError) {
      // A refused address behind a redirect is the redirect's fault.
      if (cause.refusal.reason === "address" && hop > 0) refuse({ reason: "redirect", message: `redirected to ${cause.refusal.message}` });
      throw cause;
    }
    if (signal.aborted) refuse({ reason: "timeout", message: `no complete answer within ${opts.timeoutMs / 1000} s` });
    throw new PublicFetchError({ reason: "network", message: "the server could not be reached" });
  }
}
