import { z } from "zod";

// The archive of a run's event log: gzip'd NDJSON, one line per event in sequence order. `event`
// is the event's JSON exactly as it was streamed, kept as a string so a replay sends the same
// bytes (parsing and serializing again could reorder keys or change escapes).
export const archivedEventLine = z.strictObject({
  seq: z.number().int().min(1),
  type: z.string().min(1),
  // When the event was written to the log (its batch's created_at), ISO 8601.
  createdAt: z.iso.datetime({ offset: true }),
  event: z.string(),
});

export type ArchivedEventLine = z.infer<typeof archivedEventLine>;

/** What the archive table says about a run's log once it left the hot rows. */
export type ArchiveManifest = {
  bucket: string | null;
  path: string | null;
  bytes: number;
  sha256: string | null;
  eventCount: number;
  lastSeq: number;
  expiredAt: Date | null;
};
