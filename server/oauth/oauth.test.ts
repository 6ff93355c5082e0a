import { describe, expect, it } from "vitest";
import { redirectUriProblem } from "./schemas";
import { codeChallengeOf, hashSecret, newSecret, verifierProblem } from "./secrets";

describe("OAuth's pure parts", () => {
  it("registers https redirect URIs, and http only to the user's own machine", () => {
    for (const ok of ["https://app.example/cb", "http://localhost:33418/cb", "http://127.0.0.1/cb", "http://[::1]:9/cb", "https://app.example/cb?x=1"]) expect(redirectUriProblem(ok)).toBeNull();
    expect(redirectUriProblem("http://example.com/cb")).toMatch(/https/);
    expect(redirectUriProblem("http://localhost.example.com/cb")).toMatch(/https/);
    expect(redirectUriProblem("javascript:alert(1)")).toMatch(/https/);
    expect(redirectUriProblem("https://app.example/cb#x")).toMatch(/fragment/);
    expect(redirectUriProblem("https://user:pw@app.example/cb")).toMatch(/credentials/);
    expect(redirectUriProblem("/cb")).toMatch(/absolute/);
  });

  it("answers PKCE S256 as RFC 7636 does (the SDK's client computes the same)", async () => {
    // The MCP SDK's client makes its pair with pkce-challenge.
    const { default: pkceChallenge } = await import("pkce-challenge");
    const { code_verifier, code_challenge } = await pkceChallenge();
    expect(verifierProblem(code_verifier)).toBeNull();
    expect(codeChallengeOf(code_verifier)).toBe(code_challenge);
    expect(verifierProblem(undefined)).toMatch(/required/);
    expect(verifierProblem("short")).toMatch(/43 to 128/);
    expect(verifierProblem("a".repeat(129))).toMatch(/43 to 128/);
  });

  it("makes secrets of 256 random bits behind their kind's prefix, stored as SHA-256", () => {
    const a = newSecret("dspat_");
    expect(a).toMatch(/^dspat_[A-Za-z0-9_-]{43}$/);
    expect(newSecret("dspat_")).not.toBe(a);
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(a)).not.toContain(a.slice(6));
  });
});
