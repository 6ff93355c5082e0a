import { EventType } from "@ag-ui/core";
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { createEventSequenceGuard } from "../protocols/ag-ui/event-guard";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { parseRunAgentInput, type RunAgentInput } from "../protocols/ag-ui/run-input";
import { buildToolsPrompt } from "../protocols/ag-ui/tools-prompt";
import type { EmitExtras, RunHandle } from "../kernel/runs";
import { compileUiHints } from "../tools/project-cli/cards";
import { createAgentRunner, type AgentContext, type AgentRunnerDeps } from "./agent-runner";
import { MAX_AGENT_STEPS } from "./constants";
import type { ModelInfo } from "../models/catalog";
import type { ProjectCliBinding, ProjectCliRequest } from "./tools";

const RUN: RunHandle = {
  id: "11111111-1111-4111-8111-111111111111",
  runId: "run-1",
  threadId: "22222222-2222-4222-8222-222222222222",
  userId: "33333333-3333-4333-8333-333333333333",
  protocol: "ag-ui",
  deadlineAt: new Date(Date.now() + 60_000),
  createdAt: new Date(),
};
const NOW = new Date("2026-01-02T03:00:00Z");
const INFO: ModelInfo = { id: "mock-model", provider: "openai-compatible", label: "mock", offline: false };
const UI = compileUiHints({ kind: "memory.facts", action: "read", facts: [{ key: "prefers_mornings", value: "Prefers mornings" }] });

function input(text: string, extra: Record<string, unknown> = {}): RunAgentInput {
  const parsed = parseRunAgentInput(
    JSON.stringify({ threadId: RUN.threadId, runId: RUN.runId, messages: [{ id: "m1", role: "user", content: text }], tools: [], context: [], ...extra }),
  );
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.input;
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

function textStep(text: string): LanguageModelV4StreamPart[] {
  const words = text.split(/(?<=\s)/);
  return [
    { type: "stream-start", warnings: [] },
    // Providers reuse their text ids across steps; the runner must not.
    { type: "text-start", id: "0" },
    ...words.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "0", delta })),
    { type: "text-end", id: "0" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, words.length) },
  ];
}

function toolStep(id: string, toolName: string, args: string): LanguageModelV4StreamPart[] {
  const pieces = args.match(/.{1,7}/gs) ?? [];
  return [
    { type: "stream-start", warnings: [] },
    { type: "tool-input-start", id, toolName },
    ...pieces.map((delta): LanguageModelV4StreamPart => ({ type: "tool-input-delta", id, delta })),
    { type: "tool-input-end", id },
    { type: "tool-call", toolCallId: id, toolName, input: args },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(20, 5) },
  ];
}

/** A mock model that plays one scripted step per call (the last one repeats). */
function scriptedModel(steps: LanguageModelV4StreamPart[][]) {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: convertArrayToReadableStream(steps[Math.min(call++, steps.length - 1)]!) }),
  });
}

type CliImpl = (r: ProjectCliRequest) => { text: string; ok?: boolean };
function fakeCli(impl: CliImpl = () => ({ text: '{"module":"memory","method":"read","data":{"facts":[]}}' })) {
  const run = vi.fn(async (r: ProjectCliRequest) => {
    const { text, ok = true } = impl(r);
    return {
      toolResponseText: text,
      uiSchema: ok ? UI : null,
      output: { tool_name: "project_cli", tool_call_id: r.toolCallId, tool_call_args: r.args, status: ok ? "success" : "failure" },
    };
  });
  const binding: ProjectCliBinding = {
    name: "project_cli",
    description: "The user's calendar, contacts and memory.",
    parameters: { type: "object", properties: { module: { type: "string" }, method: { type: "string" }, input: { type: "object" } } },
    run,
  };
  return { binding, run };
}

const emptyContext: AgentContext = { history: [], memoryFacts: [], toolEvents: [] };

type Resume = NonNullable<Parameters<ReturnType<typeof createAgentRunner>["run"]>[0]["resume"]>;

type TitleThread = AgentRunnerDeps["titleThread"];

