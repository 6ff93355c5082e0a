import { randomBytes, webcrypto } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deriveKey, hashByName, hmacSha256, postgresMd5PasswordHash, sha256 } from "./pg-crypto";

// pg-crypto.ts replaces pg's WebCrypto helpers in the CLI bundle, so it must produce their bytes.

const subtle = webcrypto.subtle;

describe("pg-crypto", () => {
  it("computes the SCRAM-SHA-256 exchange of RFC 7677 the way pg's sasl.js chains it", async () => {
    const clientNonce = "rOprNGfwEbeRWgbNEkqO";
    const serverNonce = `${clientNonce}%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0`;
    const serverFirst = `r=${serverNonce},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`;
    const authMessage = `n=user,r=${clientNonce},${serverFirst},c=biws,r=${serverNonce}`;

    const salted = await deriveKey("pencil", Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64"), 4096);
    const clientKey = await hmacSha256(salted, "Client Key");
    const clientSignature = await hmacSha256(await sha256(clientKey), authMessage);
    const proof = Buffer.from(clientKey).map((byte, i) => byte ^ clientSignature[i]!);
    const serverSignature = await hmacSha256(await hmacSha256(salted, "Server Key"), authMessage);

    expect(Buffer.from(proof).toString("base64")).toBe("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
    expect(serverSignature.toString("base64")).toBe("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  });

  it("matches WebCrypto, which pg uses otherwise, on ArrayBuffer and Buffer inputs", async () => {
    const data = randomBytes(64);
    const key = randomBytes(32);
    const asArrayBuffer = (b: Buffer) => new Uint8Array(b).buffer;
    expect(await sha256(asArrayBuffer(data))).toEqual(Buffer.from(await subtle.digest("SHA-256", data)));
    expect(await hashByName("SHA-512", data)).toEqual(Buffer.from(await subtle.digest("SHA-512", data)));
    const hmacKey = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    expect(await hmacSha256(asArrayBuffer(key), "message")).toEqual(Buffer.from(await subtle.sign("HMAC", hmacKey, Buffer.from("message"))));
    const pbkdf2Key = await subtle.importKey("raw", Buffer.from("pässword"), "PBKDF2", false, ["deriveBits"]);
    const bits = await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: data, iterations: 100 }, pbkdf2Key, 256);
    expect(await deriveKey("pässword", data, 100)).toEqual(Buffer.from(bits));
  });

  it("answers an MD5 password challenge as PostgreSQL expects", async () => {
    // "md5" + md5(md5("pencil" + "user") as hex + salt), computed independently with Python's hashlib.
    expect(await postgresMd5PasswordHash("user", "pencil", Buffer.from([1, 2, 3, 4]))).toBe("md54376eb6913b38f9aaff38dc7cf19ca76");
  });
});
