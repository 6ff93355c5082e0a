import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { getPool } from "../db";
import { AppError } from "../errors";
import type { ArtifactRef } from "../protocols/runner/context";
import { getStorage } from "../storage/driver";

// ArtifactStore: metadata in PostgreSQL, bytes in the storage driver. Runners see artifacts as
// opaque ids; reading one is allowed only inside the conversation it belongs to.

export type ArtifactRow = {
  id: string;
  userId: string;
  threadId: string | null;
  runId: string | null;
  runnerId: string | null;
  name: string | null;
  mimeType: string;
  size: number;
  sha256: string;
  bucket: string;
  path: string;
  expiresAt: Date | null;
  createdAt: Date;
};

const COLUMNS = `id, user_id as "userId", thread_id as "threadId", run_id as "runId", runner_id as "runnerId", name, mime_type as "mimeType",
  size, sha256, bucket, path, expires_at as "expiresAt", created_at as "createdAt"`;

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
  const { rows } = await getPool().query<ArtifactRow>(
    `insert into artifacts (id, user_id, thread_id, run_id, runner_id, name, mime_type, size, sha256, driver, bucket, path, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning ${COLUMNS}`,
    [id, opts.userId, opts.threadId, opts.runId, opts.runnerId, opts.name, opts.mimeType, opts.bytes.byteLength, sha256, storage.name, storage.bucket, path, expiresAt],
  );
  return rows[0]!;
}

/** The run's input attachments as artifacts (same bytes, no copy); idempotent per run. */
export async function shareRunAttachments(opts: { userId: string; threadId: string; runId: string; refs: { bucket: string; path: string }[] }): Promise<ArtifactRow[]> {
  if (opts.refs.length === 0) return [];
  const { rows } = await getPool().query<ArtifactRow>(
    `with wanted as (select * from unnest($4::text[], $5::text[]) with ordinality as w(bucket, path, n)),
     ins as (
       insert into artifacts (id, user_id, thread_id, run_id, attachment_id, name, mime_type, size, sha256, driver, bucket, path)
       select gen_random_uuid(), $1, $2, $3, a.id, regexp_replace(a.path, '^.*/', ''), a.mime_type, a.size, a.sha256, a.driver, a.bucket, a.path
       from attachments a join wanted w on w.bucket = a.bucket and w.path = a.path
       where a.user_id = $1
       on conflict (run_id, attachment_id) do nothing
       returning ${COLUMNS}
     )
     select ${COLUMNS} from ins
     union all
     select ${COLUMNS} from artifacts where run_id = $3 and attachment_id is not null and not exists (select 1 from ins)`,
    [opts.userId, opts.threadId, opts.runId, opts.refs.map((r) => r.bucket), opts.refs.map((r) => r.path)],
  );
  return rows;
}

/** An artifact of this conversation (thread), or NOT_FOUND: runners cannot tell others' ids from missing ones. */
export async function getConversationArtifact({ id, threadIds }: { id: string; threadIds: string[] }): Promise<ArtifactRow> {
  const { rows } = await getPool().query<ArtifactRow>(
    `select ${COLUMNS} from artifacts where id = $1::uuid and thread_id = any($2::uuid[])`,
    [/^[0-9a-f-]{36}$/i.test(id) ? id : "00000000-0000-0000-0000-000000000000", threadIds],
  );
  const row = rows[0];
  if (!row) throw new AppError("NOT_FOUND", `Artifact ${id} not found`);
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) throw new AppError("NOT_FOUND", `Artifact ${id} has expired`);
  return row;
}

export async function readArtifactBytes(a: ArtifactRow): Promise<Uint8Array> {
  const stored = await getStorage().getObject({ bucket: a.bucket, path: a.path });
  if (!stored) throw new AppError("NOT_FOUND", `Artifact ${a.id} has no stored bytes`);
  return stored.data;
}

export async function listRunArtifacts({ runId }: { runId: string }): Promise<ArtifactRow[]> {
  const { rows } = await getPool().query<ArtifactRow>(`select ${COLUMNS} from artifacts where run_id = $1 order by created_at`, [runId]);
  return rows;
}
