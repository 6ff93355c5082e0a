// A server process that dies between a project_cli write's commit and its answer reaching the
// run: it hands the tool gateway one request (read from stdin), waits for the gateway's answer,
// which means the handler's transaction has committed, and is killed (SIGKILL) before it can
// pass the answer on. server/tools/project-cli/effects.integration-test.ts starts it, then
// repeats the call the way the instance that takes the run over would.
//   node --conditions=react-server --import tsx test/tool-call-then-die.ts < request.json
import { text } from "node:stream/consumers";
import { handleToolRequest } from "@/server/tools/project-cli/gateway";

await handleToolRequest(await text(process.stdin));
process.kill(process.pid, "SIGKILL");
