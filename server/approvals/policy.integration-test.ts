import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { postRun, runInput } from "@/test/runs";
import { events, fact, ofType, rememberTurn } from "./test-support";

// The chat settings' approval policy over real HTTP (tRPC approvalPolicy.get/set with the
// browser's session), and its effect on the user's next run.

let user: Awaited<ReturnType<typeof createTestUser>>;
let cookie = "";
beforeAll(async () => {
  // A new user as anyone gets one: the product's default policy.
  user = await createTestUser({ approvalPolicy: "default" });
  cookie = (await signInOverHttp(user.email, user.password))!;
});

const setPolicy = (policy: string) =>
  fetch(`${baseUrl()}/api/trpc/approvalPolicy.set`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: baseUrl() },
    body: JSON.stringify({ json: { policy } }),
  });
const getPolicy = async () => ((await (await trpcGet("approvalPolicy.get", undefined, { cookie })).json()) as { result: { data: { json: { policy: string } } } }).result.data.json.policy;

describe("the approval policy setting", () => {
  it("defaults to others: the user's own memory and a private event go ahead, an invitation asks", async () => {
    expect(await getPolicy()).toBe("others");
    // A memory change involves nobody else: it happens without asking.
    const k = `p_${Date.now()}`;
    const remembered = await events(await postRun(user.apiKey, runInput({}, rememberTurn(k)), { stream: true }));
    expect((ofType(remembered, "RUN_FINISHED")[0]!.outcome as { type: string }).type).toBe("success");
    expect(await fact(user.id, k)).toBe("yes");
    // An event with nobody invited is the user's own.
    const own = await events(await postRun(user.apiKey, runInput({}, `[[tool:calendar.create {"title":"Dentist","start_at":"2026-12-20T09:00:00Z","duration_minutes":30}]]`), { stream: true }));
    expect((ofType(own, "RUN_FINISHED")[0]!.outcome as { type: string }).type).toBe("success");
    // Inviting someone reaches them: it waits, asked in words.
    const invite = await events(await postRun(user.apiKey, runInput({}, `[[tool:calendar.create {"title":"Sync","start_at":"2026-12-20T10:00:00Z","duration_minutes":30,"attendees":["ana@example.com"]}]]`), { stream: true }));
    const outcome = ofType(invite, "RUN_FINISHED")[0]!.outcome as { type: string; interrupts?: { message: string }[] };
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts![0]!.message).toBe("Add “Sync” to your calendar and invite ana@example.com?");
  });

  it("takes always, refuses what it does not know, and the next run follows it", async () => {
    expect((await trpcGet("approvalPolicy.get", undefined)).status).toBe(401);
    expect((await setPolicy("sometimes")).status).toBe(400);
    expect((await setPolicy("always")).status).toBe(200);
    expect(await getPolicy()).toBe("always");
    const k = `p_${Date.now()}`;
    const list = await events(await postRun(user.apiKey, runInput({}, rememberTurn(k)), { stream: true }));
    expect((ofType(list, "RUN_FINISHED")[0]!.outcome as { type: string }).type).toBe("interrupt");
    expect(await fact(user.id, k)).toBeNull();
  });
});
