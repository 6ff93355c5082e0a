// worker: a real job done through the host API. For each message it
//   1. reads its turn counter (conversation state) with state.get,
//   2. calls project_cli with tools.call: creates an event when the text asks for one
//      (`create "Title" at 2026-11-22T10:00:00Z [for 45 minutes]`), else lists a day's events
//      (the date in the text, else today in the run's time zone),
//   3. asks the model with models.stream to answer from that result, streaming its answer,
//   4. stores the new turn count with state.set and reports it.
// `RUNNER_SECRET=s HOST_URL=http://127.0.0.1:3000 tsx examples/runners/worker.ts`
import { randomUUID } from "node:crypto";
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, delta, runCompleted, toolCompleted, toolStarted } from "../../sdk/runner/results";
import type { AgentRunContext } from "../../sdk/runner/types";
import { inputText } from "./echo";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const WORKER_RUNNER_ID = "plugin:dispatch-examples/worker/default";
export const WORKER_TURNS_KEY = "worker.turns";
const TOOL = "project_cli";

const CREATE = /\b(?:create|add|schedule)\b[^"“]*["“]([^"”]{1,200})["”][^]*?\bat\s+(\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2}))(?:[^]*?\bfor\s+(\d{1,4})\s*min)?/i;
const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;

/** The project_cli call the text asks for. */
export function planToolCall(text: string, ctx: Pick<AgentRunContext, "runtime">): { module: string; method: string; input: Record<string, unknown> } {
  const create = CREATE.exec(text);
  if (create) {
    return {
      module: "calendar",
      method: "create",
      input: { title: create[1]!.trim(), start_at: create[2]!, duration_minutes: Number(create[3] ?? 30) },
    };
  }
  const timeZone = ctx.runtime.timezone ?? "UTC";
  // en-CA formats a date as YYYY-MM-DD.
  const today = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  return { module: "calendar", method: "read", input: { mode: "day", date: DATE.exec(text)?.[1] ?? today, time_zone: timeZone } };
}

export const workerRunner = defineRunner({
  manifest: {
    id: WORKER_RUNNER_ID,
    name: "default",
    label: { en_US: "Calendar worker", zh_Hans: "日历助手" },
    description: { en_US: "Looks up or creates calendar events with project_cli, answers with the host's model and counts its turns per conversation." },
    capabilities: { streaming: true, tool_calling: true, stateful_session: true, interrupt: true },
    permissions: { models: ["stream"], tools: ["call"] },
    context: { bootstrap: "none" },
  },
  async *run(ctx, { host }) {
    const model = ctx.resources.models.find((m) => m.operations.includes("stream")) ?? ctx.resources.models[0];
    if (!model) throw new Error("This run grants no model: bind the worker with a model it may stream from");
    if (!ctx.resources.tools.some((t) => t.tool_name === TOOL)) throw new Error(`This run grants no ${TOOL} tool: bind the worker with tools allowed`);
    const text = inputText(ctx);

    const saved = await host.state.get({ scope: "conversation", key: WORKER_TURNS_KEY });
    const turn = (typeof saved.value === "number" ? saved.value : 0) + 1;

    const parameters = planToolCall(text, ctx);
    const toolCallId = `call_${randomUUID()}`;
    yield toolStarted({ tool_call_id: toolCallId, tool_name: TOOL, parameters });
    const tool = await host.tools.call({ tool_name: TOOL, parameters, tool_call_id: toolCallId });
    yield toolCompleted({ tool_call_id: toolCallId, tool_name: TOOL, result: tool.output, error: tool.output.error?.message ?? null });

    let answer = "";
    let usage: { input_tokens: number; output_tokens: number; total_tokens: number } | undefined;
    const messages = [
      { role: "system" as const, content: "You help with the user's calendar. Answer briefly from the tool result." },
      { role: "user" as const, content: text },
      { role: "assistant" as const, content: null, tool_calls: [{ id: toolCallId, name: TOOL, arguments: parameters }] },
      { role: "tool" as const, tool_call_id: toolCallId, name: TOOL, content: tool.tool_response_text },
    ];
    for await (const line of host.models.stream({ model_id: model.model_id, messages })) {
      if (line.type === "delta" && line.content) {
        answer += line.content;
        yield delta(line.content);
      } else if (line.type === "final") usage = line.usage;
    }

    await host.state.set({ scope: "conversation", key: WORKER_TURNS_KEY, value: turn });
    const report = `\n\n(turn ${turn} in this conversation)`;
    yield delta(report);
    yield completed(answer + report);
    yield runCompleted({ finish_reason: "stop", usage });
  },
});

export const startWorkerRunner = async (opts: StartOptions) => {
  if (!opts.hostUrl) throw new Error("The worker calls the host API: set HOST_URL (or pass hostUrl) to the Dispatch server's origin");
  return startRunners({ ...opts, runners: [workerRunner] });
};

runIfMain(import.meta.url, startWorkerRunner);
