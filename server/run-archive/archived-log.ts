import "server-only";
import { AppError } from "../kernel/errors";
import { logger } from "../logger";
import { getStorage } from "../storage/driver";
import { decodeArchive, sha256Of } from "./archive-format";
import { findRunArchive } from "./repository/run-logs";
import type { ArchivedEventLine, ArchiveManifest } from "./schemas";

// The read side of the lifecycle, for the event log's readers (server/runs/event-log.ts, the
// console): a run whose log left the hot rows is read from its archive object, checked against
// the size and hash recorded when it was written; a run whose log expired is an AppError GONE.

// A replay reads a log page by page: the last few archives read stay decoded in memory.
const CACHED_ARCHIVES = 8;
const cache = new Map<string, ArchivedEventLine[]>();

/** The run's log from its archive; null when the log is still in the hot rows (or has no events). */
export async function readArchivedLog(runId: string): Promise<ArchivedEventLine[] | null> {
  const manifest = await findRunArchive({ runId });
  if (!manifest) return null;
  refuseExpired(manifest);
  const key = `${runId}:${manifest.sha256}`;
  const cached = cache.get(key);
  if (cached) {
    // Most recently used last: the oldest goes first.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const lines = await loadArchive(runId, manifest);
  cache.set(key, lines);
  if (cache.size > CACHED_ARCHIVES) cache.delete(cache.keys().next().value!);
  return lines;
}

/** The last sequence number of the run's archived log; null when the log is still hot. */
export async function archivedLastSeq(runId: string): Promise<number | null> {
  const manifest = await findRunArchive({ runId });
  if (!manifest) return null;
  refuseExpired(manifest);
  return manifest.lastSeq;
}

function refuseExpired(manifest: ArchiveManifest): void {
  if (manifest.expiredAt === null) return;
  throw new AppError(
    "GONE",
    `The events of this run expired on ${manifest.expiredAt.toISOString().slice(0, 10)} under this deployment's retention policy and can no longer be replayed; the thread's messages remain in its history`,
    { expiredAt: manifest.expiredAt.toISOString() },
  );
}

async function loadArchive(runId: string, manifest: ArchiveManifest): Promise<ArchivedEventLine[]> {
  const stored = manifest.bucket && manifest.path ? await getStorage().getObject({ bucket: manifest.bucket, path: manifest.path }) : null;
  if (!stored || stored.data.byteLength !== manifest.bytes || sha256Of(stored.data) !== manifest.sha256) {
    // The storage lost or changed what it acknowledged: an operator's problem, not the caller's.
    logger.error({ runId, bucket: manifest.bucket, path: manifest.path, found: stored?.data.byteLength ?? null, expected: manifest.bytes }, "a run's event archive is missing or damaged");
    throw new AppError("INTERNAL", "This run's archived events could not be read");
  }
  return decodeArchive(stored.data);
}
