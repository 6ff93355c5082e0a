// Helpers for testing a runner without a host: a minimal valid AgentRunContext.
import { runContextSchema, type AgentRunContext } from "../../server/protocols/runner/context";

type ContextInput = Parameters<typeof runContextSchema.parse>[0];

/** A context as the host would send for a web chat message `text`; `overrides` replace top-level fields. */
export function testRunContext(text: string, overrides: Partial<Record<keyof AgentRunContext, unknown>> = {}): AgentRunContext {
  const runId = crypto.randomUUID();
  const input: ContextInput = {
    run_id: runId,
    trigger: { type: "message.received", source: "webui", timestamp: Date.now() },
    event: { event_id: crypto.randomUUID(), event_type: "message.received", source: "webui" },
    conversation: { conversation_id: crypto.randomUUID() },
    input: { text },
    delivery: { surface: "webui", supports_streaming: true },
    resources: {},
    context: { inline_policy: { mode: "current_event" }, available_apis: {} },
    state: {},
    runtime: { trace_id: runId, deadline_at: Date.now() / 1000 + 600 },
    ...overrides,
  };
  return runContextSchema.parse(input);
}
