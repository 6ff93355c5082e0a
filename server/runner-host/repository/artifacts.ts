import "server-only";
import { getPool } from "../../db";
import type { ArtifactModel } from "../../generated/prisma/models";

// The ArtifactStore's metadata (artifacts); the bytes live in the storage driver.

export type ArtifactRow = Omit<ArtifactModel, "attachmentId" | "driver">;

const COLUMNS = `id, user_id as "userId", thread_id as "threadId", run_id as "runId", runner_id as "runnerId", name, mime_type as "mimeType",
  size, sha256, bucket, path, expires_at as "expiresAt", created_at as "createdAt"`;

const NO_UUID = "00000000-0000-0000-0000-000000000000";

export async function insertArtifact(a: Omit<ArtifactRow, "createdAt"> & { driver: string }): Promise<ArtifactRow> {
  const { rows } = await getPool().query<ArtifactRow>(
    `insert into artifacts (id, user_id, thread_id, run_id, runner_id, name, mime_type, size, sha256, driver, bucket, path, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning ${COLUMNS}`,
    [a.id, a.userId, a.threadId, a.runId, a.runnerId, a.name, a.mimeType, a.size, a.sha256, a.driver, a.bucket, a.path, a.expiresAt],
  );
  return rows[0]!;
}

/** The user's attachments at `refs` recorded as the run's artifacts (same bytes, no copy); idempotent per run. */
export async function insertRunAttachmentArtifacts(opts: { userId: string; threadId: string; runId: string; refs: { bucket: string; path: string }[] }): Promise<ArtifactRow[]> {
  const { rows } = await getPool().query<ArtifactRow>(
    `with wanted as (select * from unnest($4::text[], $5::text[]) with ordinality as w(bucket, path, n)),
     ins as (
       insert into artifacts (id, user_id, thread_id, run_id, attachment_id, name, mime_type, size, sha256, driver, bucket, path)
       select gen_random_uuid(), $1, $2, $3, a.id, coalesce(a.file_name, regexp_replace(a.path, '^.*/', '')), a.mime_type, a.size, a.sha256, a.driver, a.bucket, a.path
       from attachments a join wanted w on w.bucket = a.bucket and w.path = a.path
       where a.user_id = $1
       on conflict (run_id, attachment_id) do nothing
       returning ${COLUMNS}
     )
     -- ins already answers under COLUMNS' names (userId, ...), not the table's.
     select * from ins
     union all
     select ${COLUMNS} from artifacts where run_id = $3 and attachment_id is not null and not exists (select 1 from ins)`,
    [opts.userId, opts.threadId, opts.runId, opts.refs.map((r) => r.bucket), opts.refs.map((r) => r.path)],
  );
  return rows;
}

/** The artifact `id` if it belongs to one of `threadIds` (expired or not), else null. */
export async function findThreadArtifact({ id, threadIds }: { id: string; threadIds: string[] }): Promise<ArtifactRow | null> {
  const { rows } = await getPool().query<ArtifactRow>(`select ${COLUMNS} from artifacts where id = $1::uuid and thread_id = any($2::uuid[])`, [
    /^[0-9a-f-]{36}$/i.test(id) ? id : NO_UUID,
    threadIds,
  ]);
  return rows[0] ?? null;
}

export type RunArtifactRow = ArtifactRow & Pick<ArtifactModel, "attachmentId">;

/** The unexpired artifacts of these runs in the thread, oldest first. */
export async function listLiveRunArtifacts({ threadId, runIds }: { threadId: string; runIds: string[] }): Promise<RunArtifactRow[]> {
  const { rows } = await getPool().query<RunArtifactRow>(
    `select ${COLUMNS}, attachment_id as "attachmentId"
     from artifacts where thread_id = $1 and run_id = any($2::uuid[]) and (expires_at is null or expires_at > now()) order by created_at`,
    [threadId, runIds],
  );
  return rows;
}
