import { z } from "zod";

// Branches of a thread (docs/branches.md): what history says about them and how a client switches
// (POST /api/v1/threads/{threadId}/branch, the chat's threads.switchBranch).

/** A message of the current branch that has siblings: other branches start beside it. */
export const BranchPointSchema = z.strictObject({
  messageId: z.string().describe("The protocol id of the message shown on the current branch (an edited message may share it with the message it replaced)."),
  index: z.number().int().min(0).describe("Its place among its siblings, oldest first (0-based)."),
  count: z.number().int().min(2).describe("How many siblings there are, itself included."),
  siblingIds: z.array(z.string()).describe("Each sibling's branch id, oldest first: what POST /api/v1/threads/{threadId}/branch takes to make its branch current."),
});
export type BranchPoint = z.infer<typeof BranchPointSchema>;

export const SwitchBranchSchema = z.strictObject({
  siblingId: z.uuid().describe("A branch id from history's `branches[].siblingIds`: its branch (down to its newest message) becomes the thread's current branch."),
});

export const SwitchedBranchSchema = z.strictObject({
  threadId: z.string().describe("The thread."),
  messageId: z.string().describe("The protocol id of the message the current branch now goes through."),
  leafMessageId: z.string().describe("The protocol id of the current branch's newest message."),
});
export type SwitchedBranch = z.infer<typeof SwitchedBranchSchema>;
