import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { bindRunner, registerAgent } from "./service";

// The chat's agent picker sends forwardedProps.agent, a binding id: a run may only name a binding
// that would answer its user. Anything else is a 400 that says what to fix, and nothing is run.

type User = Awaited<ReturnType<typeof createTestUser>>;
let alice: User;
let bob: User;
let bobsBinding = "";

beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  // An agent nobody will reach: a refused choice must never get as far as calling it.
  const { runnerId } = await registerAgent({ url: "http://127.0.0.1:9/agent", name: `unreached-${randomUUID().slice(0, 8)}` });
  bobsBinding = (await bindRunner({ runnerId, email: bob.email })).id;
});

async function postWithAgent(user: User, agent: unknown) {
  const input = runInput({ forwardedProps: { agent } }, "who answers?");
  const res = await fetch(`${baseUrl()}/api/v1/ag-ui`, {
    method: "POST",
    headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: await res.text(), runId: input.runId };
}

describe("forwardedProps.agent", () => {
  it.each([
    ["not an id", "my favourite agent", "forwardedProps.agent must be the id of an agent binding"],
    ["dashes in the shape of an id", "-".repeat(36), "forwardedProps.agent must be the id of an agent binding"],
    ["a binding that does not exist", randomUUID(), "forwardedProps.agent names no agent bound for you; list yours with runners.mine"],
  ])("refuses %s with 400", async (_, agent, message) => {
    const res = await postWithAgent(alice, agent);
    expect(res.status).toBe(400);
    expect(res.body).toContain(message);
  });

  it("refuses another user's binding, and runs nothing", async () => {
    const res = await postWithAgent(alice, bobsBinding);
    expect(res.status).toBe(400);
    expect(res.body).toContain("names no agent bound for you");
    const run = await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(res.runId)}`, { headers: bearer(alice.apiKey) });
    expect(run.status).toBe(404);
  });
});
