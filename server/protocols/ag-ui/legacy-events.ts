import { EventType } from "@ag-ui/core";

// Runs are stored once, as AG-UI 1.0 events. AG-UI clients from before 1.0 send no
// RunAgentInput.protocolVersion: @ag-ui/client 0.0.59 (pinned by CopilotKit 1.75) and 0.0.48
// (@copilotkitnext 1.54). Each validates every event with its own @ag-ui/core schema and fails
// the whole run on the first it rejects. Fed every event type the event guard admits
// (legacy-events.test.ts does it through those clients' own HttpAgent), they reject exactly:
// - RUN_FINISHED.outcome: 0.0.59 knows only `{type: "success"}` and `{type: "interrupt",
//   interrupts}`, both strict, so a cancelled outcome, or a success carrying pendingToolCallIds,
//   fails the run. 0.0.48 has no outcome and passes it through unread.
// - RUN_STARTED.input: both require its tools and context (1.0 lets them default to []), and
//   0.0.48 reads only text and binary content parts.
// - TOOL_CALL_RESULT.content, and a tool message's content in MESSAGES_SNAPSHOT: a string only
//   (1.0 also allows content parts).
// - User messages in MESSAGES_SNAPSHOT: 0.0.48 reads only text and binary content parts, and
//   0.0.59 has no `file` source.
// Everything else passes both as stored: their event schemas keep fields they do not know,
// `metadata` included, so the tool card in TOOL_CALL_RESULT's metadata.ui_schema reaches their
// subscribers (0.0.59 also folds it into the tool message, as 1.0 does). What neither can read at
// all never reaches the log: the event guard refuses empty deltas (0.0.48 rejects them),
// SUBAGENT_* events (unknown to 0.0.48) and the CHUNK shorthands. A 1.0 client whose
// maxProtocolVersion is below 1.0 sends no protocolVersion either; it reads these forms too.

type Json = Record<string, unknown>;

/**
 * A stored event's JSON as a pre-1.0 client accepts it. Only the four types above are read;
 * any other event (every token's TEXT_MESSAGE_CONTENT) is returned as the same string.
 */
export function legacyEventJson(type: string, json: string): string {
  switch (type) {
    case EventType.RUN_STARTED:
      return rewritten(json, withoutInput);
    case EventType.RUN_FINISHED:
      return rewritten(json, withLegacyOutcome);
    case EventType.TOOL_CALL_RESULT:
      return rewritten(json, withTextContent);
    case EventType.MESSAGES_SNAPSHOT:
      return rewritten(json, withLegacyMessages);
    default:
      return json;
  }
}

function rewritten(json: string, downgrade: (event: Json) => Json): string {
  const event = JSON.parse(json) as Json;
  const legacy = downgrade(event);
  return legacy === event ? json : JSON.stringify(legacy);
}

// The client already holds the input it sent; RUN_STARTED.input only repeats it.
function withoutInput(event: Json): Json {
  if (!("input" in event)) return event;
  const { input: _input, ...rest } = event;
  return rest;
}

// Pre-1.0 AG-UI has no cancelled outcome: to those clients a cancelled run simply finished,
// with what it streamed so far. An outcome they read as it is stays as it is, and one cut down
// keeps its place: the event is then the stored bytes, as a replay in AG-UI 1.0 sends them.
function withLegacyOutcome(event: Json): Json {
  const outcome = event.outcome as { type?: unknown; interrupts?: unknown } | undefined;
  if (outcome === undefined) return event;
  const keys = Object.keys(outcome);
  if (outcome.type === "success") return keys.length === 1 ? event : { ...event, outcome: { type: "success" } };
  if (outcome.type === "interrupt") {
    return keys.length === 2 && keys[0] === "type" && keys[1] === "interrupts" ? event : { ...event, outcome: { type: "interrupt", interrupts: outcome.interrupts } };
  }
  const { outcome: _outcome, ...rest } = event;
  return rest;
}

// Content parts become the text Dispatch keeps for that tool message in the thread
// (server/runs/execute.ts), so the client's copy of the conversation matches the server's.
function textContent(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content);
}

function withTextContent(event: Json): Json {
  return typeof event.content === "string" ? event : { ...event, content: textContent(event.content) };
}

function withLegacyMessages(event: Json): Json {
  const messages = event.messages as Json[];
  let changed = false;
  const legacy = messages.map((message) => {
    const downgraded = legacyMessage(message);
    if (downgraded !== message) changed = true;
    return downgraded;
  });
  return changed ? { ...event, messages: legacy } : event;
}

function legacyMessage(message: Json): Json {
  if (typeof message.content === "string") return message;
  if (message.role === "tool") return { ...message, content: textContent(message.content) };
  if (message.role === "user") return { ...message, content: (message.content as Json[]).map(legacyPart) };
  return message;
}

// The binary part both pre-1.0 clients read (the shape AG-UI's media parts replaced): a
// mimeType and at least one of url, data or id.
function legacyPart(part: Json): Json {
  if (part.type === "text") return part;
  const source = part.source as { type: string; value: string; mimeType?: string };
  const mimeType = source.mimeType ?? "application/octet-stream";
  switch (source.type) {
    case "url":
      return { type: "binary", mimeType, url: source.value };
    case "data":
      return { type: "binary", mimeType, data: source.value };
    default:
      return { type: "binary", mimeType, id: source.value };
  }
}
