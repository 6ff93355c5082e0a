// careful-memory: keeps the user's memory through project_cli, under their approval policy.
//   "remember <key> is <value>" writes a fact (memory.update): when the user's policy wants a
//   person to approve it, tools/call answers APPROVAL_PENDING and the runner ends its run, which
//   ends waiting for the decision (an interrupt). The decision's run brings it back
//   (`decidedApprovals(ctx)`): the runner calls tools/call again with the same tool_call_id, and
//   the host runs the approved (possibly edited) write once, or says why not.
//   "what do you remember" reads the facts (memory.read).
// Every host call shows in the conversation as the built-in agent's calls do, with its card.
// `RUNNER_SECRET=s HOST_URL=http://127.0.0.1:3000 tsx examples/runners/careful-memory.ts`
import { randomUUID } from "node:crypto";
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, runCompleted } from "../../sdk/runner/results";
import { approvalCall, decidedApprovals, pendingApproval } from "../../sdk/runner/tool-calls";
import { inputText } from "./echo";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const CAREFUL_MEMORY_RUNNER_ID = "plugin:dispatch-examples/careful-memory/default";
const TOOL = "project_cli";

const REMEMBER = /\bremember\s+([a-z][a-z0-9_]{0,63})\s+is\s+(.{1,200})$/i;

export const carefulMemoryRunner = defineRunner({
  manifest: {
    id: CAREFUL_MEMORY_RUNNER_ID,
    name: "default",
    label: { en_US: "Careful memory", zh_Hans: "谨慎记忆" },
    description: { en_US: "Remembers facts for the user, asking them first when their approval policy says so." },
    capabilities: { streaming: true, tool_calling: true, interrupt: true },
    permissions: { tools: ["call"] },
    context: { bootstrap: "none" },
  },
  async *run(ctx, { host }) {
    const said: string[] = [];
    // Decisions on writes an earlier run asked for: carry them out (or learn why not).
    for (const approval of decidedApprovals(ctx)) {
      const answer = await host.tools.call(approvalCall(approval));
      said.push(answer.output.status === "success" ? `Done: ${approval.action}.` : `Not done: ${approval.action} (${answer.output.error?.code ?? "failed"}).`);
    }
    const text = inputText(ctx).trim();
    const remember = REMEMBER.exec(text);
    if (remember) {
      const [, key, value] = remember;
      const answer = await host.tools.call({
        tool_name: TOOL,
        tool_call_id: `call_${randomUUID().replaceAll("-", "")}`,
        parameters: { module: "memory", method: "update", input: { facts: [{ key: key!.toLowerCase(), value: value!.trim() }] } },
      });
      const waiting = pendingApproval(answer);
      if (waiting) said.push(`I will remember ${key} once you approve (until ${waiting.expiresAt}).`);
      else said.push(answer.output.status === "success" ? `Remembered ${key}.` : `Could not remember ${key}: ${answer.output.error?.message ?? "failed"}.`);
    } else if (/what do you remember/i.test(text)) {
      const answer = await host.tools.call({ tool_name: TOOL, tool_call_id: `call_${randomUUID().replaceAll("-", "")}`, parameters: { module: "memory", method: "read", input: {} } });
      said.push(`Here is what I remember: ${answer.tool_response_text}`);
    } else if (text) {
      said.push('Say "remember <key> is <value>" or "what do you remember".');
    }
    if (said.length > 0) yield completed(said.join("\n"));
    yield runCompleted({ finish_reason: "stop" });
  },
});

export const startCarefulMemoryRunner = async (opts: StartOptions) => {
  if (!opts.hostUrl) throw new Error("careful-memory calls the host API: set HOST_URL (or pass hostUrl) to the Dispatch server's origin");
  return startRunners({ ...opts, runners: [carefulMemoryRunner] });
};

runIfMain(import.meta.url, startCarefulMemoryRunner);
