// The normative validation table of spec/agent-run-input.md, applied to a parsed JSON body
// in the table's order. Only the structure a rule has to read is checked before that rule
// (threadId before the UUID rule, message roles and user content before the user-text
// rule, ...), so a table rule answers with its exact message whenever it applies; every
// other structural problem is left to the full schema that runs after the table.

export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const MAX_RUN_ID_CHARS = 128;
export const MAX_MESSAGES = 200;
export const MAX_USER_TEXT_CHARS = 10_000;
// POST /api/v1/ag-ui: AG-UI clients resend the conversation they hold with every run, so the
// body carries the history. 4 MB stays under the request-body limit of serverless hosts
// (Vercel's is 4.5 MB); 2,000 messages is ten times the seed's single-run limit.
export const MAX_CONVERSATION_PAYLOAD_BYTES = 4 * 1024 * 1024;
export const MAX_CONVERSATION_MESSAGES = 2_000;
// POST /api/v1/ag-ui takes any string id, as AG-UI does (thread_3f2a…, LangGraph's, nanoids):
// thread, message and tool call ids up to this many characters, run ids up to MAX_RUN_ID_CHARS.
export const MAX_CLIENT_ID_CHARS = 256;

export const RUN_INPUT_ERRORS = {
  payloadTooLarge: "RunAgentInput payload exceeds size limit",
  conversationTooLarge: `RunAgentInput payload exceeds size limit (${MAX_CONVERSATION_PAYLOAD_BYTES} bytes); start a new thread or send fewer messages`,
  conversationMessagesLimit: `RunAgentInput.messages exceeds limit (${MAX_CONVERSATION_MESSAGES})`,
  invalidJson: "RunAgentInput body is not valid JSON",
  threadId: "threadId must be a valid UUID",
  clientIdLength: `must be 1 to ${MAX_CLIENT_ID_CHARS} characters`,
  clientIdCharacters: "must not contain control characters or unpaired surrogates",
  runIdLength: "runId exceeds length limit",
  messagesLimit: "RunAgentInput.messages exceeds limit",
  userTextLimit: "RunAgentInput user message text exceeds limit",
  exactlyOneUser: "RunAgentInput.messages must contain exactly one user message",
  firstMustBeUser: "RunAgentInput.messages[0].role must be user",
  binaryMimeType: "binary content requires image mimeType",
  binaryUrl: "binary content requires url",
  binaryData: "binary content data is not allowed",
  documentMimeType: "document content requires a PDF, text/plain, text/markdown, text/csv or application/json mimeType",
} as const;

/** The document types a `document` part may name (AG-UI 1.0); the bytes are checked at upload (server/files). */
export const DOCUMENT_MIME_TYPES = ["application/pdf", "text/plain", "text/markdown", "text/csv", "application/json"] as const;

export function isDocumentMimeType(value: unknown): value is (typeof DOCUMENT_MIME_TYPES)[number] {
  return typeof value === "string" && (DOCUMENT_MIME_TYPES as readonly string[]).includes(value);
}

export const MESSAGE_ROLES = ["user", "assistant", "system", "tool", "developer", "reasoning", "activity"] as const;
// "binary" is the spec's block; the rest are AG-UI 1.0 content parts. A document part names an
// uploaded document (PDF, text, Markdown, CSV, JSON); audio and video parts are recognised only
// so that they fail the image rule with its message.
const USER_PART_TYPES = ["text", "binary", "image", "audio", "video", "document"] as const;
const SOURCE_TYPES = ["url", "data", "file"] as const;

// Canonical 8-4-4-4-12 form, any version and variant: what PostgreSQL's uuid type and
// Python's uuid.UUID accept in this spelling, so no client-generated id is refused for
// its version bits.
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 6838 restricted-name characters after "image/"; parameters are not accepted.
const IMAGE_MIME_PATTERN = /^image\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

export type RunInputFailure = { ok: false; status: 400 | 413; message: string; field?: string };

export function isImageMimeType(value: unknown): value is string {
  return typeof value === "string" && IMAGE_MIME_PATTERN.test(value);
}

export function isNonBlankString(value: unknown): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

// A data: URL is inline data under another name; the spec's "URL only" is about where the
// bytes live, not about the field that carries them.
export function isDataUrl(value: string): boolean {
  return /^\s*data:/i.test(value);
}

/** Characters as the spec counts them: Unicode code points, not UTF-16 units. */
export function countCodePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** UTF-8 length without allocating an encoded copy of a body that may be huge. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The text of a user message's content as the model sees it: text parts joined with nothing. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (isRecord(part) && part.type === "text" && typeof part.text === "string") text += part.text;
  }
  return text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const failure = (message: string, field?: string): RunInputFailure =>
  field === undefined ? { ok: false, status: 400, message } : { ok: false, status: 400, message, field };

