import { EventType } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { parseSSEStream } from "@ag-ui/client";
import { Subject, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "./events";
import { LastEventIdError, encodeSseFrame, parseLastEventId, serializeEvent, sseComment } from "./sse";

type HttpEvents = Parameters<typeof parseSSEStream>[0];

// Feeds raw bytes to @ag-ui/client's own SSE parser, split at arbitrary points the way a
// network delivers them. The parser subscribes to its source eagerly, so the bytes are
// pushed only once the result is being collected.
async function readWithOfficialParser(wire: string, chunkSize = 7): Promise<unknown[]> {
  const source = new Subject<unknown>();
  const collected = lastValueFrom(parseSSEStream(source as unknown as HttpEvents).pipe(toArray()));
  const bytes = new TextEncoder().encode(wire);
  source.next({ type: "headers", status: 200, headers: new Headers() });
  for (let i = 0; i < bytes.length; i += chunkSize) source.next({ type: "data", data: bytes.slice(i, i + chunkSize) });
  source.complete();
  return collected;
}

const content: AgUiEvent = { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "你好 😀\nsecond line", timestamp: 1_700_000_000_000 };

describe("serializeEvent", () => {
  it("produces the event's JSON once, valid against the AG-UI schema", () => {
    const json = serializeEvent(content);
    expect(JSON.parse(json)).toEqual(content);
    expect(EventSchema.safeParse(JSON.parse(json)).success).toBe(true);
    expect(json).not.toMatch(/[\r\n]/);
  });

  it("drops optional fields set to null, which consumers would reject", () => {
    const withNull = { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "get_weather", parentMessageId: null } as unknown as AgUiEvent;
    expect(JSON.parse(serializeEvent(withNull))).toEqual({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "get_weather" });
  });
});

describe("encodeSseFrame", () => {
  it("writes id and data lines, LF only, no event line", () => {
    expect(encodeSseFrame(42, '{"type":"RUN_STARTED"}')).toBe('id: 42\ndata: {"type":"RUN_STARTED"}\n\n');
    expect(encodeSseFrame(null, "{}")).toBe("data: {}\n\n");
    expect(encodeSseFrame(0, "{}")).toBe("id: 0\ndata: {}\n\n");
  });

  it("splits text with line breaks into data lines instead of ending the frame early", () => {
    expect(encodeSseFrame(1, "a\nb\r\nc")).toBe("id: 1\ndata: a\ndata: b\ndata: c\n\n");
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])("refuses %s as an event id", (seq) => {
    expect(() => encodeSseFrame(seq, "{}")).toThrow(RangeError);
  });

  it("is read back by @ag-ui/client's parser, heartbeats included", async () => {
    const started: AgUiEvent = { type: EventType.RUN_STARTED, threadId: "t", runId: "r" };
    const wire = sseComment("keep-alive") + encodeSseFrame(1, serializeEvent(started)) + sseComment("ping\nmulti") + encodeSseFrame(2, serializeEvent(content));
    expect(await readWithOfficialParser(wire)).toEqual([started, content]);
    expect(await readWithOfficialParser(wire, 1)).toEqual([started, content]);
  });
});

describe("sseComment", () => {
  it("prefixes every line so no line can become a field", () => {
    expect(sseComment("ping")).toBe(": ping\n\n");
    expect(sseComment("a\ndata: x")).toBe(": a\n: data: x\n\n");
    expect(sseComment("")).toBe(":\n\n");
  });
});

describe("parseLastEventId", () => {
  it.each([
    [null, null, null],
    [undefined, undefined, null],
    ["", null, null],
    ["  ", "", null],
    ["5", null, 5],
    [null, "7", 7],
    [" 12 ", null, 12],
    ["007", null, 7],
    ["0", null, 0],
    // EventSource reconnects to the original URL and puts its newer position in the header.
    ["9", "3", 9],
    ["", "3", 3],
    [String(Number.MAX_SAFE_INTEGER), null, Number.MAX_SAFE_INTEGER],
  ])("header %j, after %j -> %j", (header, after, expected) => {
    expect(parseLastEventId(header, after)).toBe(expected);
  });

  it.each([
    ["abc", null, "Last-Event-ID"],
    ["-1", null, "Last-Event-ID"],
    ["1.5", null, "Last-Event-ID"],
    ["1e3", null, "Last-Event-ID"],
    ["0x10", null, "Last-Event-ID"],
    ["99999999999999999", null, "Last-Event-ID"],
    [null, "latest", "after"],
    ["4", "-2", "after"],
  ])("rejects header %j, after %j naming %s", (header, after, field) => {
    let caught: unknown;
    try {
      parseLastEventId(header, after);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LastEventIdError);
    expect(caught).toMatchObject({ status: 400, field });
    expect((caught as Error).message).toMatch(new RegExp(`^${field} must be a non-negative integer`));
  });
});
