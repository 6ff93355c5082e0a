import "server-only";
import { runHttpRequest, transformChunks, transformHttpEventStream, type BaseEvent, type Message, type RunAgentInput as WireRunAgentInput } from "@ag-ui/client";
import type { ResumeEntry } from "@ag-ui/core";
import type { Observable } from "rxjs";
import { claimAgentResume, recordAgentInterrupts, releaseAgentResume } from "../../approvals/agent-interrupts";
import { env } from "../../env";
import { userMessageParts } from "../../protocols/ag-ui/run-input";
import { logger } from "../../logger";
import { mayConnectTo } from "../../net/public-address";
import type { AgentRunnerManifest } from "../../protocols/runner/manifest";
import { RunnerFailure, type Runner, type RunnerInput, type RunnerResult } from "../../kernel/runs";
import type { EndpointRow } from "../repository/runners";
import { agentOptionsOf, unsealAgentHeaders, type AgUiAgentOptions } from "./register";
import { AgUiRelay, type RelayEnd } from "./relay";

// RUN_AGENT for an agent that serves AG-UI: POST a RunAgentInput built from the thread, read the
// agent's SSE (or protobuf) events with @ag-ui/client's own HTTP transport, and relay them into
// the run through `emit`: the engine's sequence guard, event log, followers and thread as for
// every runner. Dispatch is the durable host and the agent stateless: each run carries the thread.

export type AgUiAgentSpec = {
  endpoint: EndpointRow;
  manifest: AgentRunnerManifest;
  /** The thread's id as the run's clients see it (its RUN_STARTED's). */
  threadId: string;
  /** The thread's messages as AG-UI messages, the run's new ones included. */
  history: () => Promise<Message[]>;
};

const STREAM_TYPES = ["text/event-stream", "application/vnd.ag-ui.event+proto"];

/**
 * What the agent is sent: the thread, what the client brought with its run, and the answers to
 * the agent's interrupts this run carries (claimed before the history is read, so the thread's
 * pending cards are gone from it; approvals/agent-interrupts.ts).
 */
async function agentInput(spec: AgUiAgentSpec, { run, input }: RunnerInput, resume: ResumeEntry[]): Promise<WireRunAgentInput> {
  return {
    threadId: spec.threadId,
    runId: run.runId,
    messages: await spec.history(),
    tools: input.tools,
    context: input.context,
    state: input.state ?? {},
    forwardedProps: input.forwardedProps ?? {},
    ...(resume.length > 0 ? { resume } : {}),
  } as WireRunAgentInput;
}

/** The start of an error answer's body, for the run's error (never the whole of it). */
async function errorDetail(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < 500) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // What was read is enough.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, 300).replace(/\s+/g, " ").trim();
}

/** POSTs the run; the agent's streaming answer, or why there is none. */
async function openStream(spec: AgUiAgentSpec, body: string, options: AgUiAgentOptions, { signal, request }: { signal: AbortSignal; request: AbortSignal }): Promise<Response> {
  const url = spec.endpoint.baseUrl;
  if (!(await mayConnectTo(new URL(url).hostname, env.RUNNER_ALLOWED_HOSTS))) {
    throw new RunnerFailure("agent.unreachable", `The agent at ${url} is not on a public address (its host is not in RUNNER_ALLOWED_HOSTS)`);
  }
  const connect = AbortSignal.timeout(options.connect_seconds * 1000);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { ...unsealAgentHeaders(spec.endpoint.secretSealed), "content-type": "application/json", accept: "text/event-stream" },
      body,
      redirect: "error",
      signal: AbortSignal.any([request, connect]),
    });
  } catch {
    if (signal.aborted) throw signal.reason;
    if (connect.aborted) throw new RunnerFailure("agent.unreachable", `The agent at ${url} did not answer within ${options.connect_seconds} s`, true);
    throw new RunnerFailure("agent.unreachable", `Could not reach the agent at ${url}`, true);
  }
  if (!res.ok) {
    const detail = await errorDetail(res);
    throw new RunnerFailure("agent.http_error", `The agent answered HTTP ${res.status}${detail ? `: ${detail}` : ""}`, res.status >= 500);
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!STREAM_TYPES.includes(type)) {
    await res.body?.cancel().catch(() => undefined);
    throw new RunnerFailure("agent.bad_response", `The agent answered ${type || "no content type"}, not an AG-UI event stream (text/event-stream)`);
  }
  return res;
}

