// defineRunner: one runner = its manifest + an async generator that yields results for a run.
import { describeIssues, manifestSchema, type AgentRunnerManifest, type AgentRunnerManifestInput } from "../../server/protocols/runner/manifest";
import type { AgentRunContext, AgentRunRequest } from "../../server/protocols/runner/context";
import type { HostClient } from "./host-client";
import type { RunOutput } from "./results";

/** What a run gets besides its context. */
export type RunTools = {
  /** Fires when the host cancels (closes the connection) or the server shuts down. Pass it to every await that can take long. */
  signal: AbortSignal;
  /** The whole request, for the rare runner that needs runner_name. */
  request: AgentRunRequest;
  /** The host API for this run (run_id, secret, deadline and signal filled in); needs createRunnerServer({ hostUrl }). */
  readonly host: HostClient;
};

export type RunFunction = (ctx: AgentRunContext, tools: RunTools) => AsyncIterable<RunOutput>;

export type RunnerDefinition = {
  /** The manifest as served on /runners: validated, defaults filled in. */
  manifest: AgentRunnerManifest;
  run: RunFunction;
};

/**
 * Checks the manifest against the protocol's strict schema now, so a typo fails at start-up
 * rather than as a skipped runner in the host's discovery warnings.
 */
export function defineRunner(def: { manifest: AgentRunnerManifestInput; run: RunFunction }): RunnerDefinition {
  const parsed = manifestSchema.safeParse(def.manifest);
  if (!parsed.success) {
    const id = typeof def.manifest?.id === "string" ? def.manifest.id : "(no id)";
    throw new Error(`Runner manifest ${id} is invalid: ${describeIssues(parsed.error, 5)}`);
  }
  return { manifest: parsed.data, run: def.run };
}
