import { describe, expect, it } from "vitest";
import { signUrlToken, verifyUrlToken } from "./url-token";

const object = { bucket: "agent-files", path: "agent-inputs/u/t/a.png" };
const inAMinute = () => new Date(Date.now() + 60_000);

function tamperPayload(token: string, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as Record<string, unknown>;
  change(claims);
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
}

describe("signed URL tokens", () => {
  it("verify for the object and operation they were signed for, until they expire", () => {
    const token = signUrlToken({ ...object, op: "get", expiresAt: inAMinute() });
    expect(verifyUrlToken(token, { ...object, op: "get" })).toMatchObject({ ok: true, claims: { url: "agent-files/agent-inputs/u/t/a.png", op: "get" } });
    expect(verifyUrlToken(token, { ...object, op: "get" }, Date.now() + 61_000)).toEqual({ ok: false, reason: "expired" });
    expect(verifyUrlToken(token, { ...object, path: "agent-inputs/u/t/b.png", op: "get" })).toEqual({ ok: false, reason: "object" });
    expect(verifyUrlToken(token, { ...object, op: "put" })).toEqual({ ok: false, reason: "operation" });
  });

  it("are distinct each time, even for the same object and expiry", () => {
    const expiresAt = inAMinute();
    expect(signUrlToken({ ...object, op: "get", expiresAt })).not.toBe(signUrlToken({ ...object, op: "get", expiresAt }));
  });

  it("refuse any change to the claims or the signature", () => {
    const token = signUrlToken({ ...object, op: "get", expiresAt: inAMinute() });
    const extended = tamperPayload(token, (c) => (c.exp = (c.exp as number) + 3600));
    const moved = tamperPayload(token, (c) => (c.url = "agent-files/agent-inputs/v/t/a.png"));
    const flipped = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
    expect(verifyUrlToken(extended, { ...object, op: "get" })).toEqual({ ok: false, reason: "signature" });
    expect(verifyUrlToken(moved, { ...object, path: "agent-inputs/v/t/a.png", op: "get" })).toEqual({ ok: false, reason: "signature" });
    expect(verifyUrlToken(flipped, { ...object, op: "get" })).toEqual({ ok: false, reason: "signature" });
    expect(verifyUrlToken("", { ...object, op: "get" })).toEqual({ ok: false, reason: "malformed" });
    expect(verifyUrlToken(null, { ...object, op: "get" })).toEqual({ ok: false, reason: "malformed" });
    expect(verifyUrlToken("a.b.c", { ...object, op: "get" })).toEqual({ ok: false, reason: "malformed" });
  });
});
