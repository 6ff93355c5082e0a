import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun, StalePlanError } from "@/server/runs/accept";
import { createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { createEndpoint, type TestEndpoint } from "./api/test-fixtures";
import { bindingFromSnapshot, dropBindingSnapshot } from "./binding-snapshot";
import { MESSAGE_RECEIVED } from "./plan";
import { findEffectiveBinding, insertBinding, updateBinding } from "./repository/runners";

// Runs are planned from a cached copy of the bindings; the database confirms the plan when it
// accepts the run. The copy must choose as the database does, and a stale one must never win.

let userId: string;
let endpoint: TestEndpoint;
beforeAll(async () => {
  userId = (await createTestUser()).id;
  endpoint = await createEndpoint();
});

async function newThread(): Promise<string> {
  const id = randomUUID();
  await getPool().query("insert into threads (id, user_id, title, updated_at) values ($1, $2, 'bound', now())", [id, userId]);
  return id;
}

const bind = (scope: "thread" | "user", threadId: string | null) =>
  insertBinding({ runnerId: endpoint.runnerId, scope, userId: scope === "user" ? userId : null, threadId, eventTypes: [MESSAGE_RECEIVED], config: {}, policy: {} });

async function bothChoose(threadId: string): Promise<[string | null | undefined, string | null | undefined]> {
  dropBindingSnapshot();
  const query = { userId, threadId, eventType: MESSAGE_RECEIVED };
  const cached = await bindingFromSnapshot(query);
  return [cached?.binding?.id, (await findEffectiveBinding(query))?.id];
}

describe("binding snapshot", () => {
  it("chooses as the database does: thread before user, the newest within a scope, enabled only", async () => {
    const threadId = await newThread();
    const user = await bind("user", null);
    expect(await bothChoose(threadId)).toEqual([user.id, user.id]);
    const newerUser = await bind("user", null);
    expect(await bothChoose(threadId)).toEqual([newerUser.id, newerUser.id]);
    const thread = await bind("thread", threadId);
    expect(await bothChoose(threadId)).toEqual([thread.id, thread.id]);
    expect(await bothChoose(randomUUID())).toEqual([newerUser.id, newerUser.id]);
    await updateBinding(thread.id, { enabled: false });
    expect(await bothChoose(threadId)).toEqual([newerUser.id, newerUser.id]);
  });

  it("refuses a run planned from a stale copy, writing nothing, so it is planned again", async () => {
    const threadId = await newThread();
    const query = { userId, threadId, eventType: MESSAGE_RECEIVED };
    dropBindingSnapshot();
    const stale = (await bindingFromSnapshot(query))!;
    // Another instance binds this conversation after our copy was read.
    const thread = await bind("thread", threadId);
    const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId }, "route me")));
    if (!parsed.ok) throw new Error(parsed.message);
    const accepting = acceptRun({ userId, input: parsed.input, protocol: "ag-ui", runner: "test", bindingId: stale.binding?.id ?? null, bindingCheck: stale.check });
    await expect(accepting).rejects.toBeInstanceOf(StalePlanError);
    const { rows } = await getPool().query("select 1 from runs where user_id = $1 and run_id = $2", [userId, parsed.input.runId]);
    expect(rows).toHaveLength(0);

    dropBindingSnapshot();
    const fresh = (await bindingFromSnapshot(query))!;
    expect(fresh.binding?.id).toBe(thread.id);
    const accepted = await acceptRun({ userId, input: parsed.input, protocol: "ag-ui", runner: "test", bindingId: thread.id, bindingCheck: fresh.check });
    expect(accepted.created).toBe(true);
  });
});