const structural = (field: string, problem: string): RunInputFailure => failure(`${field}: ${problem}`, field);

const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;

function requireString(body: Record<string, unknown>, key: string): RunInputFailure | string {
  const value = body[key];
  if (value === undefined || value === null) return structural(key, "required");
  if (typeof value !== "string") return structural(key, "expected string");
  return value;
}

// Control characters (NUL above all, which PostgreSQL text cannot hold) and unpaired surrogates
// (which UTF-8 cannot encode, so the stored id would not be the one sent) are refused.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isStorableText(id: string): boolean {
  return !CONTROL_CHARACTER.test(id) && !UNPAIRED_SURROGATE.test(id);
}

/** Whether `id` is an id the AG-UI door takes: any string AG-UI allows that can be stored as sent. */
export function isClientId(id: string): boolean {
  const length = countCodePoints(id);
  return length > 0 && length <= MAX_CLIENT_ID_CHARS && isStorableText(id);
}

/** The rule isClientId checks, as an error message says it after the field's name. */
export const CLIENT_ID_RULE = `must be 1 to ${MAX_CLIENT_ID_CHARS} characters without control characters or unpaired surrogates`;

function clientIdFailure(id: unknown, field: string): RunInputFailure | undefined {
  if (typeof id !== "string") return undefined; // the schema names the wrong type
  const length = countCodePoints(id);
  if (length === 0 || length > MAX_CLIENT_ID_CHARS) return structural(field, RUN_INPUT_ERRORS.clientIdLength);
  return isStorableText(id) ? undefined : structural(field, RUN_INPUT_ERRORS.clientIdCharacters);
}

// Message ids, tool messages' toolCallId and assistant messages' tool call ids.
function messageIdFailure(messages: Record<string, unknown>[]): RunInputFailure | undefined {
  for (const [i, message] of messages.entries()) {
    const found = clientIdFailure(message.id, `messages[${i}].id`) ?? clientIdFailure(message.toolCallId, `messages[${i}].toolCallId`);
    if (found) return found;
    if (!Array.isArray(message.toolCalls)) continue;
    for (const [j, call] of message.toolCalls.entries()) {
      const callFailure = isRecord(call) ? clientIdFailure(call.id, `messages[${i}].toolCalls[${j}].id`) : undefined;
      if (callFailure) return callFailure;
    }
  }
  return undefined;
}

type MediaPart = { field: string; part: Record<string, unknown> };

// The structure the user-text, user-count and first-role rules read: every message's role,
// and the user messages' content down to part types, text and image sources.
function checkMessageStructure(messages: unknown[]): RunInputFailure | undefined {
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!isRecord(message)) return structural(at, "expected object");
    if (message.role === undefined || message.role === null) return structural(`${at}.role`, "required");
    if (typeof message.role !== "string" || !(MESSAGE_ROLES as readonly string[]).includes(message.role)) {
      return structural(`${at}.role`, oneOf(MESSAGE_ROLES));
    }
    if (message.role !== "user") continue;
    const content = message.content;
    if (content === undefined || content === null) return structural(`${at}.content`, "required");
    if (typeof content === "string") continue;
    if (!Array.isArray(content)) return structural(`${at}.content`, "expected string or array of content parts");
    for (const [j, part] of content.entries()) {
      const partAt = `${at}.content[${j}]`;
      if (!isRecord(part)) return structural(partAt, "expected object");
      if (typeof part.type !== "string" || !(USER_PART_TYPES as readonly string[]).includes(part.type)) {
        return structural(`${partAt}.type`, oneOf(USER_PART_TYPES));
      }
      if (part.type === "text" && typeof part.text !== "string") return structural(`${partAt}.text`, "expected string");
      if (part.type !== "text" && part.type !== "binary") {
        if (!isRecord(part.source)) return structural(`${partAt}.source`, "expected object");
        if (typeof part.source.type !== "string" || !(SOURCE_TYPES as readonly string[]).includes(part.source.type)) {
          return structural(`${partAt}.source.type`, oneOf(SOURCE_TYPES));
        }
      }
    }
  }
  return undefined;
}

function mediaParts(message: Record<string, unknown>, index: number): MediaPart[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.flatMap((part: Record<string, unknown>, j) =>
    part.type === "text" ? [] : [{ field: `messages[${index}].content[${j}]`, part }],
  );
}

const sourceOf = (part: Record<string, unknown>) => part.source as Record<string, unknown>;

function mimeTypeFailure({ field, part }: MediaPart): RunInputFailure | undefined {
  if (part.type === "binary") {
    return isImageMimeType(part.mimeType) ? undefined : failure(RUN_INPUT_ERRORS.binaryMimeType, `${field}.mimeType`);
  }
  if (part.type === "document") {
    return isDocumentMimeType(sourceOf(part).mimeType) ? undefined : failure(RUN_INPUT_ERRORS.documentMimeType, `${field}.source.mimeType`);
  }
  if (part.type !== "image") return failure(RUN_INPUT_ERRORS.binaryMimeType, `${field}.type`);
  return isImageMimeType(sourceOf(part).mimeType) ? undefined : failure(RUN_INPUT_ERRORS.binaryMimeType, `${field}.source.mimeType`);
}

