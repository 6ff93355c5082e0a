import os from "node:os";
import { parseArgs } from "node:util";
import { env } from "../../server/env";
import { log } from "./bootstrap";

export type ListenAddress = { hostname?: string; port: number };

/**
 * Where `npm start` and `npm run dev` listen: the flags in `args` first, then HOSTNAME and PORT.
 * No hostname means every interface, as `next start` does. A bad flag exits 2 with `usage`.
 */
export function listenAddress(args: string[], usage: string): ListenAddress {
  const fail = (message: string): never => {
    console.error(`[dispatch] ${message}\n${usage}`);
    process.exit(2);
  };
  let values: { hostname?: string; port?: string };
  try {
    ({ values } = parseArgs({ args, options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } } }));
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  const port = values.port === undefined ? env.PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`The port must be a whole number from 1 to 65535, not ${values.port}.`);
  if (values.hostname?.trim()) return { hostname: values.hostname.trim(), port };
  // Docker, and the login profile of some distributions, export HOSTNAME as this machine's own
  // name: that is not a choice of address, and binding to it would shut out localhost.
  if (env.HOSTNAME && env.HOSTNAME !== os.hostname()) return { hostname: env.HOSTNAME, port };
  if (env.HOSTNAME) log(`HOSTNAME is this machine's name (${env.HOSTNAME}), not an address to listen on: listening on every interface (use --hostname to bind to it)`);
  return { port };
}

/** The URL to print: the address listened on, or localhost when that is every interface. */
export function displayUrl({ hostname, port }: ListenAddress): string {
  const host = !hostname || ["0.0.0.0", "::", "[::]"].includes(hostname) ? "localhost" : hostname;
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}
