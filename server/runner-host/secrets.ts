import "server-only";
import { createHash } from "node:crypto";
import { sealSecret, unsealSecret } from "../lib/seal";

// A runner's secret is shared both ways: the host presents it when it calls the runner, and
// the runner presents it to the host API. The host must read it back, so it is sealed
// (server/lib/seal.ts), and looked up by its SHA-256 when a runner calls in.

export function hashRunnerSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export const sealRunnerSecret = (secret: string): string => sealSecret("runner-secret", secret);

export const unsealRunnerSecret = (sealed: string): string => unsealSecret("runner-secret", sealed);

/** Secrets shorter than this are refused at registration: they are guessable. */
export const MIN_RUNNER_SECRET_LENGTH = 16;
