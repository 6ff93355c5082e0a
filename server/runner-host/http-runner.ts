import "server-only";
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import { logger } from "../logger";
import type { AgentRunRequest } from "../protocols/runner/context";
import type { AgentRunnerManifest } from "../protocols/runner/manifest";
import { MAX_RESULT_BYTES } from "../protocols/runner/result";
import { RunnerFailure, type Runner, type RunnerInput, type RunnerResult } from "../kernel/runs";
import type { ArtifactRow } from "./repository/artifacts";
import { buildRunContext } from "./context";
import type { EntryEvent } from "./entry-events";
import { ndjsonLines } from "../protocols/runner/ndjson-lines";
import type { RunAuthorization } from "./policy";
import type { BindingRow, EndpointRow } from "./repository/runners";
import { attachRunEmitter } from "./live-delivery";
import { hostEffects } from "./result-effects";
import { saveRunnerResults } from "./result-log";
import { ResultStreamProcessor } from "./result-stream";
import { openHostToolCalls, receiveHandOvers, type HostToolCall } from "./result-tool-calls";
import { carriedToRunner } from "./result-carried";
import { approvalInterrupt } from "../approvals/interrupt";
import { pendingCardMessage } from "../approvals/gate";
import { unsealRunnerSecret } from "./secrets";
import { context as otelContext, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { ATTR_GEN_AI_AGENT_ID, ATTR_GEN_AI_OPERATION_NAME } from "@opentelemetry/semantic-conventions/incubating";
import { traceHeaders, tracer } from "../telemetry/tracing";

// RUN_AGENT over HTTP: POST {base}/run with the AgentRunRequest, read the NDJSON result
// stream as it arrives. Cancel and deadline abort the request: the runner sees its
// connection close. No database connection is held while the stream is open.

const CONNECT_TIMEOUT_MS = 10_000;

export type ExternalRunnerSpec = {
  endpoint: EndpointRow;
  manifest: AgentRunnerManifest;
  binding: BindingRow | null;
  authorization: RunAuthorization;
  entry: EntryEvent;
  via: "session" | "api_key";
  attachments: () => Promise<ArtifactRow[]>;
  knowledgeBaseNames: Map<string, string>;
};

function post(url: URL, body: string, secret: string, signal: AbortSignal, traceparent: Record<string, string>): Promise<http.IncomingMessage> {
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: "POST",
      signal,
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        accept: "application/x-ndjson",
        "content-length": Buffer.byteLength(body),
        ...traceparent,
      },
    });
    const connectTimer = setTimeout(() => req.destroy(new RunnerFailure("runner.unreachable", `The runner did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`, true)), CONNECT_TIMEOUT_MS);
    req.once("response", (res) => {
      clearTimeout(connectTimer);
      resolve(res);
    });
    req.once("error", (err) => {
      clearTimeout(connectTimer);
      reject(err);
    });
    req.end(body);
  });
}

async function readErrorBody(res: Readable): Promise<string> {
  let text = "";
  for await (const chunk of res) {
    text += String(chunk);
    if (text.length > 500) break;
  }
  res.destroy();
  return text.slice(0, 300).replace(/\s+/g, " ").trim();
}

/** The run's context, with what earlier runs carry to this one (approved calls, client tool answers). */
async function contextFor(spec: ExternalRunnerSpec, processor: ResultStreamProcessor, { run, input, generation }: RunnerInput): Promise<AgentRunRequest> {
  const context = await buildRunContext({
    run,
    input,
    via: spec.via,
    entry: spec.entry,
    manifest: spec.manifest,
    binding: spec.binding,
    authorization: spec.authorization,
    attachments: await spec.attachments(),
    knowledgeBaseNames: spec.knowledgeBaseNames,
    generation,
  });
  const carried = await carriedToRunner({ run, input });
  Object.assign(context.metadata, carried.metadata);
  processor.carriedParents = carried.parents;
  return { runner_id: spec.manifest.id, runner_name: spec.manifest.name, context };
}

