import { describe, expect, it } from "vitest";
import { ToolError } from "./errors";
import { mintToolCredential, toolCredentialKey, verifyToolCredential, TOOL_CREDENTIAL_TTL_SECONDS } from "./credential";

const key = toolCredentialKey("test-secret");
const claims = { userId: "3b0a6a52-9a3e-4f43-8f58-1d8e0a9b7c11", runId: "run-1", modules: ["calendar", "memory"], toolCall: { id: "call_1" } };

function rejection(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("the controlled credential", () => {
  it("names one user, run, tool call and set of modules, and lives 5 to 10 minutes", () => {
    const now = new Date("2026-04-21T10:00:00Z");
    const verified = verifyToolCredential(mintToolCredential({ ...claims, key, now }), { key, now });
    expect(verified).toEqual({ ...claims, toolCall: { runId: "run-1", id: "call_1" }, expiresAt: new Date(now.getTime() + TOOL_CREDENTIAL_TTL_SECONDS * 1000) });
    // An approved call carried by a later run keeps the run it was made in.
    const carried = verifyToolCredential(mintToolCredential({ ...claims, toolCall: { id: "call_1", runId: "run-0" }, key, now }), { key, now });
    expect(carried).toMatchObject({ runId: "run-1", toolCall: { runId: "run-0", id: "call_1" } });
    expect(TOOL_CREDENTIAL_TTL_SECONDS).toBeGreaterThanOrEqual(300);
    expect(TOOL_CREDENTIAL_TTL_SECONDS).toBeLessThanOrEqual(600);
  });

  it("derives its key from the secret, and never is the secret", () => {
    expect(key).not.toContain("test-secret");
    expect(toolCredentialKey("test-secret")).toBe(key);
    expect(toolCredentialKey("other-secret")).not.toBe(key);
  });

  it("is refused once expired", () => {
    const minted = new Date("2026-04-21T10:00:00Z");
    const token = mintToolCredential({ ...claims, key, now: minted });
    const later = new Date(minted.getTime() + TOOL_CREDENTIAL_TTL_SECONDS * 1000);
    expect(rejection(() => verifyToolCredential(token, { key, now: later })).code).toBe("CREDENTIAL_EXPIRED");
  });

  it("cannot be stretched past ten minutes", () => {
    const token = mintToolCredential({ ...claims, key, ttlSeconds: 3_600 });
    const in11Minutes = new Date(Date.now() + 11 * 60_000);
    expect(rejection(() => verifyToolCredential(token, { key, now: in11Minutes })).code).toBe("CREDENTIAL_EXPIRED");
  });

  it("is refused when any part is tampered with or signed with another key", () => {
    const token = mintToolCredential({ ...claims, key });
    const [prefix, body, signature] = token.split(".") as [string, string, string];
    const forgedBody = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), mod: ["calendar", "contacts", "memory"] }),
    ).toString("base64url");
    const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    for (const bad of [
      `${prefix}.${forgedBody}.${signature}`,
      `${prefix}.${body}.${flipped}`,
      `dtc2.${body}.${signature}`,
      `${token}.extra`,
      "not-a-credential",
      mintToolCredential({ ...claims, key: toolCredentialKey("other-secret") }),
    ]) {
      const error = rejection(() => verifyToolCredential(bad, { key }));
      expect(error.code).toBe("CREDENTIAL_INVALID");
      expect(JSON.stringify(error.toBody())).not.toContain(bad);
    }
  });

  it("is refused when missing, or when there is no key to check it with", () => {
    expect(rejection(() => verifyToolCredential(undefined, { key })).code).toBe("CREDENTIAL_MISSING");
    expect(rejection(() => verifyToolCredential(mintToolCredential({ ...claims, key }), { key: undefined })).code).toBe("CREDENTIAL_UNVERIFIABLE");
  });
});
