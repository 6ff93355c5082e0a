import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { AppError } from "../kernel/errors";
import type { ArtifactRef } from "../protocols/runner/context";
import { findThreadArtifact, insertArtifact, insertRunAttachmentArtifacts, type ArtifactRow } from "./repository/artifacts";
import { getStorage } from "../storage/driver";

// ArtifactStore: metadata in PostgreSQL, bytes in the storage driver. Runners see artifacts as
// opaque ids; reading one is allowed only inside the conversation it belongs to.

/** Artifacts a runner creates live this long unless it asks otherwise. */
export const DEFAULT_ARTIFACT_TTL_SECONDS = 7 * 24 * 3600;

export function artifactRef(a: ArtifactRow): ArtifactRef {
  return {
    artifact_id: a.id,
    name: a.name,
    mime_type: a.mimeType,
    size: a.size,
    sha256: a.sha256 || null,
    expires_at: a.expiresAt ? a.expiresAt.getTime() / 1000 : null,
  };
}

/** Stores bytes a runner produced during a run. */
export async function createRunnerArtifact(opts: {
  userId: string;
  threadId: string;
  runId: string;
  runnerId: string;
  name: string | null;
  mimeType: string;
  bytes: Uint8Array;
  ttlSeconds?: number | null;
}): Promise<ArtifactRow> {
  const storage = getStorage();
  const id = randomUUID();
  const path = `artifacts/${opts.threadId}/${id}`;
  await storage.putObject({ bucket: storage.bucket, path, body: opts.bytes, contentType: opts.mimeType });
  const sha256 = createHash("sha256").update(opts.bytes).digest("hex");
  const expiresAt = new Date(Date.now() + (opts.ttlSeconds ?? DEFAULT_ARTIFACT_TTL_SECONDS) * 1000);
  return insertArtifact({
    id,
    userId: opts.userId,
    threadId: opts.threadId,
    runId: opts.runId,
    runnerId: opts.runnerId,
    name: opts.name,
    mimeType: opts.mimeType,
    size: opts.bytes.byteLength,
    sha256,
    driver: storage.name,
    bucket: storage.bucket,
    path,
    expiresAt,
  });
}

/** The run's input attachments as artifacts (same bytes, no copy); idempotent per run. */
export async function shareRunAttachments(opts: { userId: string; threadId: string; runId: string; refs: { bucket: string; path: string }[] }): Promise<ArtifactRow[]> {
  if (opts.refs.length === 0) return [];
  return insertRunAttachmentArtifacts(opts);
}

/** An artifact of this conversation (thread), or NOT_FOUND: runners cannot tell others' ids from missing ones. */
export async function getConversationArtifact({ id, threadIds }: { id: string; threadIds: string[] }): Promise<ArtifactRow> {
  const row = await findThreadArtifact({ id, threadIds });
  if (!row) throw new AppError("NOT_FOUND", `Artifact ${id} not found`);
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) throw new AppError("NOT_FOUND", `Artifact ${id} has expired`);
  return row;
}

export async function readArtifactBytes(a: ArtifactRow): Promise<Uint8Array> {
  const stored = await getStorage().getObject({ bucket: a.bucket, path: a.path });
  if (!stored) throw new AppError("NOT_FOUND", `Artifact ${a.id} has no stored bytes`);
  return stored.data;
}
