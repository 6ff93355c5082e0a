// recall: answers a question with the user's remembered facts that fit it best. It reads the
// facts through project_cli (memory.read) and has the host rank them against the question
// (models/rerank), then answers with the best few, most relevant first. The host always ranks:
// with the operator's rerank model, else embeddings, else full-text relevance, so the runner
// needs no model of its own; the answer names the ranker, since each scores differently.
// `RUNNER_SECRET=s HOST_URL=http://127.0.0.1:3000 tsx examples/runners/recall.ts`
import { randomUUID } from "node:crypto";
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, runCompleted } from "../../sdk/runner/results";
import { inputText } from "./echo";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const RECALL_RUNNER_ID = "plugin:dispatch-examples/recall/default";
const TOOL = "project_cli";
const TOP_K = 3;

type Fact = { key: string; value: string };
type MemoryRead = { facts?: Fact[] };

// Keys are snake_case ("bike_colour"); spaced words match the question's words in every ranker.
const rankedText = (f: Fact) => `${f.key.replaceAll("_", " ")}: ${f.value}`;

export const recallRunner = defineRunner({
  manifest: {
    id: RECALL_RUNNER_ID,
    name: "default",
    label: { en_US: "Recall", zh_Hans: "回忆" },
    description: { en_US: "Answers a question with the remembered facts that fit it best, ranked by the host." },
    capabilities: { streaming: true, tool_calling: true },
    permissions: { tools: ["call"], models: ["rerank"] },
    context: { bootstrap: "none" },
  },
  async *run(ctx, { host }) {
    const question = inputText(ctx).trim();
    if (!question) {
      yield completed("Ask me something, and I will answer with what I remember that fits it best.");
      yield runCompleted({ finish_reason: "stop" });
      return;
    }
    const read = await host.tools.call({ tool_name: TOOL, tool_call_id: `call_${randomUUID().replaceAll("-", "")}`, parameters: { module: "memory", method: "read", input: {} } });
    const facts = read.output.status === "success" ? ((read.output.result?.data as MemoryRead | undefined)?.facts ?? []) : [];
    if (read.output.status !== "success") {
      yield completed(`I could not read what I remember: ${read.output.error?.message ?? "failed"}.`);
    } else if (facts.length === 0) {
      yield completed("I do not remember anything about you yet.");
    } else {
      // The host ranks with its own ranker: no model of the run's is named.
      const { results, ranker } = await host.models.rerank({ query: question, documents: facts.map(rankedText), top_k: TOP_K });
      const best = results.map((r, i) => `${i + 1}. ${facts[r.index]!.key}: ${facts[r.index]!.value}`);
      yield completed([`What I remember that fits best (ranked by ${ranker.replace("_", " ")}):`, ...best].join("\n"));
    }
    yield runCompleted({ finish_reason: "stop" });
  },
});

export const startRecallRunner = async (opts: StartOptions) => {
  if (!opts.hostUrl) throw new Error("recall calls the host API: set HOST_URL (or pass hostUrl) to the Dispatch server's origin");
  return startRunners({ ...opts, runners: [recallRunner] });
};

runIfMain(import.meta.url, startRecallRunner);
