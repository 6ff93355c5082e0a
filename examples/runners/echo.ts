// echo: streams the input text back in several message.delta chunks, then message.completed
// and run.completed. Calls nothing on the host. `RUNNER_SECRET=s tsx examples/runners/echo.ts`
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, delta, runCompleted } from "../../sdk/runner/results";
import type { AgentRunContext } from "../../sdk/runner/types";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const ECHO_RUNNER_ID = "plugin:dispatch-examples/echo/default";

/** The run's text: input.text, else its text content parts. */
export const inputText = (ctx: AgentRunContext): string =>
  ctx.input.text ?? ctx.input.contents.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");

/** Word-sized pieces that join back to exactly `text`. */
export const chunksOf = (text: string): string[] => text.match(/\s*\S+\s*/g) ?? [text];

export const echoRunner = defineRunner({
  manifest: {
    id: ECHO_RUNNER_ID,
    name: "default",
    label: { en_US: "Echo", zh_Hans: "回声" },
    description: { en_US: "Answers with the text it was sent, streamed word by word." },
    capabilities: { streaming: true },
    permissions: {},
    context: { bootstrap: "none" },
  },
  async *run(ctx) {
    const text = inputText(ctx);
    for (const chunk of chunksOf(text)) yield delta(chunk);
    yield completed(text);
    yield runCompleted({ finish_reason: "stop" });
  },
});

export const startEchoRunner = (opts: StartOptions) => startRunners({ ...opts, runners: [echoRunner] });

runIfMain(import.meta.url, startEchoRunner);
