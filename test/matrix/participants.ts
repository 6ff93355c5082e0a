import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { CAREFUL_MEMORY_RUNNER_ID, carefulMemoryRunner } from "@/examples/runners/careful-memory";
import { ECHO_RUNNER_ID, echoRunner } from "@/examples/runners/echo";
import { FRONTEND_TOOLS_RUNNER_ID, frontendToolsRunner } from "@/examples/runners/frontend-tools";
import { startRunners, type StartedRunner } from "@/examples/runners/start";
import { defineRunner } from "@/sdk/runner/define-runner";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { pngBytes } from "@/test/images";
import type { Attachment } from "./turns";
import type { Cell } from "./axes";

// Who takes part in a cell: a fresh user (so usage and history are the cell's alone), bound to the
// example runner its tool needs when an external runner answers, signed in when the door is the
// web chat; and the secrets none of the cell's frames or history may show (the canaries).

/** The example runners, one endpoint; its secret carries a canary marker. */
export type Runners = { endpoint: StartedRunner; secret: string };

// The example runners under ids of the matrix's own: a runner id names one endpoint, and other test
// files register the examples' ids at endpoints of theirs (and stop them) while the matrix runs.
const MATRIX_RUNNERS = [echoRunner, carefulMemoryRunner, frontendToolsRunner].map((r) =>
  defineRunner({ manifest: { ...r.manifest, id: r.manifest.id.replace("plugin:dispatch-examples/", "plugin:dispatch-matrix/") }, run: r.run }),
);
const matrixId = (exampleId: string) => exampleId.replace("plugin:dispatch-examples/", "plugin:dispatch-matrix/");

export async function startMatrixRunners(): Promise<Runners> {
  const secret = `canary-runner-secret-${randomUUID()}`;
  const endpoint = await startRunners({ secret, hostUrl: baseUrl(), runners: MATRIX_RUNNERS });
  await registerRunner({ url: endpoint.url, secret });
  return { endpoint, secret };
}

const RUNNER_FOR_TOOL: Record<Cell["tools"], string> = {
  none: matrixId(ECHO_RUNNER_ID),
  "cli-read": matrixId(CAREFUL_MEMORY_RUNNER_ID),
  "cli-write-approval": matrixId(CAREFUL_MEMORY_RUNNER_ID),
  frontend: matrixId(FRONTEND_TOOLS_RUNNER_ID),
};

export type Participant = {
  userId: string;
  /** How this door's client authenticates: the API key, or the web chat's session cookie. */
  auth: Record<string, string>;
  /** The API key, for the checks made outside the door (history, run status). */
  apiKey: string;
  secrets: string[];
};

export async function participantFor(cell: Cell, runners: Runners): Promise<Participant> {
  const user = await createTestUser();
  if (cell.executor === "runner") await bindRunner({ runnerId: RUNNER_FOR_TOOL[cell.tools], email: user.email });
  const secrets = [user.apiKey, user.password, runners.secret, inject("authSecret"), inject("llmApiKey")];
  if (cell.door !== "web") return { userId: user.id, auth: bearer(user.apiKey), apiKey: user.apiKey, secrets };
  const cookie = await signInOverHttp(user.email, user.password);
  if (!cookie) throw new Error("could not sign in over HTTP");
  const session = cookie.split("; ").find((c) => c.startsWith("authjs.session-token="))!.split("=")[1]!;
  return { userId: user.id, auth: { cookie }, apiKey: user.apiKey, secrets: [...secrets, session] };
}

/** A small CSV document, different per seed. */
const csvBytes = (seed: number) => new TextEncoder().encode(`city,forecast\nParis,sunny ${seed}\nLyon,rain ${seed}\n`);

/**
 * An image or a document uploaded as the web chat uploads a large file: presign, then PUT the
 * bytes; what a message attaches.
 */
export async function uploadAttachment(p: Participant, input: "image" | "file", seed: number): Promise<Attachment> {
  const [bytes, mimeType, kind] = input === "image" ? [pngBytes(seed), "image/png", "image" as const] : [csvBytes(seed), "text/csv", "document" as const];
  const res = await fetch(`${baseUrl()}/api/v1/agent/attachments/presign`, {
    method: "POST",
    headers: { ...p.auth, "content-type": "application/json" },
    body: JSON.stringify({ mime_type: mimeType, size: bytes.byteLength, ...(kind === "document" ? { file_name: `forecast-${seed}.csv` } : {}) }),
  });
  if (res.status !== 201) throw new Error(`presign answered ${res.status}: ${await res.text()}`);
  const presigned = (await res.json()) as { url: string; upload: { url: string; headers: Record<string, string> } };
  // As the browser: it sets Content-Length itself.
  const headers = Object.fromEntries(Object.entries(presigned.upload.headers).filter(([name]) => name.toLowerCase() !== "content-length"));
  const put = await fetch(presigned.upload.url, { method: "PUT", headers, body: Buffer.from(bytes) });
  if (put.status !== 200) throw new Error(`the presigned PUT answered ${put.status}`);
  return { url: presigned.url, mimeType, kind, text: kind === "document" ? `Lyon,rain ${seed}` : null };
}