/** POSTs the run to the runner; its answer's NDJSON stream, or the runner's failure to answer. */
async function openResults(spec: ExternalRunnerSpec, request: AgentRunRequest, signal: AbortSignal, span: Span): Promise<http.IncomingMessage> {
  let res: http.IncomingMessage;
  try {
    res = await post(
      new URL(`${spec.endpoint.baseUrl}/run`),
      JSON.stringify(request),
      unsealRunnerSecret(spec.endpoint.secretSealed),
      signal,
      traceHeaders(trace.setSpan(otelContext.active(), span)),
    );
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof RunnerFailure) throw err;
    throw new RunnerFailure("runner.unreachable", `Could not reach the runner at ${spec.endpoint.baseUrl}`, true);
  }
  if (res.statusCode !== 200) {
    const detail = await readErrorBody(res);
    throw new RunnerFailure("runner.http_error", `The runner answered HTTP ${res.statusCode}${detail ? `: ${detail}` : ""}`, (res.statusCode ?? 0) >= 500);
  }
  return res;
}

/** Records why the run ended without the runner's own terminal result, and the usage a run.failed reported. */
function noteFailure(spec: ExternalRunnerSpec, processor: ResultStreamProcessor, err: unknown, { signal, reportUsage }: RunnerInput): void {
  if (signal.aborted) {
    const reason = signal.reason === "deadline" ? "deadline" : "cancelled";
    processor.hostNote(
      "run.failed",
      reason === "deadline"
        ? { code: "deadline_exceeded", message: "The run passed its deadline; the host closed the runner's stream", retryable: true }
        : { code: "cancelled", message: "The run was cancelled; the host closed the runner's stream", retryable: false },
    );
  } else if (err instanceof RunnerFailure && !processor.finished) {
    processor.hostNote("run.failed", { code: err.code, message: err.message, retryable: err.retryable });
  }
  // A run.failed that says what the run used is recorded with the failure.
  const usage = processor.reportedUsage;
  if (usage) reportUsage?.(usage, spec.manifest.id);
}

export function createHttpRunner(spec: ExternalRunnerSpec): Runner {
  return {
    id: spec.manifest.id,
    async run(input: RunnerInput): Promise<RunnerResult> {
      const { run, signal, emit } = input;
      // The runner call's span; the runner continues its trace from the `traceparent` header.
      const span = tracer().startSpan(`runner ${spec.manifest.id}`, {
        kind: SpanKind.CLIENT,
        attributes: { [ATTR_GEN_AI_OPERATION_NAME]: "invoke_agent", [ATTR_GEN_AI_AGENT_ID]: spec.manifest.id, "server.address": new URL(spec.endpoint.baseUrl).host },
      });
      // Platform actions the runner asks for (here or on another instance) stream into this run.
      const detach = attachRunEmitter(run.id, emit);
      const processor = new ResultStreamProcessor(run.id, (event, extras) => emit(event, extras), hostEffects({ run, spec }), (detail, type) =>
        logger.warn({ runId: run.id, runner: spec.manifest.id, type, reason: detail }, "runner result not applied"),
      );
      // The runner's tools/call answers join its result stream as they happen (result-tool-calls.ts).
      const hostToolCall = (call: HostToolCall) => {
        try {
          processor.hostToolCall(call);
        } catch (err) {
          // The runner has its answer either way; a call the run's sequence cannot take is logged, not fatal.
          logger.warn({ err, runId: run.id, toolCallId: call.toolCallId }, "a host tool call could not join the run's events");
        }
      };
      const closeHostToolCalls = openHostToolCalls(run.id, hostToolCall);
      const handOvers = receiveHandOvers(run.id, hostToolCall);
      try {
        const res = await openResults(spec, await contextFor(spec, processor, input), signal, span);
        for await (const item of ndjsonLines(res, MAX_RESULT_BYTES)) {
          if ("oversize" in item) processor.oversize(item.oversize);
          else processor.accept(item.line);
          if (processor.finished) break;
        }
        res.destroy();
        if (signal.aborted) throw signal.reason;
        await handOvers.drain();
        const { usage, finishReason, awaiting } = await processor.finish();
        const result = { usage, model: spec.manifest.id, result: { runner: spec.manifest.id, ...(finishReason ? { finish_reason: finishReason } : {}), ...(usage ? { usage } : {}) } };
        if (awaiting.length === 0) return result;
        // Writes held for a person: the run ends waiting for them, as the built-in agent's runs do.
        return { ...result, interrupts: awaiting.map((a) => approvalInterrupt(a.row)), closingMessages: awaiting.map((a) => pendingCardMessage(a.row, a.parentMessageId)) };
      } catch (err) {
        noteFailure(spec, processor, err, input);
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof RunnerFailure ? err.code : "runner call failed" });
        throw err;
      } finally {
        closeHostToolCalls();
        handOvers.close();
        detach();
        span.end();
        await saveRunnerResults({ runId: run.id, records: processor.records });
      }
    },
  };
}
