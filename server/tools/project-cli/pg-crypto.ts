import { createHash, createHmac, pbkdf2Sync, randomBytes as nodeRandomBytes, type BinaryLike } from "node:crypto";

// Stands in for pg's lib/crypto/utils.js in the CLI bundle (see scripts/build-cli.mjs). pg runs
// SCRAM authentication through WebCrypto: ten thread-pool round trips that cost each connection
// several milliseconds. These are the same functions on Node's synchronous crypto. pg awaits
// every result and reads it with Buffer.from, so Buffers serve where it had ArrayBuffers.

type Bytes = BinaryLike | ArrayBuffer;

const bytes = (data: Bytes): BinaryLike => (data instanceof ArrayBuffer ? new Uint8Array(data) : data);

export function randomBytes(length: number): Buffer {
  return nodeRandomBytes(length);
}

export async function md5(text: string | Buffer): Promise<string> {
  return createHash("md5").update(text).digest("hex");
}

// AuthenticationMD5Password: "md5" + md5(md5(password + user) + salt).
export async function postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string> {
  const inner = await md5(password + user);
  return `md5${await md5(Buffer.concat([Buffer.from(inner), salt]))}`;
}

export async function sha256(data: Bytes): Promise<Buffer> {
  return createHash("sha256").update(bytes(data)).digest();
}

/** `hashName` is a WebCrypto name (SHA-256, SHA-384, SHA-512), as pg passes it. */
export async function hashByName(hashName: string, data: Bytes): Promise<Buffer> {
  return createHash(hashName.replace("-", "").toLowerCase()).update(bytes(data)).digest();
}

export async function hmacSha256(key: Bytes, message: string): Promise<Buffer> {
  return createHmac("sha256", bytes(key)).update(message).digest();
}

export async function deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<Buffer> {
  return pbkdf2Sync(password, salt, iterations, 32, "sha256");
}
