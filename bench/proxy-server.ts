// The round-robin proxy of the two-instance tests (test/round-robin-proxy.ts) in a process of its
// own, so the instances phase counts its CPU apart from the instances it sits in front of.
// Prints "ready PORT" once it listens; on SIGTERM prints how many requests each target got (one
// JSON line) and exits.
// Usage: node --import tsx bench/proxy-server.ts --target URL [--target URL ...]
import { parseArgs } from "node:util";
import { startRoundRobinProxy } from "../test/round-robin-proxy";

const { values } = parseArgs({ options: { target: { type: "string", multiple: true } } });
const targets = values.target ?? [];
if (targets.length === 0) throw new Error("--target URL, once per instance");

const proxy = await startRoundRobinProxy(targets);
process.stdout.write(`ready ${new URL(proxy.url).port}\n`);
process.once("SIGTERM", () => {
  process.stdout.write(`${JSON.stringify(proxy.served)}\n`, () => void proxy.close().finally(() => process.exit(0)));
});
