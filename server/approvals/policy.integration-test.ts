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
  user = await createTestUser();
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
  it("defaults to always, takes others, refuses what it does not know, and the next run follows it", async () => {
    expect(await getPolicy()).toBe("always");
    expect((await trpcGet("approvalPolicy.get", undefined)).status).toBe(401);
    expect((await setPolicy("sometimes")).status).toBe(400);
    expect((await setPolicy("others")).status).toBe(200);
    expect(await getPolicy()).toBe("others");

    // A memory change involves nobody else: under `others` it happens without asking.
    const k = `p_${Date.now()}`;
    const list = await events(await postRun(user.apiKey, runInput({}, rememberTurn(k)), { stream: true }));
    expect((ofType(list, "RUN_FINISHED")[0]!.outcome as { type: string }).type).toBe("success");
    expect(await fact(user.id, k)).toBe("yes");
  });
});
