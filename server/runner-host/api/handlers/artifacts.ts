import "server-only";
import { createHash } from "node:crypto";
import { MAX_READ_RANGE_BYTES } from "../../../protocols/runner/host-api";
import { artifactRef, getConversationArtifact, readArtifactBytes } from "../../artifact-store";
import type { JsonHandler, StreamHandler } from "../call";
import { HostApiFailure } from "../failure";
import type { RunSession } from "../session";

// artifacts/*: artifacts of the run's conversation only; an expired one, or one elsewhere, is
// not found. Bytes go out base64, at most MAX_READ_RANGE_BYTES per slice or stream chunk.

const find = (session: RunSession, id: string) => getConversationArtifact({ id, threadIds: [session.threadId] });

export const artifactMetadata: JsonHandler<"artifacts/metadata"> = async ({ params, session }) => {
  const a = await find(session, params.artifact_id);
  return { artifact: { ...artifactRef(a), created_at: a.createdAt.getTime() / 1000 } };
};

export const readArtifactRange: JsonHandler<"artifacts/read_range"> = async ({ params, session }) => {
  const a = await find(session, params.artifact_id);
  if (params.offset > a.size) throw new HostApiFailure("invalid_argument", `offset ${params.offset} is past the end of artifact ${a.id} (${a.size} bytes)`);
  const bytes = await readArtifactBytes(a);
  const slice = bytes.subarray(params.offset, params.offset + params.length);
  return {
    artifact_id: a.id,
    offset: params.offset,
    length: slice.byteLength,
    size: bytes.byteLength,
    data_base64: Buffer.from(slice).toString("base64"),
    eof: params.offset + slice.byteLength >= bytes.byteLength,
  };
};

export const streamArtifact: StreamHandler<"artifacts/open_stream"> = async function* ({ params, session, signal }) {
  const a = await find(session, params.artifact_id);
  const bytes = await readArtifactBytes(a);
  const hash = createHash("sha256");
  for (let offset = 0; offset < bytes.byteLength; offset += MAX_READ_RANGE_BYTES) {
    signal.throwIfAborted();
    const chunk = bytes.subarray(offset, offset + MAX_READ_RANGE_BYTES);
    hash.update(chunk);
    yield { type: "chunk", offset, data_base64: Buffer.from(chunk).toString("base64") };
  }
  const sha256 = hash.digest("hex");
  if (a.sha256 && a.sha256 !== sha256) throw new HostApiFailure("runtime_error", `Artifact ${a.id}'s stored bytes do not match its sha256`);
  yield { type: "end", size: bytes.byteLength, sha256, mime_type: a.mimeType };
};
