import { describe, expect, it } from "vitest";
import { generateOneTimePassword, hashPassword, verifyPassword } from "./password";

describe("password hashing", () => {
  it("verifies the right password and rejects a wrong one", async () => {
    const stored = await hashPassword("s3cret-passphrase");
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain("s3cret");
    await expect(verifyPassword("s3cret-passphrase", stored)).resolves.toBe(true);
    await expect(verifyPassword("s3cret-passphrasE", stored)).resolves.toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("rejects malformed stored hashes instead of throwing", async () => {
    await expect(verifyPassword("x", "plaintext")).resolves.toBe(false);
    await expect(verifyPassword("x", "bcrypt$1$2$3$4$5")).resolves.toBe(false);
  });
});

describe("one-time passwords", () => {
  it("are four groups of four unambiguous characters, never the same twice", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const password = generateOneTimePassword();
      expect(password).toMatch(/^[a-hjkmnp-z2-9]{4}(-[a-hjkmnp-z2-9]{4}){3}$/);
      seen.add(password);
    }
    expect(seen.size).toBe(200);
  });
});
