import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

// scrypt is memory-hard and built into Node, so there is no native addon to install.
// Stored form: scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>; parameters travel with the
// hash so they can be raised later without breaking existing passwords.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 64;

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize("NFKC"), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const maxmem = 256 * N * R;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { N, r: R, p: P, maxmem });
  return ["scrypt", N, R, P, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashB64, "base64");
  const key = await scrypt(password, Buffer.from(saltB64, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * Number(n) * Number(r),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

// Compared against when the user does not exist, so a wrong email costs as long as a wrong password.
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(12).toString("hex"));
  return dummyHash;
}

// Letters and digits no one confuses when reading them aloud or copying by hand (no 0/O, 1/l/I).
const ONE_TIME_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/**
 * A password an admin hands to a user to sign in once: four groups of four, about 79 bits.
 * Drawn by rejection so every character is equally likely.
 */
export function generateOneTimePassword(): string {
  const chars: string[] = [];
  while (chars.length < 16) {
    for (const byte of randomBytes(32)) {
      if (byte < 256 - (256 % ONE_TIME_ALPHABET.length) && chars.length < 16) chars.push(ONE_TIME_ALPHABET[byte % ONE_TIME_ALPHABET.length]!);
    }
  }
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join("")).join("-");
}
