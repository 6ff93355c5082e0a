import "server-only";
import { z } from "zod";
import { MAX_REASON_CHARS } from "../../approvals/decide";
import { PROTOCOL_VERSION } from "@ag-ui/core";
import { admitFollower } from "../../runs/follower-caps";
import { followRunBatches } from "../../runs/subscribe";
import { TERMINAL_EVENT_TYPES } from "../../kernel/runs";
import { decideAndContinue } from "../../approvals/service";
import { taskAccepted } from "../../runs/service/runs";
import { jsonBody } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";
import { eventEncodingFor, sseResponse, streamOrJson } from "../sse";

// The seed door's companion for approvals (docs/approvals.md). POST /api/v1/agent/runs takes
// exactly one new user message per run, so the answer to an interrupt comes here instead, and
// is answered like a run: the continuation's events as a stream, or 202 with its task.

const decisionBodySchema = z.strictObject({
  approve: z.boolean({ error: "approve must be true or false" }),
  reason: z.string().max(MAX_REASON_CHARS).optional(),
  /** The action's input as changed by the person; checked by the action's own schema. */
  input: z.record(z.string(), z.unknown()).optional(),
});

const decider = (principal: { userId: string; role: "user" | "admin" }) => ({ userId: principal.userId, isAdmin: principal.role === "admin" });

/**
 * POST /api/v1/agent/interrupts/{interruptId}: approve (optionally with changed input) or deny an
 * approval request. Streams the run that continues from it (SSE), or answers 202 with its task;
 * 200 with `run: null` while other requests of the same run still wait.
 */
export const decideInterruptEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/interrupts/[interruptId]",
  auth: "caller",
  negotiate: streamOrJson,
  body: jsonBody(decisionBodySchema),
  async handle({ principal, params, body, negotiated, origin, keepAlive }) {
    const encoding = negotiated.stream ? eventEncodingFor(negotiated.accept, PROTOCOL_VERSION) : null;
    const answer = await decideAndContinue({
      decider: decider(principal),
      approvalId: params.interruptId!,
      decision: { approve: body.approve, reason: body.reason ?? null, ...(body.input ? { editedInput: body.input } : {}) },
      via: principal.via,
      requestOrigin: origin(),
      keepAlive,
    });
    const { run } = answer;
    if (!run) return jsonResponse({ approval: answer.approval, task: null }, 200);
    if (!encoding) return jsonResponse({ approval: answer.approval, task: taskAccepted(run) }, 202);
    const follow = admitFollower({ userId: principal.userId }).forRun(run.id).holding((signal) => followRunBatches({ runId: run.id, after: 0, signal }));
    return sseResponse(follow, { encoding, headers: { "x-task-id": run.id }, final: TERMINAL_EVENT_TYPES });
  },
});
