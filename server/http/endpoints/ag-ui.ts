import "server-only";
import { EventType } from "@ag-ui/core";
import { AppError } from "../../kernel/errors";
import type { EventEncoding } from "../../protocols/ag-ui/encoding";
import { MAX_CONVERSATION_PAYLOAD_BYTES, RUN_INPUT_ERRORS } from "../../protocols/ag-ui/run-input-rules";
import { parseRunAgentInput } from "../../protocols/ag-ui/run-input";
import { admitFollower, releasingOnError, type FollowerSlot } from "../../runs/follower-caps";
import { TERMINAL_EVENT_TYPES, type EventRecord } from "../../kernel/runs";
import { followConversationRun, snapshotRecord, startConversationRun, type ConversationStart } from "../../runs/service/conversation-runs";
import { taskAccepted } from "../../runs/service/runs";
import { agentCapabilities } from "../../runs/service/capabilities";
import { parsedText } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";
import { eventEncodingFor, sseResponse, streamOrJson } from "../sse";

// Records outside the run's log (a MESSAGES_SNAPSHOT, a snapshot answer's own start and end)
// carry seq 0 and go out without an SSE id (see the encodings), so a client's Last-Event-ID stays a log position.
const record = (event: { type: EventType } & Record<string, unknown>): EventRecord => ({ seq: 0, type: event.type, json: JSON.stringify(event) });

/** The events of a joined run: its RUN_STARTED, the thread up to the run, then the run's events from its start. */
async function* joined(events: AsyncIterable<EventRecord[]>, snapshot: EventRecord): AsyncGenerator<EventRecord[]> {
  let first = true;
  for await (const batch of events) {
    if (first && batch.length > 0) {
      first = false;
      yield [batch[0]!, snapshot, ...batch.slice(1)];
    } else yield batch;
  }
}

function streamOf(start: ConversationStart, ids: { threadId: string; runId: string }, encoding: EventEncoding, slot: FollowerSlot): Response {
  switch (start.kind) {
    case "run":
      return sseResponse(slot.forRun(start.run.id).holding((signal) => followConversationRun({ run: start.run, after: 0, signal, requester: start.created })), {
        headers: { "x-task-id": start.run.id },
        encoding,
        final: TERMINAL_EVENT_TYPES,
      });
    case "attach": {
      const snapshot = snapshotRecord(start.snapshot);
      return sseResponse(slot.forRun(start.run.id).holding((signal) => joined(followConversationRun({ run: start.run, after: 0, signal, requester: false }), snapshot)), {
        headers: { "x-task-id": start.run.id },
        encoding,
        final: TERMINAL_EVENT_TYPES,
      });
    }
    case "snapshot": {
      slot.release();
      const records = [
        record({ type: EventType.RUN_STARTED, threadId: ids.threadId, runId: ids.runId }),
        snapshotRecord(start.snapshot),
        ...(start.state ? [record({ type: EventType.STATE_SNAPSHOT, snapshot: start.state })] : []),
        record({ type: EventType.RUN_FINISHED, threadId: ids.threadId, runId: ids.runId }),
      ];
      return sseResponse(async function* () {
        yield records;
      }, { encoding, final: TERMINAL_EVENT_TYPES });
    }
  }
}

/** POST /api/v1/ag-ui: the AG-UI-native door, for clients that resend the conversation they hold (SSE, else 202). */
export const conversationRunEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/ag-ui",
  auth: "claimed-caller",
  negotiate: streamOrJson,
  body: parsedText({
    maxBytes: MAX_CONVERSATION_PAYLOAD_BYTES,
    tooLargeMessage: RUN_INPUT_ERRORS.conversationTooLarge,
    parse: (text) => parseRunAgentInput(text, { conversation: true }),
  }),
  async handle({ principal, claimedKey, body: { input }, negotiated, origin, keepAlive }) {
    // Which stream a client can read depends on its protocol version: refused before anything starts.
    const encoding = negotiated.stream ? eventEncodingFor(negotiated.accept, input.protocolVersion) : null;
    // A stream past the follower caps is refused before its run starts.
    const slot = encoding ? admitFollower({ userId: principal.userId }) : null;
    const start = await releasingOnError(slot, () => startConversationRun({ userId: principal.userId, input, via: principal.via, apiKeyId: principal.apiKeyId, claimedKey, apiKeyHash: principal.apiKeyHash, requestOrigin: origin(), keepAlive }));
    if (encoding && slot) return streamOf(start, input, encoding, slot);
    if (start.kind === "snapshot") {
      throw new AppError("BAD_REQUEST", "messages brings nothing new for the agent (no new user message or tool answer) and the thread has no run in progress", {
        field: "messages",
      });
    }
    // The thread as the client named it (a name other than a UUID maps to a thread of its own: docs/ag-ui.md).
    return jsonResponse({ ...taskAccepted(start.run, start.kind === "run" ? start.position : undefined), threadId: input.threadId }, 202);
  },
});


/** GET /api/v1/ag-ui/info: what the agent behind POST /api/v1/ag-ui can do (AG-UI 1.0 AgentCapabilities). */
export const conversationInfoEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/ag-ui/info",
  auth: "none",
  handle: async () => {
    const capabilities = agentCapabilities();
    return jsonResponse({ agents: { dispatch: { name: "dispatch", description: capabilities.identity?.description, capabilities } } });
  },
});
