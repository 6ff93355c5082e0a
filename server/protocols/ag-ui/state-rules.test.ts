import { describe, expect, it } from "vitest";
import { parseRunAgentInput } from "./run-input";
import { isSecretName, MAX_STATE_BYTES, sendsState, stateProblem } from "./state-rules";

const body = (state: unknown) =>
  JSON.stringify({ threadId: "thread-1", runId: "run-1", state, messages: [{ id: "m1", role: "user", content: "hi" }], tools: [], context: [] });

describe("shared state rules", () => {
  it("takes a JSON object up to the limit, and refuses more with a 413 naming the limit", () => {
    const filler = (bytes: number) => ({ doc: "x".repeat(bytes - '{"doc":""}'.length) });
    expect(stateProblem(filler(MAX_STATE_BYTES))).toBeNull();
    expect(stateProblem(filler(MAX_STATE_BYTES + 1))).toEqual({ status: 413, message: expect.stringContaining(`the limit is ${MAX_STATE_BYTES} bytes (64 KiB)`) });
  });

  it("refuses anything but an object", () => {
    for (const state of [[1], "text", 3]) expect(stateProblem(state)?.status).toBe(400);
  });

  it("refuses members named like credentials, wherever they are, and names where", () => {
    expect(stateProblem({ accounts: [{ name: "a" }, { Access_Token: "t" }] })?.message).toBe(
      "state must not hold secrets: the member at /accounts/1/Access_Token is named like a credential",
    );
    for (const name of ["password", "apiKey", "api-key", "client_secret", "Authorization", "privateKey"]) expect(isSecretName(name)).toBe(true);
    for (const name of ["token_count", "passwordHint", "author", "keys", "secretary"]) expect(isSecretName(name)).toBe(false);
  });

  it("reads absent, null and {} as no state (the thread's kept state goes on)", () => {
    expect([undefined, null, {}].map(sendsState)).toEqual([false, false, false]);
    expect(sendsState({ a: 1 })).toBe(true);
  });

  it("is applied by both doors' parser after the wire schema", () => {
    for (const conversation of [false, true]) {
      const raw = conversation ? body({ doc: "x".repeat(MAX_STATE_BYTES) }) : body({ doc: "x".repeat(MAX_STATE_BYTES) }).replace('"thread-1"', '"6f1c5e0e-8f0b-4d8e-9c43-2f6b1f3f0a11"');
      expect(parseRunAgentInput(raw, { conversation })).toMatchObject({ ok: false, status: 413, field: "state" });
    }
    expect(parseRunAgentInput(body({ password: "p" }), { conversation: true })).toMatchObject({ ok: false, status: 400, field: "state" });
    expect(parseRunAgentInput(body({}), { conversation: true })).toMatchObject({ ok: true });
  });
});