async function runAgent(opts: {
  model: MockLanguageModelV4;
  cli?: ReturnType<typeof fakeCli>;
  input?: RunAgentInput;
  context?: AgentContext;
  signal?: AbortSignal;
  taken?: AgUiEvent[];
  info?: ModelInfo;
  titleThread?: TitleThread;
}) {
  const cli = opts.cli ?? fakeCli();
  const runner = createAgentRunner({
    model: () => ({ model: opts.model, info: opts.info ?? INFO }),
    projectCli: cli.binding,
    loadContext: async () => opts.context ?? emptyContext,
    now: () => NOW,
    titleThread: opts.titleThread ?? (async () => null),
  });
  const guard = createEventSequenceGuard({ threadId: RUN.threadId, runId: RUN.runId });
  guard.accept({ type: EventType.RUN_STARTED, threadId: RUN.threadId, runId: RUN.runId });
  // A run taken over: what an earlier execution streamed, then what it left open closed, as the engine does.
  let resume: Resume | undefined;
  if (opts.taken) {
    for (const event of opts.taken) guard.accept(event);
    const closed = guard.closeOpen();
    resume = {
      events: opts.taken,
      interruptedToolCalls: closed.flatMap((e) => (e.type === EventType.TOOL_CALL_END ? [e.toolCallId] : [])),
      unansweredToolCalls: guard.unansweredToolCalls(),
    };
  }
  const events: AgUiEvent[] = [];
  const extras: (EmitExtras | undefined)[] = [];
  const result = await runner.run({
    run: RUN,
    input: opts.input ?? input("hello"),
    generation: {},
    resume,
    signal: opts.signal ?? new AbortController().signal,
    emit: (event, extra) => {
      guard.accept(event);
      events.push(event);
      extras.push(extra);
    },
  });
  return { result, events, extras, guard, cli };
}

const typesOf = (events: AgUiEvent[]) => events.map((e) => e.type);
const ofType = <T extends EventType>(events: AgUiEvent[], type: T) => events.filter((e): e is Extract<AgUiEvent, { type: T }> => e.type === type);