// A data source is inline data by construction, so it is judged by the data rule, not
// this one. A file source is a provider handle: nothing this server can fetch or sign.
function urlFailure({ field, part }: MediaPart): RunInputFailure | undefined {
  if (part.type === "binary") {
    return isNonBlankString(part.url) ? undefined : failure(RUN_INPUT_ERRORS.binaryUrl, `${field}.url`);
  }
  const source = sourceOf(part);
  if (source.type === "data") return undefined;
  if (source.type === "file") return failure(RUN_INPUT_ERRORS.binaryUrl, `${field}.source.type`);
  return isNonBlankString(source.value) ? undefined : failure(RUN_INPUT_ERRORS.binaryUrl, `${field}.source.value`);
}

function dataFailure({ field, part }: MediaPart): RunInputFailure | undefined {
  if (part.type === "binary") {
    if (part.data !== undefined && part.data !== null) return failure(RUN_INPUT_ERRORS.binaryData, `${field}.data`);
    return isDataUrl(part.url as string) ? failure(RUN_INPUT_ERRORS.binaryData, `${field}.url`) : undefined;
  }
  const source = sourceOf(part);
  if (source.type === "data") return failure(RUN_INPUT_ERRORS.binaryData, `${field}.source.type`);
  return isDataUrl(source.value as string) ? failure(RUN_INPUT_ERRORS.binaryData, `${field}.source.value`) : undefined;
}

/**
 * Applies the spec's table (after the size and JSON checks) to a parsed body. Rules run
 * one at a time across the whole input, so the first rule in table order wins even when a
 * later part also breaks an earlier rule. `conversation` is the AG-UI-native endpoint's
 * reading: the body holds the whole conversation, so the one-user-message rules and the
 * message limit give way to reconciliation (server/runs/service/conversation-runs.ts), and the
 * per-message rules apply to every user message.
 */
export function checkRunInputRules(body: Record<string, unknown>, opts: { conversation?: boolean } = {}): RunInputFailure | undefined {
  const threadId = requireString(body, "threadId");
  if (typeof threadId !== "string") return threadId;
  if (opts.conversation) {
    const idFailure = clientIdFailure(threadId, "threadId");
    if (idFailure) return idFailure;
  } else if (!UUID_PATTERN.test(threadId)) return failure(RUN_INPUT_ERRORS.threadId, "threadId");

  const runId = requireString(body, "runId");
  if (typeof runId !== "string") return runId;
  if (runId.length === 0) return structural("runId", "must not be empty");
  if (countCodePoints(runId) > MAX_RUN_ID_CHARS) return failure(RUN_INPUT_ERRORS.runIdLength, "runId");
  if (opts.conversation && !isStorableText(runId)) return structural("runId", RUN_INPUT_ERRORS.clientIdCharacters);

  const messages = body.messages;
  if (messages === undefined || messages === null) return structural("messages", "required");
  if (!Array.isArray(messages)) return structural("messages", "expected array");
  if (opts.conversation) {
    if (messages.length > MAX_CONVERSATION_MESSAGES) return failure(RUN_INPUT_ERRORS.conversationMessagesLimit, "messages");
  } else if (messages.length > MAX_MESSAGES) return failure(RUN_INPUT_ERRORS.messagesLimit, "messages");

  const structureFailure = checkMessageStructure(messages);
  if (structureFailure) return structureFailure;
  const records = messages as Record<string, unknown>[];
  if (opts.conversation) {
    const idFailure = messageIdFailure(records);
    if (idFailure) return idFailure;
  }

  for (const [i, message] of records.entries()) {
    if (message.role === "user" && countCodePoints(contentText(message.content)) > MAX_USER_TEXT_CHARS) {
      return failure(RUN_INPUT_ERRORS.userTextLimit, `messages[${i}].content`);
    }
  }
  let media: MediaPart[];
  if (opts.conversation) {
    media = records.flatMap((message, i) => (message.role === "user" ? mediaParts(message, i) : []));
  } else {
    if (records.filter((message) => message.role === "user").length !== 1) {
      return failure(RUN_INPUT_ERRORS.exactlyOneUser, "messages");
    }
    if (records[0]?.role !== "user") return failure(RUN_INPUT_ERRORS.firstMustBeUser, "messages[0].role");
    media = mediaParts(records[0], 0);
  }
  for (const rule of [mimeTypeFailure, urlFailure, dataFailure]) {
    for (const part of media) {
      const ruleFailure = rule(part);
      if (ruleFailure) return ruleFailure;
    }
  }
  return undefined;
}
