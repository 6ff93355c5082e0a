import { HttpAgent } from "@ag-ui/client";
import { EventSchema } from "@ag-ui/core/schemas";
import { decode } from "@ag-ui/proto";
import { describe, expect, it } from "vitest";
import { RUN_BODY, RUN_ENDINGS, RUN_ID, records, THREAD_ID, UI_SCHEMA } from "@/test/ag-ui-events";
import {
  isLegacyProtocol,
  JSON_MEDIA_TYPE,
  LEGACY_SSE_ENCODING,
  negotiateEventEncoding,
  preferredMediaType,
  PROTO_ENCODING,
  PROTO_MEDIA_TYPE,
  SSE_ENCODING,
  SSE_MEDIA_TYPE,
  wantsEventStream,
} from "./encoding";
import { createEventSequenceGuard } from "./event-guard";

const RUN_ANSWERS = [JSON_MEDIA_TYPE, SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE];
const STREAMS = [SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE];

describe("the event catalogue the encodings are tested with", () => {
  it.each(Object.keys(RUN_ENDINGS))("is a run the event guard admits, ending %s", (ending) => {
    const guard = createEventSequenceGuard();
    for (const event of [...RUN_BODY, RUN_ENDINGS[ending]!]) guard.accept(event);
  });
});

describe("preferredMediaType", () => {
  it.each([
    // No header, or one that names nothing readable, is */*: the endpoint's first type.
    [null, RUN_ANSWERS, JSON_MEDIA_TYPE],
    ["", RUN_ANSWERS, JSON_MEDIA_TYPE],
    ["not a media range", RUN_ANSWERS, JSON_MEDIA_TYPE],
    ["*/*", RUN_ANSWERS, JSON_MEDIA_TYPE],
    [null, STREAMS, SSE_MEDIA_TYPE],
    ["*/*", STREAMS, SSE_MEDIA_TYPE],
    ["text/event-stream", RUN_ANSWERS, SSE_MEDIA_TYPE],
    ["TEXT/Event-Stream; charset=utf-8", STREAMS, SSE_MEDIA_TYPE],
    ["nonsense, text/event-stream", RUN_ANSWERS, SSE_MEDIA_TYPE],
    ["application/vnd.ag-ui.event+proto", RUN_ANSWERS, PROTO_MEDIA_TYPE],
    // Equal q: the type written first (an HttpAgent given this Accept in its headers sends it first).
    ["application/vnd.ag-ui.event+proto, text/event-stream", STREAMS, PROTO_MEDIA_TYPE],
    ["text/event-stream, application/vnd.ag-ui.event+proto", STREAMS, SSE_MEDIA_TYPE],
    ["text/event-stream;q=0.5, application/vnd.ag-ui.event+proto", STREAMS, PROTO_MEDIA_TYPE],
    ["application/json, text/event-stream", RUN_ANSWERS, JSON_MEDIA_TYPE],
    // A named type beats one reached by a wildcard at the same q.
    ["*/*, text/event-stream", RUN_ANSWERS, SSE_MEDIA_TYPE],
    ["*/*;q=0.1, text/event-stream", RUN_ANSWERS, SSE_MEDIA_TYPE],
    ["text/*", RUN_ANSWERS, SSE_MEDIA_TYPE],
    ["application/*", RUN_ANSWERS, JSON_MEDIA_TYPE],
    // No wildcard reaches protobuf.
    ["application/*", STREAMS, null],
    ["*/*, text/event-stream;q=0", STREAMS, null],
    ["*/*;q=0.2, text/event-stream;q=0", RUN_ANSWERS, JSON_MEDIA_TYPE],
    ["application/json", STREAMS, null],
    ["text/html", RUN_ANSWERS, null],
    ['application/json;profile="a,b";q=0.4, text/event-stream;q=0.5', RUN_ANSWERS, SSE_MEDIA_TYPE],
  ] as const)("%j of %j is %j", (accept, offered, expected) => {
    expect(preferredMediaType(accept, offered)).toBe(expected);
  });
});

describe("wantsEventStream", () => {
  it.each([
    [null, false],
    ["*/*", false],
    ["application/json", false],
    ["text/html", false],
    ["text/event-stream", true],
    [PROTO_MEDIA_TYPE, true],
    ["application/json;q=0.9, text/event-stream", true],
  ] as const)("%j: %j", (accept, expected) => {
    expect(wantsEventStream(accept)).toBe(expected);
  });
});

describe("isLegacyProtocol", () => {
  it.each([
    [undefined, true],
    [null, true],
    [" ", true],
    ["0.0", true],
    ["0.9", true],
    ["1.0", false],
    ["1.1", false],
    ["2.0", false],
    ["next", false],
  ] as const)("%j: %j", (version, expected) => {
    expect(isLegacyProtocol(version)).toBe(expected);
  });
});

