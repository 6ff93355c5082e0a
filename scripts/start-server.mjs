// The production server alone, on a database already migrated (DATABASE_URL) and with AUTH_SECRET
// set: how tests, the benchmark and a process manager running several instances start it. `npm
// start` serves the same way (scripts/lib/next-server.mjs) after preparing the database itself.
//   node scripts/start-server.mjs [--port 3000] [--hostname 0.0.0.0]
import { parseArgs } from "node:util";
import { serveNext } from "./lib/next-server.mjs";

const USAGE = "usage: node scripts/start-server.mjs [--port 3000] [--hostname 0.0.0.0]";
function fail(message) {
  console.error(`[dispatch] ${message}\n${USAGE}`);
  process.exit(2);
}
let values;
try {
  ({ values } = parseArgs({ options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } } }));
} catch (err) {
  fail(err.message);
}
const port = Number(values.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`The port must be a whole number from 1 to 65535, not ${values.port ?? process.env.PORT}.`);

await serveNext({ port, hostname: values.hostname });
