import { describe, expect, it } from "vitest";
import { AppError } from "../../kernel/errors";
import type { Message } from "../../protocols/ag-ui/run-input";
import type { KnownMessage } from "../repository/conversation";
import { knownById, reconcileConversation } from "./conversation-reconcile";

// How the AG-UI door reads branches out of a resent conversation (docs/branches.md).

const row = (messageId: string, seq: number, content: string, extra: Partial<KnownMessage> = {}): KnownMessage => ({ messageId, role: "user", content, seq, onBranch: true, ...extra });
const user = (id: string, content: string): Message => ({ id, role: "user", content });
const answer = (id: string, content: string): Message => ({ id, role: "assistant", content });

const thread = knownById([row("u1", 1, "first"), row("u2", 3, "second")]);

function conflict(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
  }
  throw new Error("expected an AppError");
}

describe("reconcileConversation and branches", () => {
  it("reads a changed last user message, with only answers after it, as an edit", () => {
    const result = reconcileConversation([user("u1", "first"), answer("a1", "one"), user("u2", "second, edited"), answer("a2", "old answer")], thread);
    expect(result.edited).toMatchObject({ id: "u2", content: "second, edited" });
    expect(result.tail).toEqual([]);
  });

  it("keeps the 409 for a changed message that more messages follow", () => {
    const err = conflict(() => reconcileConversation([user("u1", "rewritten"), answer("a1", "one"), user("u2", "second")], thread));
    expect(err.code).toBe("CONFLICT");
  });

  it("says the conversation ends with a stored user message (a regenerate's request), and the newest seq it matched", () => {
    const result = reconcileConversation([user("u1", "first"), answer("a1", "one"), user("u2", "second")], thread);
    expect(result.endsWithUser).toMatchObject({ messageId: "u2", seq: 3 });
    expect(result.matchedSeq).toBe(3);
    expect(reconcileConversation([user("u1", "first"), answer("a1", "one")], thread).endsWithUser).toBeUndefined();
  });

  it("prefers the current branch's row where an edit left two under one id, and refuses a message only another branch has", () => {
    const edited = knownById([row("u1", 1, "old text", { onBranch: false }), row("u1", 5, "new text")]);
    expect(edited.get("u1")).toMatchObject({ content: "new text", seq: 5 });
    expect(reconcileConversation([user("u1", "new text")], edited).edited).toBeUndefined();

    const elsewhere = knownById([row("u1", 1, "first"), row("u2", 3, "second", { onBranch: false })]);
    const err = conflict(() => reconcileConversation([user("u1", "first"), answer("a1", "one"), user("u2", "second"), user("u3", "next")], elsewhere));
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toContain("another branch");
  });
});