describe("the agent runner", () => {
  it("asks a real model to title the thread after its first answer, not after a later one nor with the demo model", async () => {
    const titleThread = vi.fn(async () => "Weekend in Lisbon");
    await runAgent({ model: scriptedModel([textStep("Lisbon is lovely in May")]), input: input("hi, plan my weekend in Lisbon"), titleThread });
    expect(titleThread).toHaveBeenCalledTimes(1);
    expect(titleThread).toHaveBeenCalledWith(expect.objectContaining({ threadId: RUN.threadId, question: "hi, plan my weekend in Lisbon", answer: "Lisbon is lovely in May" }));

    const later = vi.fn(async () => null);
    const history = [{ id: "m0", role: "user", content: "earlier" }] as unknown as AgentContext["history"];
    await runAgent({ model: scriptedModel([textStep("Again")]), context: { ...emptyContext, history }, titleThread: later });
    const demo = vi.fn(async () => null);
    await runAgent({ model: scriptedModel([textStep("Hello")]), info: { ...INFO, offline: true }, titleThread: demo });
    expect(later).not.toHaveBeenCalled();
    expect(demo).not.toHaveBeenCalled();
  });

  it("streams the answer as it comes and reports the usage and model", async () => {
    const { result, events, guard } = await runAgent({ model: scriptedModel([textStep("Hello there, friend")]) });
    expect(typesOf(events)).toEqual(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]);
    expect(ofType(events, EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join("")).toBe("Hello there, friend");
    expect(result).toEqual({ usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 }, model: "mock-model", result: { usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 }, model: "mock-model" } });
    expect(() => guard.close({ type: "success" })).not.toThrow();
  });

  it("runs project_cli, streams its call and result with the card, and feeds the model only the tool's text", async () => {
    const args = JSON.stringify({ module: "memory", method: "read", input: {} });
    const model = scriptedModel([toolStep("call_1", "project_cli", args), textStep("You like mornings.")]);
    const { events, extras, result, cli } = await runAgent({ model });
    expect(typesOf(events)).toEqual([
      "TOOL_CALL_START",
      ...Array(Math.ceil(args.length / 7)).fill("TOOL_CALL_ARGS"),
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);
    expect(ofType(events, EventType.TOOL_CALL_ARGS).map((e) => e.delta).join("")).toBe(args);
    expect(ofType(events, EventType.TOOL_CALL_START)[0]).toMatchObject({ toolCallId: "call_1", toolCallName: "project_cli" });
    const toolResult = ofType(events, EventType.TOOL_CALL_RESULT)[0]!;
    expect(toolResult).toMatchObject({ toolCallId: "call_1", role: "tool", content: '{"module":"memory","method":"read","data":{"facts":[]}}' });
    expect(toolResult.metadata).toEqual({ ui_schema: UI });
    expect(extras[events.indexOf(toolResult)]).toEqual({
      messageMetadata: {
        tool_name: "project_cli",
        tool_agent_output: expect.objectContaining({ tool_call_id: "call_1", status: "success" }),
        parent_message_id: ofType(events, EventType.TOOL_CALL_START)[0]!.parentMessageId,
      },
    });
    expect(cli.run).toHaveBeenCalledWith(expect.objectContaining({ userId: RUN.userId, runId: RUN.id, toolCallId: "call_1", args: { module: "memory", method: "read", input: {} }, timeZone: "UTC" }));
    const secondCall = model.doStreamCalls[1]!.prompt.at(-1)!;
    expect(secondCall).toMatchObject({ role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", output: { type: "text", value: toolResult.content } }] });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 8, totalTokens: 38 });
  });

  it("streams the model's reasoning parts as AG-UI reasoning events, and hands signed reasoning back on the next step", async () => {
    const args = JSON.stringify({ module: "memory", method: "read", input: {} });
    const signed = { anthropic: { signature: "sig-1" } };
    const thinking: LanguageModelV4StreamPart[] = [
      { type: "reasoning-start", id: "r0" },
      { type: "reasoning-delta", id: "r0", delta: "Look up " },
      { type: "reasoning-delta", id: "r0", delta: "the memory." },
      { type: "reasoning-end", id: "r0", providerMetadata: signed },
    ];
    const [start, ...rest] = toolStep("call_1", "project_cli", args);
    const model = scriptedModel([[start!, ...thinking, ...rest], textStep("Done.")]);
    const { events } = await runAgent({ model });
    const types = typesOf(events);
    expect(types.slice(0, 5)).toEqual(["REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END"]);
    expect(types[5]).toBe("REASONING_END");
    expect(types[6]).toBe("TOOL_CALL_START");
    const [opened] = ofType(events, EventType.REASONING_MESSAGE_START);
    expect(opened).toMatchObject({ role: "reasoning", timestamp: expect.any(Number) });
    expect(ofType(events, EventType.REASONING_MESSAGE_CONTENT).map((e) => e.delta).join("")).toBe("Look up the memory.");
    // The provider's signature goes back with the thinking it signed, as streamText would send it.
    const assistant = model.doStreamCalls[1]!.prompt.find((m) => m.role === "assistant")!;
    expect(assistant.content[0]).toEqual({ type: "reasoning", text: "Look up the memory.", providerOptions: signed });
  });

  it("lets the model correct a tool call that project_cli rejected", async () => {
    const bad = JSON.stringify({ module: "calendar", method: "read", input: { mode: "week" } });
    const good = JSON.stringify({ module: "calendar", method: "read", input: { mode: "day", date: "2026-01-02" } });
    const failure = '{"status":"failure","error":{"code":"INVALID_ACTION_INPUT","message":"calendar.read input does not match method schema"}}';
    const cli = fakeCli((r) => ((r.args as { input: { mode: string } }).input.mode === "week" ? { text: failure, ok: false } : { text: '{"module":"calendar","method":"read","data":{"items":[]}}' }));
    const model = scriptedModel([toolStep("call_a", "project_cli", bad), toolStep("call_b", "project_cli", good), textStep("Your day is free.")]);
    const { events } = await runAgent({ model, cli });
    const results = ofType(events, EventType.TOOL_CALL_RESULT);
    expect(results.map((r) => [r.toolCallId, r.content])).toEqual([
      ["call_a", failure],
      ["call_b", '{"module":"calendar","method":"read","data":{"items":[]}}'],
    ]);
    expect(results[0]!.metadata).toEqual({ ui_schema: null });
    expect(model.doStreamCalls[1]!.prompt.at(-1)).toMatchObject({ role: "tool", content: [{ output: { type: "text", value: failure } }] });
    expect(ofType(events, EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join("")).toBe("Your day is free.");
  });

  it("answers arguments that are not even JSON with a failure result, and carries on", async () => {
    const model = scriptedModel([toolStep("call_x", "project_cli", "{not json"), textStep("Sorry.")]);
    const { events, cli } = await runAgent({ model });
    expect(cli.run).not.toHaveBeenCalled();
    const result = ofType(events, EventType.TOOL_CALL_RESULT)[0]!;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: "failure", error: { code: "INVALID_TOOL_CALL" } });
    expect(typesOf(events).at(-1)).toBe("TEXT_MESSAGE_END");
  });

  it(`stops after ${MAX_AGENT_STEPS} model calls however many tools the model wants`, async () => {
    let n = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream(toolStep(`call_${n++}`, "project_cli", '{"module":"memory","method":"read","input":{}}')) }),
    });
    const { events, guard } = await runAgent({ model });
    expect(model.doStreamCalls).toHaveLength(MAX_AGENT_STEPS);
    expect(ofType(events, EventType.TOOL_CALL_RESULT)).toHaveLength(MAX_AGENT_STEPS);
    expect(() => guard.close({ type: "success" })).not.toThrow();
  });

  it("gives a tool call id the provider reuses in a later step its own id on the wire", async () => {
    const args = '{"module":"memory","method":"read","input":{}}';
    const model = scriptedModel([toolStep("call_0", "project_cli", args), toolStep("call_0", "project_cli", args), textStep("done")]);
    const { events, guard, cli } = await runAgent({ model });
    expect(ofType(events, EventType.TOOL_CALL_RESULT).map((e) => e.toolCallId)).toEqual(["call_0", "call_0_2"]);
    // project_cli is keyed by the id on the wire: two calls, two effects, each repeatable by its own id.
    expect(cli.run.mock.calls.map(([r]) => r.toolCallId)).toEqual(["call_0", "call_0_2"]);
    expect(() => guard.close({ type: "success" })).not.toThrow();
  });

  it("goes on from the log of a run it took over: repeats the call left unanswered by its id, answers one cut off as not run", async () => {
    const args = '{"module":"memory","method":"read","input":{}}';
    const taken: AgUiEvent[] = [
      { type: EventType.TEXT_MESSAGE_START, messageId: "m0", role: "assistant" },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m0", delta: "Let me look." },
      { type: EventType.TEXT_MESSAGE_END, messageId: "m0" },
      { type: EventType.TOOL_CALL_START, toolCallId: "call_0", toolCallName: "project_cli", parentMessageId: "m0" },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "call_0", delta: args },
      { type: EventType.TOOL_CALL_END, toolCallId: "call_0" },
      { type: EventType.TOOL_CALL_START, toolCallId: "call_1", toolCallName: "project_cli", parentMessageId: "m0" },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "call_1", delta: '{"mod' },
    ];
    // The provider names its next call call_0 again: on the wire it must be a new id.
    const model = scriptedModel([toolStep("call_0", "project_cli", args), textStep("done")]);
    const { events, guard, cli } = await runAgent({ model, taken });
    expect(cli.run.mock.calls.map(([r]) => [r.toolCallId, r.args])).toEqual([
      ["call_0", JSON.parse(args)],
      ["call_0_2", JSON.parse(args)],
    ]);
    const results = ofType(events, EventType.TOOL_CALL_RESULT);
    expect(results.map((e) => e.toolCallId)).toEqual(["call_0", "call_1", "call_0_2"]);
    expect(results[1]!.content).toContain("CALL_INTERRUPTED");
    // The model goes on from the repeated call's result, not from the call cut off.
    const prompt = JSON.stringify(model.doStreamCalls[0]!.prompt);
    expect(prompt).toContain("call_0");
    expect(prompt).not.toContain("call_1");
    expect(() => guard.close({ type: "success" })).not.toThrow();
  });

  it("leaves a client-declared tool call open for the client and ends the run there", async () => {
    const tools = [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
    const model = scriptedModel([toolStep("call_w", "get_weather", '{"city":"Paris"}'), textStep("never")]);
    const { events, guard, cli } = await runAgent({ model, input: input("weather in Paris?", { tools }) });
    expect(model.doStreamCalls).toHaveLength(1);
    expect(model.doStreamCalls[0]!.tools?.map((t) => t.name).sort()).toEqual(["get_weather", "project_cli"]);
    expect(typesOf(events)).toEqual(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_END"]);
    expect(ofType(events, EventType.TOOL_CALL_START)[0]).toMatchObject({ toolCallId: "call_w", toolCallName: "get_weather" });
    expect(cli.run).not.toHaveBeenCalled();
    expect(() => guard.close({ type: "success" })).not.toThrow();
  });

  it("puts the client's tools, context, memory and time in the system prompt", async () => {
    const tools = [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }];
    const model = scriptedModel([textStep("ok")]);
    await runAgent({
      model,
      input: input("hi", { tools, context: [{ description: "Current page", value: "inbox" }], forwardedProps: { timeZone: "America/New_York" } }),
      context: { ...emptyContext, memoryFacts: [{ key: "prefers_mornings", value: "Prefers mornings" }] },
    });
    const system = model.doStreamCalls[0]!.prompt[0]!;
    expect(system.role).toBe("system");
    const text = system.content as string;
    expect(text).toContain(buildToolsPrompt(tools));
    expect(text).toContain("- Current page: inbox");
    expect(text).toContain("- prefers_mornings: Prefers mornings");
    expect(text).toContain("Thursday, January 1, 2026, 22:00 in the user's time zone America/New_York");
  });

  it("says nothing about client tools when there are none", async () => {
    const model = scriptedModel([textStep("ok")]);
    await runAgent({ model });
    const text = model.doStreamCalls[0]!.prompt[0]!.content as string;
    expect(text).not.toContain("TOOLS_START");
    expect(model.doStreamCalls[0]!.tools?.map((t) => t.name)).toEqual(["project_cli"]);
  });

  it("stops the model call when the run is aborted", async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doStream: async (options: LanguageModelV4CallOptions) => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(c) {
            c.enqueue({ type: "stream-start", warnings: [] });
            c.enqueue({ type: "text-start", id: "0" });
            c.enqueue({ type: "text-delta", id: "0", delta: "Thinking" });
            options.abortSignal?.addEventListener("abort", () => c.error(Object.assign(new Error("aborted"), { name: "AbortError" })));
          },
        }),
      }),
    });
    const emitted: string[] = [];
    const runner = createAgentRunner({ model: () => ({ model, info: INFO }), projectCli: fakeCli().binding, loadContext: async () => emptyContext, now: () => NOW });
    const running = runner.run({
      run: RUN,
      input: input("hi"),
      generation: {},
      signal: controller.signal,
      emit: (e) => {
        emitted.push(e.type);
        if (e.type === EventType.TEXT_MESSAGE_CONTENT) controller.abort("cancelled");
      },
    });
    await running.catch(() => undefined);
    expect(emitted).toEqual(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]);
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
  });

  it("fails the run with a clean error when the provider fails", async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([{ type: "stream-start", warnings: [] }, { type: "error", error: new Error("boom with request body") }]),
      }),
    });
    await expect(runAgent({ model })).rejects.toMatchObject({ code: "UPSTREAM_ERROR", message: "The model call failed" });
  });
});
