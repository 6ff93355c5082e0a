import { randomUUID } from "node:crypto";
import { baseUrl } from "@/test/helpers";
import { collectSse, readSse, type SseFrame } from "@/test/sse";
import type { Cell } from "./axes";
import type { Door } from "./ag-ui-doors";
import type { RunRecord } from "./delivery";
import type { Participant } from "./participants";
import { WEATHER_ANSWER, type Turn } from "./turns";

// The Agent API door (POST /api/v1/agent/process, spec/agent-api-protocol.md): its own object
// stream, without SSE ids. A client that left rejoins by repeating the request with the same
// response_id, which streams the response again from its first object (docs/agent-api.md).

export type ApiObject = { object: string; type?: string; status?: string; session_id?: string; output?: ApiMessage[]; sequence_number?: number } & Record<string, unknown>;
type ApiMessage = { type: string; role: string; content: { type: string; text?: string; data?: Record<string, unknown> }[] };

export const objectsOf = (frames: SseFrame[]): ApiObject[] => frames.map((f) => JSON.parse(f.data) as ApiObject);

/** The response a run ended with (the last object). */
export const finalResponse = (run: RunRecord) => {
  const last = objectsOf(run.frames).at(-1);
  if (last?.object !== "response") throw new Error(`the stream did not end with a response: ${JSON.stringify(last)}`);
  return last as ApiObject & { output: ApiMessage[]; status: string; session_id: string };
};

/** The Agent API's image or file content part for the turn's attachment. */
const attachmentPart = ({ attachment: a }: Turn) =>
  !a ? [] : a.kind === "image" ? [{ type: "image", image_url: a.url }] : [{ type: "file", file_url: a.url, mime_type: a.mimeType }];

const dataOf = (run: RunRecord, type: string) => {
  const message = finalResponse(run).output.find((m) => m.type === type);
  if (!message) throw new Error(`the response has no ${type}: ${JSON.stringify(finalResponse(run))}`);
  return message.content[0]!.data!;
};

export function agentApiDoor(p: Participant, delivery: Cell["delivery"]): Door & { earlierLegs: Map<string, SseFrame[]> } {
  let sessionId: string | null = null;
  const earlierLegs = new Map<string, SseFrame[]>();
  const run = async (input: unknown[], tools: Turn["tools"]): Promise<RunRecord> => {
    const responseId = `resp-${randomUUID()}`;
    const body = { input, tools: tools.map((t) => ({ type: "function", function: t })), stream: true, response_id: responseId, ...(sessionId ? { session_id: sessionId } : {}) };
    const open = async () => {
      const res = await fetch(`${baseUrl()}/api/v1/agent/process`, { method: "POST", headers: { ...p.auth, "content-type": "application/json" }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`POST /process answered ${res.status}: ${await res.text()}`);
      return res;
    };
    let leftAfter: number | null = null;
    if (delivery === "resume") {
      const first: SseFrame[] = [];
      for await (const frame of readSse(await open())) if (first.push(frame) >= 2) break;
      earlierLegs.set(responseId, first);
      leftAfter = first.length;
    }
    const frames = await collectSse(await open());
    const record = { runId: responseId, frames, leftAfter };
    sessionId ??= finalResponse(record).session_id;
    return record;
  };
  return {
    earlierLegs,
    // The run's AG-UI log, read as an AG-UI 1.0 client would (the invariants replay it).
    reader: { auth: p.auth, version: "1.0" },
    get threadId() {
      if (!sessionId) throw new Error("no session yet");
      return sessionId;
    },
    start: (turn) =>
      run([{ type: "message", role: "user", content: [{ type: "text", text: turn.text }, ...attachmentPart(turn)] }], turn.tools),
    approve: (previous) => run([{ type: "mcp_approval_response", approval_request_id: dataOf(previous, "mcp_approval_request").id, approve: true }], []),
    answerTool: (previous, turn) =>
      run([{ type: "function_call_output", role: "tool", content: [{ type: "data", data: { call_id: dataOf(previous, "function_call").call_id, output: WEATHER_ANSWER } }] }], turn.tools),
  };
}
