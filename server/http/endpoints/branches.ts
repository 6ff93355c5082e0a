import "server-only";
import { SwitchBranchSchema, SwitchedBranchSchema } from "../../protocols/threads/branches";
import { switchBranch } from "../../branches/service";
import { jsonBody } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

// A thread's branches over REST (docs/branches.md): history says where they are; this switches.

/** POST /api/v1/threads/{threadId}/branch: make the branch through one of a message's siblings the thread's current one. */
export const switchBranchEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/threads/[threadId]/branch",
  auth: "caller",
  body: jsonBody(SwitchBranchSchema),
  doc: {
    operationId: "switchThreadBranch",
    tag: "Threads",
    summary: "Switch a thread's branch",
    description:
      "A thread is a tree of messages with a current branch (a regenerated answer or an edited message starts a new one; the old one stays). Makes the branch through `siblingId` (from history's `branches[].siblingIds`) current, down to its newest message: history, the model and AG-UI snapshots follow it. 409 while the thread has a run in progress.",
    params: { threadId: "The thread's id." },
    responses: { 200: { description: "The branch is current.", json: SwitchedBranchSchema } },
    errors: [400, 404, 409],
  },
  handle: async ({ principal, params, body }) => jsonResponse(await switchBranch({ userId: principal.userId, threadId: params.threadId!, siblingId: body.siblingId })),
});