describe("negotiateEventEncoding", () => {
  it("serves AG-UI 1.0 clients SSE as stored, or protobuf when they ask for it", () => {
    expect(negotiateEventEncoding({ accept: "text/event-stream", protocolVersion: "1.0" })).toEqual({ ok: true, encoding: SSE_ENCODING });
    expect(negotiateEventEncoding({ accept: PROTO_MEDIA_TYPE, protocolVersion: "1.0" })).toEqual({ ok: true, encoding: PROTO_ENCODING });
  });

  it("serves clients before 1.0 their own form of the events, over SSE only", () => {
    expect(negotiateEventEncoding({ accept: "text/event-stream", protocolVersion: undefined })).toEqual({ ok: true, encoding: LEGACY_SSE_ENCODING });
    expect(negotiateEventEncoding({ accept: `${PROTO_MEDIA_TYPE}, text/event-stream`, protocolVersion: undefined })).toEqual({ ok: true, encoding: LEGACY_SSE_ENCODING });
    const refused = negotiateEventEncoding({ accept: PROTO_MEDIA_TYPE, protocolVersion: undefined });
    expect(refused).toEqual({ ok: false, served: [SSE_MEDIA_TYPE], message: expect.stringContaining('needs RunAgentInput.protocolVersion "1.0"') });
  });

  it("refuses an Accept header that names no stream type, saying which are served", () => {
    const refused = negotiateEventEncoding({ accept: "application/json", protocolVersion: "1.0" });
    expect(refused).toEqual({ ok: false, served: STREAMS, message: `The Accept header accepts none of the types served here: ${SSE_MEDIA_TYPE}, ${PROTO_MEDIA_TYPE}` });
  });
});

describe("SSE frames", () => {
  it("carry the stored JSON with the sequence number as id, and no id for a record outside the log", () => {
    const json = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}';
    expect(SSE_ENCODING.frame({ seq: 7, type: "TEXT_MESSAGE_CONTENT", json })).toBe(`id: 7\ndata: ${json}\n\n`);
    expect(SSE_ENCODING.frame({ seq: 0, type: "TEXT_MESSAGE_CONTENT", json })).toBe(`data: ${json}\n\n`);
    expect(SSE_ENCODING.contentType).toBe("text/event-stream; charset=utf-8");
    expect(SSE_ENCODING.heartbeat).toBe(": ping\n\n");
  });
});

function protoMessages(frame: Uint8Array): Uint8Array {
  const length = new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0, false);
  expect(frame.length).toBe(4 + length);
  return frame.subarray(4);
}

describe("protobuf frames", () => {
  it("have the exact Content-Type @ag-ui/client compares with, and no heartbeat", () => {
    expect(PROTO_ENCODING.contentType).toBe("application/vnd.ag-ui.event+proto");
    expect(PROTO_ENCODING.heartbeat).toBeNull();
  });

  // What makes protobuf safe to offer for any run: nothing the log can hold is lost.
  it.each([...RUN_BODY, ...Object.values(RUN_ENDINGS)].map((event) => [event.type, event] as const))("carry every field of %s", (_type, event) => {
    const [rec] = records([event]);
    const decoded = decode(protoMessages(PROTO_ENCODING.frame(rec!) as Uint8Array));
    const expected = EventSchema.parse(event);
    // Protobuf has no absent list: RUN_STARTED.input's resume comes back empty, which means the same.
    if (expected.type === "RUN_STARTED" && expected.input) expected.input.resume ??= [];
    expect(decoded).toEqual(expected);
  });
});

describe("@ag-ui/client 1.0's HttpAgent", () => {
  it("asks for protobuf when its headers carry that Accept, and reads the frames into its messages", async () => {
    const asked: { accept: string | null; contentType?: string } = { accept: null };
    const fetch = async (_url: RequestInfo | URL, init?: RequestInit) => {
      asked.accept = new Headers(init?.headers).get("accept");
      const input = JSON.parse(String(init?.body)) as { protocolVersion?: string };
      const negotiated = negotiateEventEncoding({ accept: asked.accept, protocolVersion: input.protocolVersion });
      if (!negotiated.ok) return new Response(negotiated.message, { status: 406 });
      asked.contentType = negotiated.encoding.contentType;
      const frames = records([...RUN_BODY, RUN_ENDINGS.success!]).map((rec) => negotiated.encoding.frame(rec) as Uint8Array);
      return new Response(Buffer.concat(frames), { headers: { "content-type": negotiated.encoding.contentType } });
    };
    const agent = new HttpAgent({ url: "http://dispatch.test/api/v1/agent/runs", threadId: THREAD_ID, headers: { accept: PROTO_MEDIA_TYPE }, fetch });
    agent.setMessages([{ id: "u1", role: "user", content: "看看这张图" }]);

    const { result } = await agent.runAgent({ runId: RUN_ID });

    // Its own Accept comes after the one in its headers.
    expect(asked).toEqual({ accept: `${PROTO_MEDIA_TYPE}, text/event-stream`, contentType: PROTO_MEDIA_TYPE });
    expect(result).toEqual({ summary: "done" });
    expect(agent.messages.find((m) => m.id === "m1")).toMatchObject({ role: "assistant", content: "好的，我来创建。" });
    expect(agent.messages.find((m) => m.id === "t1")).toMatchObject({ role: "tool", toolCallId: "c1", metadata: { ui_schema: UI_SCHEMA } });
  });
});