/**
 * Relays the agent's events until its run ends; rejects with the reason when it fails, stalls
 * (`stall_seconds` without an event), or its stream closes without a terminal event.
 */
function relayEvents(events$: Observable<BaseEvent>, relay: AgUiRelay, stallSeconds: number, signal: AbortSignal): Promise<Exclude<RelayEnd, { kind: "failed" }>> {
  return new Promise((resolve, reject) => {
    let stall: NodeJS.Timeout | undefined;
    const settle = () => {
      clearTimeout(stall);
      signal.removeEventListener("abort", onAbort);
      subscription.unsubscribe();
      const end = relay.end;
      if (signal.aborted) reject(signal.reason);
      else if (end && end.kind !== "failed") resolve(end);
      else reject(end?.failure ?? new RunnerFailure("agent.incomplete", "The agent closed its event stream without RUN_FINISHED or RUN_ERROR"));
    };
    const armStall = () => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        relay.fail("agent.stalled", `The agent sent no event for ${stallSeconds} s; the run was stopped`);
        settle();
      }, stallSeconds * 1000);
    };
    const onAbort = () => settle();
    signal.addEventListener("abort", onAbort, { once: true });
    armStall();
    const subscription = events$.subscribe({
      next: (event) => {
        relay.accept(event);
        if (relay.end) queueMicrotask(settle);
        else armStall();
      },
      error: (err: unknown) => {
        relay.fail("agent.malformed_stream", `The agent's event stream could not be read: ${err instanceof Error ? err.message : String(err)}`);
        queueMicrotask(settle);
      },
      complete: () => queueMicrotask(settle),
    });
  });
}

export function createAgUiRunner(spec: AgUiAgentSpec): Runner {
  return {
    id: spec.manifest.id,
    async run(input: RunnerInput): Promise<RunnerResult> {
      const options = agentOptionsOf(spec.endpoint);
      // Aborting it cuts the agent's request: cancel, deadline, a stall, or the end of the relay.
      // Always as an AbortError, the one reason @ag-ui/client's reader takes as a plain stop.
      const request = new AbortController();
      const cut = () => request.abort(new DOMException("The relay stopped reading the agent", "AbortError"));
      // A new user message supersedes the agent's interrupts still waiting; decided ones are answered.
      const carried = await claimAgentResume(input.run, userMessageParts(input.input).fromUser);
      const relay = new AgUiRelay(input.emit, carried.calls);
      input.signal.addEventListener("abort", cut, { once: true });
      if (input.signal.aborted) cut();
      let reached = false;
      try {
        const res = await openStream(spec, JSON.stringify(await agentInput(spec, input, carried.resume)), options, { signal: input.signal, request: request.signal });
        reached = true;
        const events$ = transformChunks()(transformHttpEventStream(runHttpRequest(() => Promise.resolve(res))));
        const end = await relayEvents(events$, relay, options.stall_seconds, input.signal);
        if (end.kind === "interrupted") {
          // The run ends as the built-in agent's waiting runs do: RUN_FINISHED with the interrupt outcome.
          const waiting = await recordAgentInterrupts(input.run, end.interrupts, (id) => relay.callOf(id));
          return { usage: relay.usage, model: spec.manifest.id, ...waiting };
        }
        return { usage: relay.usage, model: spec.manifest.id, result: { agent: spec.manifest.id, ...(end.result !== undefined ? { result: end.result } : {}) } };
      } catch (err) {
        // A failed run still records what the agent said it used.
        if (relay.usage) input.reportUsage?.(relay.usage, spec.manifest.id);
        if (!reached) await releaseAgentResume(input.run).catch(() => undefined);
        if (err instanceof RunnerFailure) logger.warn({ runId: input.run.id, agent: spec.manifest.id, code: err.code, reason: err.message }, "AG-UI agent run failed");
        throw err;
      } finally {
        input.signal.removeEventListener("abort", cut);
        cut();
      }
    },
  };
}
