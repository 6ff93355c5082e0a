import { HttpAgent } from "@ag-ui/client";
import { HttpAgent as HttpAgent048 } from "@ag-ui/client-0.0.48";
import { HttpAgent as HttpAgent059 } from "@ag-ui/client-0.0.59";
import { decode } from "@ag-ui/proto";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { PROTO_MEDIA_TYPE } from "@/server/protocols/ag-ui/encoding";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, paced, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";

// How the run endpoints encode a run's events per request: the Accept header (SSE, AG-UI
// protobuf, or 202 JSON) and the client's AG-UI protocol version, with the official clients
// that send each.

let user: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  user = await createTestUser();
});

const DAY = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]]';
type Event = { type: string } & Record<string, unknown>;

function post(body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/runs`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

const runStatus = async (runId: string) => (await getJson(user.apiKey, `/api/v1/agent/runs/${encodeURIComponent(runId)}`)).status;

/** The events of a protobuf answer: frames of a 4-byte big-endian length, then the message. */
function protoEvents(bytes: Buffer): Event[] {
  const events: Event[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    events.push(decode(bytes.subarray(at + 4, at + 4 + length)) as Event);
    at += 4 + length;
  }
  return events;
}

describe("POST /api/v1/agent/runs", () => {
  it.each([
    "text/html",
    "application/xml, text/plain;q=0.5",
    // From a client before AG-UI 1.0 (no protocolVersion): protobuf it could not read.
    PROTO_MEDIA_TYPE,
  ])("answers Accept %j with 406, saying what is served, and starts nothing", async (accept) => {
    const body = runInput();
    const res = await post(body, { accept });
    expect(res.status).toBe(406);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("NOT_ACCEPTABLE");
    expect(error.message).toContain("text/event-stream");
    expect(await runStatus(body.runId)).toBe(404);
  });

  it("answers */* and application/json with the background 202, as with no Accept", async () => {
    for (const accept of ["*/*", "application/json"]) {
      const body = runInput();
      const res = await post(body, { accept });
      expect(res.status, accept).toBe(202);
      expect(await res.json()).toMatchObject({ threadId: body.threadId, runId: body.runId });
    }
  });

  it("streams protobuf to an AG-UI 1.0 HttpAgent whose headers ask for it, the tool card included", async () => {
    const answered: (string | null)[] = [];
    const agent = new HttpAgent({
      url: `${baseUrl()}/api/v1/agent/runs`,
      headers: { ...bearer(user.apiKey), accept: PROTO_MEDIA_TYPE },
      threadId: randomUUID(),
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        answered.push(res.headers.get("content-type"));
        return res;
      },
    });
    agent.addMessage({ id: `m-${randomUUID()}`, role: "user", content: `what is on that day? ${DAY}` });
    const result = await agent.runAgent({ runId: `run-${randomUUID()}` });
    expect(answered).toEqual([PROTO_MEDIA_TYPE]);
    const tool = result.newMessages.find((m) => m.role === "tool") as { metadata?: { ui_schema?: { version?: string } } } | undefined;
    expect(tool?.metadata?.ui_schema?.version).toBe("2.0");
    expect(result.newMessages.at(-1)).toMatchObject({ role: "assistant" });

    // The same request by hand: the answer really is protobuf, and never the 202.
    const body = runInput({ protocolVersion: "1.0" }, "one two");
    const res = await post(body, { accept: `${PROTO_MEDIA_TYPE}, text/event-stream` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(PROTO_MEDIA_TYPE);
    const events = protoEvents(Buffer.from(await res.arrayBuffer()));
    expect(events[0]).toMatchObject({ type: "RUN_STARTED", runId: body.runId });
    expect(events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toBe("You said: one two");
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: body.runId, outcome: { type: "success" } });
  });

  it.each([
    ["@ag-ui/client 0.0.59 (CopilotKit 1.75)", HttpAgent059],
    ["@ag-ui/client 0.0.48 (@copilotkitnext 1.54)", HttpAgent048],
  ] as const)("serves %s a run it can read, through a cancel, while the log keeps AG-UI 1.0", async (_name, Agent) => {
    const runId = `run-${randomUUID()}`;
    const agent = new Agent({ url: `${baseUrl()}/api/v1/agent/runs`, headers: bearer(user.apiKey), threadId: randomUUID() });
    agent.setMessages([{ id: `m-${randomUUID()}`, role: "user", content: `${DAY} ${paced(150, "a b c d e f g h i j k l m n o p")}` }]);
    const cards: unknown[] = [];
    let cancelled: Promise<Response> | null = null;
    await agent.runAgent(
      { runId },
      {
        onToolCallResultEvent: ({ event }) => void cards.push((event as { metadata?: { ui_schema?: unknown } }).metadata?.ui_schema),
        onTextMessageContentEvent: () => void (cancelled ??= fetch(`${baseUrl()}/api/v1/agent/runs/${runId}/cancel`, { method: "POST", headers: bearer(user.apiKey) })),
      },
    );
    expect((await cancelled!).status).toBe(202);
    expect(cards).toEqual([expect.objectContaining({ version: "2.0" })]);
    expect((await waitForRunEnd(user.apiKey, runId)).status).toBe("cancelled");

    const last = async (query: string) => {
      const frames = await collectSse(await getJson(user.apiKey, `/api/v1/agent/runs/${runId}/events${query}`));
      return JSON.parse(frames.at(-1)!.data) as Event;
    };
    expect(await last("")).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
    expect(await last("?protocolVersion=0.0")).not.toHaveProperty("outcome");
  });
});

describe("GET /api/v1/agent/runs/{runId}/events", () => {
  it("answers in the encoding the Accept header asks for, and 406 when it names none", async () => {
    const body = runInput({}, "one two");
    expect((await post(body, {})).status).toBe(202);
    await waitForRunEnd(user.apiKey, body.runId);
    const events = (accept: string) => fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/events`, { headers: { ...bearer(user.apiKey), accept } });

    const sse = await events("*/*");
    expect(sse.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames = await collectSse(sse);
    const proto = await events(PROTO_MEDIA_TYPE);
    expect(proto.headers.get("content-type")).toBe(PROTO_MEDIA_TYPE);
    expect(protoEvents(Buffer.from(await proto.arrayBuffer()))).toEqual(frames.map((f) => JSON.parse(f.data)));

    const refused = await events("application/json");
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({ error: { code: "NOT_ACCEPTABLE", details: { served: ["text/event-stream", PROTO_MEDIA_TYPE] } } });
  });
});
