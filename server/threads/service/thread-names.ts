import "server-only";
import { createHash } from "node:crypto";
import { UUID_PATTERN } from "../../protocols/ag-ui/run-input-rules";

// A thread is keyed by a UUID. A client that names its threads otherwise (an Agent API
// session_id, an AG-UI threadId such as `thread_3f2a…` or `thread-1`) gets a thread whose id is
// derived from its user's id and the name: a name-based UUID, so the same name of the same user
// is always the same thread, two users' `thread-1` are two threads, and no name reaches someone
// else's thread. A UUID names the thread itself, as it always has. The Agent API and the AG-UI
// door share the derivation: a user's session `thread-1` is their AG-UI thread `thread-1`.

// The namespace of the name-based UUIDs, fixed forever: changing it would orphan every named thread.
const THREAD_NAMESPACE = Buffer.from("6d2f0c1e8a4b4e0f9a51c7d3b2e4f8a1", "hex");

/** RFC 9562 version 5 UUID of `name` in the threads' namespace. */
function nameBasedUuid(name: string): string {
  const bytes = createHash("sha1").update(THREAD_NAMESPACE).update(name, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A client's name for a thread: the thread's id, and whether the name was not that id itself. */
export type NamedThread = { threadId: string; name: string; named: boolean };

/** The thread a client's name means for this user. */
export function threadNamed(userId: string, name: string): NamedThread {
  if (UUID_PATTERN.test(name)) return { threadId: name.toLowerCase(), name, named: false };
  return { threadId: nameBasedUuid(`${userId}\n${name}`), name, named: true };
}
