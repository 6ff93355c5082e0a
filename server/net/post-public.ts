import "server-only";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { bare, publicLookup, PublicFetchError } from "./fetch-public";
import { isPublicAddress } from "./public-address";

// POST to a URL someone registered (a webhook endpoint), under the same rules as fetchPublic: the
// addresses are checked when the connection is made, on the ones it really uses; no redirect is
// followed (a 3xx is the answer); the answer's body is read up to a limit and dropped; one deadline.

export type PublicPostOptions = { body: string; headers: Record<string, string>; timeoutMs: number; allowedHosts: readonly string[]; userAgent: string };

const RESPONSE_BYTES = 64 * 1024;

/** The status the server answered with; throws PublicFetchError when it could not be asked. */
export async function postPublic(rawUrl: string, opts: PublicPostOptions): Promise<{ status: number }> {
  const url = new URL(rawUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new PublicFetchError({ reason: "scheme", message: `${url.protocol} URLs are not called; use http or https` });
  const host = bare(url.hostname);
  const allowed = opts.allowedHosts.some((h) => bare(h) === host);
  if (!allowed && isIP(host) && !isPublicAddress(host)) throw new PublicFetchError({ reason: "address", message: `${host} is a private or local address` });
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const client = url.protocol === "https:" ? https : http;
  try {
    return await new Promise<{ status: number }>((resolve, reject) => {
      const req = client.request(url, {
        method: "POST",
        signal,
        headers: { ...opts.headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(opts.body)), "user-agent": opts.userAgent },
        ...(allowed || isIP(host) ? {} : { lookup: publicLookup(host) }),
      });
      req.once("response", (res) => {
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > RESPONSE_BYTES) res.destroy();
        });
        res.once("close", () => resolve({ status: res.statusCode ?? 0 }));
        res.once("error", () => resolve({ status: res.statusCode ?? 0 }));
      });
      req.once("error", reject);
      req.end(opts.body);
    });
  } catch (err) {
    const cause = err instanceof PublicFetchError ? err : (err as { cause?: unknown }).cause;
    if (cause instanceof PublicFetchError) throw cause;
    if (signal.aborted) throw new PublicFetchError({ reason: "timeout", message: `no answer within ${opts.timeoutMs / 1000} s` });
    throw new PublicFetchError({ reason: "network", message: "the endpoint could not be reached" });
  }
}
