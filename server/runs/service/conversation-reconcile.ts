import { AppError } from "../../kernel/errors";
import { contentText } from "../../protocols/ag-ui/run-input-rules";
import type { Message, ToolMessage, UserMessage } from "../../protocols/ag-ui/run-input";
import type { KnownMessage } from "../repository/conversation";

// How POST /api/v1/ag-ui reads the conversation an AG-UI client resends with every run. The
// thread the server keeps is the truth for what the model sees; the client's copy only says
// what is new. Rules (README, "AG-UI frontends"):
// - user and tool messages the thread has (by id) are skipped, and must not have changed;
// - the new tail (the trailing user and tool messages the thread does not have) is tool answers
//   to the thread's open frontend tool calls, then at most one user message;
// - assistant messages are the server's own answers as the client assembled them (a tool call's
//   carrier message has no row of its own, and a stopped answer holds what the client got before
//   it left): skipped, never looked up (`known` holds none);
// - system and developer messages are the frontend's instructions for this run, not thread
//   messages: they reach the model with the run's context;
// - reasoning and activity messages are the client's view of the stream: ignored;
// - branches (docs/branches.md): a user message the thread has whose text the client changed is
//   an edit when nothing the client holds follows it but answers: the thread forks there. A
//   message the thread has only on another branch is a 409 (switch the thread's branch first).

export type ReconciledConversation = {
  /** The new tool answers (in order), then the new user message, if any. */
  tail: (UserMessage | ToolMessage)[];
  /** The client's system and developer messages, in order. */
  instructions: { role: "system" | "developer"; content: string }[];
  /** A user message of the thread's current branch whose text the client changed (an edit): the thread forks at it. */
  edited?: UserMessage;
  /** The newest of the client's user and tool messages the thread has (its seq), 0 for none. */
  matchedSeq: number;
  /** The thread's user message the client's conversation ends with (only answers after it, which a regenerate drops), if any. */
  endsWithUser?: KnownMessage;
};

/** The thread's messages by protocol id: the current branch's row where an edit left two. */
export function knownById(rows: readonly KnownMessage[]): Map<string, KnownMessage> {
  const known = new Map<string, KnownMessage>();
  for (const row of rows) if (!known.get(row.messageId)?.onBranch) known.set(row.messageId, row);
  return known;
}

export function toolMessageText(message: ToolMessage): string {
  const text = typeof message.content === "string" ? message.content : message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
  return message.error ? `Error: ${message.error}` : text;
}

function clientText(message: Message): string | null {
  switch (message.role) {
    case "user":
      return contentText(message.content);
    case "tool":
      return typeof message.content === "string" ? message.content : contentText(message.content);
    default:
      return null;
  }
}

const describe = (message: Message, index: number) => `messages[${index}] (${message.role} message ${JSON.stringify(message.id)})`;

type Indexed = { message: Message; index: number };

/** Where the new tail starts: after the last user or tool message the thread has (or the last assistant message before the tail). */
function tailStart(indexed: readonly Indexed[], known: ReadonlyMap<string, KnownMessage>): number {
  let start = indexed.length;
  while (start > 0) {
    const { message } = indexed[start - 1]!;
    if ((message.role === "user" || message.role === "tool") && !known.has(message.id)) start--;
    else break;
  }
  return start;
}

/** True for an edit: a changed user message of the current branch that only answers follow among what the client holds. */
function isEdit(indexed: readonly Indexed[], position: number, stored: KnownMessage): boolean {
  if (indexed[position]!.message.role !== "user" || stored.role !== "user" || !stored.onBranch) return false;
  return indexed.slice(position + 1).every(({ message }) => message.role === "assistant");
}

/** Checks the messages the thread has; answers the edited one, if any, and the newest matched seq. */
function checkKnown(indexed: readonly Indexed[], start: number, known: ReadonlyMap<string, KnownMessage>): { edited?: UserMessage; matchedSeq: number } {
  let matchedSeq = 0;
  for (let position = 0; position < start; position++) {
    const { message, index } = indexed[position]!;
    const stored = known.get(message.id);
    if (!stored) {
      if (message.role === "assistant") continue;
      throw new AppError(
        "BAD_REQUEST",
        `${describe(message, index)} is not in this thread and is not at the end of messages: only the newest user message and answers to open tool calls can be new; drop it or send it last`,
        { field: `messages[${index}]` },
      );
    }
    const text = clientText(message);
    if (stored.role === message.role && text !== null && text !== stored.content && isEdit(indexed, position, stored)) {
      return { edited: message as UserMessage, matchedSeq };
    }
    if (stored.role !== message.role || (text !== null && text !== stored.content)) {
      throw new AppError("CONFLICT", `${describe(message, index)} differs from the thread's message with that id; messages already in the thread cannot be changed (an edit is the last user message sent)`, {
        field: `messages[${index}]`,
        messageId: message.id,
      });
    }
    if (!stored.onBranch) {
      throw new AppError("CONFLICT", `${describe(message, index)} is on another branch of this thread; switch the thread to it first (POST /api/v1/threads/{threadId}/branch)`, {
        field: `messages[${index}]`,
        messageId: message.id,
      });
    }
    matchedSeq = Math.max(matchedSeq, stored.seq);
  }
  return { matchedSeq };
}

/** Splits what the client sent into what the thread already has and what this run brings. */
export function reconcileConversation(messages: readonly Message[], known: ReadonlyMap<string, KnownMessage>): ReconciledConversation {
  const instructions: ReconciledConversation["instructions"] = [];
  const indexed: Indexed[] = [];
  messages.forEach((message, index) => {
    if (message.role === "system" || message.role === "developer") instructions.push({ role: message.role, content: message.content });
    else if (message.role === "user" || message.role === "tool" || message.role === "assistant") indexed.push({ message, index });
  });

  const start = tailStart(indexed, known);
  const { edited, matchedSeq } = checkKnown(indexed, start, known);
  if (edited) return { tail: [], instructions, edited, matchedSeq };

  const tail = indexed.slice(start);
  const seen = new Set<string>();
  tail.forEach(({ message, index }, i) => {
    if (seen.has(message.id)) throw new AppError("BAD_REQUEST", `${describe(message, index)} repeats an id used earlier in messages`, { field: `messages[${index}]` });
    seen.add(message.id);
    if (message.role === "user" && i !== tail.length - 1) {
      throw new AppError("BAD_REQUEST", `${describe(message, index)} is new but not the last message: a run takes one new user message, after any tool answers`, {
        field: `messages[${index}]`,
      });
    }
  });
  const last = indexed.at(-1)?.message;
  const endsWithUser = tail.length === 0 && last?.role === "user" ? known.get(last.id) : undefined;
  return { tail: tail.map(({ message }) => message as UserMessage | ToolMessage), instructions, matchedSeq, ...(endsWithUser ? { endsWithUser } : {}) };
}
