import "server-only";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * This process, as the console names the executor of a run's attempt: its host and pid, and a tag
 * drawn at start-up, since serverless instances may share both (and a restarted server its pid).
 */
export const INSTANCE_ID = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
