import { describe, expect, it } from "vitest";
import { AppError } from "../kernel/errors";
import { pngBytes } from "@/test/images";
import { multipartBoundary, readLimitedBody, readMultipart } from "./upload-body";

const boundary = "----dispatchBoundary7MA4YWxkTrZu0gW";

function formBody(parts: { name: string; filename?: string; type?: string; data: Uint8Array | string }[]): Uint8Array {
  const chunks: Buffer[] = [Buffer.from("preamble to ignore\r\n")];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ""}\r\n`));
    if (p.type) chunks.push(Buffer.from(`Content-Type: ${p.type}\r\n`));
    chunks.push(Buffer.from("\r\n"), Buffer.from(p.data), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

/** A stream of `bytes` in chunks of `size`, counting how many chunks were pulled. */
function streamOf(bytes: Uint8Array, size: number) {
  const counter = { pulled: 0 };
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      counter.pulled++;
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
  return { stream, counter };
}

const opts = { boundary, maxFileBytes: 1024, tooLargeMessage: "too large" };

describe("readMultipart", () => {
  it("reads the file and the fields, however the body is split into chunks", async () => {
    // The file contains CRLF and a near-boundary, which must stay part of its bytes.
    const file = new Uint8Array(Buffer.concat([Buffer.from(pngBytes(7)), Buffer.from(`\r\n--${boundary.slice(0, -1)}x\r\n`)]));
    const body = formBody([
      { name: "threadId", data: "550e8400-e29b-41d4-a716-446655440000" },
      { name: "file", filename: "a.png", type: "image/png", data: file },
    ]);
    for (const size of [1, 2, 3, 7, 16, 64, body.length]) {
      const form = await readMultipart(streamOf(body, size).stream, opts);
      expect(form.fields).toEqual({ threadId: "550e8400-e29b-41d4-a716-446655440000" });
      expect(form.files).toHaveLength(1);
      expect(form.files[0]).toMatchObject({ field: "file", filename: "a.png", contentType: "image/png" });
      expect(Buffer.from(form.files[0]!.data).equals(Buffer.from(file))).toBe(true);
    }
  });

  it("counts a part with a Content-Type but no filename as a file", async () => {
    const form = await readMultipart(streamOf(formBody([{ name: "file", type: "image/png", data: pngBytes() }]), 50).stream, opts);
    expect(form.files.map((f) => f.field)).toEqual(["file"]);
  });

  it("stops reading as soon as a file passes the limit (413)", async () => {
    const body = formBody([{ name: "file", filename: "big.png", type: "image/png", data: new Uint8Array(100_000) }]);
    const { stream, counter } = streamOf(body, 256);
    const err = await readMultipart(stream, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: "too large" });
    // 1024 bytes of file fit in about five 256-byte chunks; the other ~390 were never pulled.
    expect(counter.pulled).toBeLessThan(10);
  });

  it("accepts a file of exactly the limit", async () => {
    const form = await readMultipart(streamOf(formBody([{ name: "file", filename: "a.png", data: new Uint8Array(1024) }]), 100).stream, opts);
    expect(form.files[0]!.data.byteLength).toBe(1024);
  });

  it("refuses a body cut short or without form-data parts (400)", async () => {
    const whole = formBody([{ name: "file", filename: "a.png", type: "image/png", data: pngBytes() }]);
    await expect(readMultipart(streamOf(whole.slice(0, whole.length - 20), 10).stream, opts)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(readMultipart(streamOf(new TextEncoder().encode("just text"), 10).stream, opts)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const noDisposition = new TextEncoder().encode(`--${boundary}\r\nContent-Type: image/png\r\n\r\nxx\r\n--${boundary}--`);
    await expect(readMultipart(streamOf(noDisposition, 10).stream, opts)).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("finds the boundary in the Content-Type, quoted or not", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${boundary}`)).toBe(boundary);
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("application/json")).toBeNull();
    expect(multipartBoundary("multipart/form-data")).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});

describe("readLimitedBody", () => {
  it("reads up to the limit and refuses the byte after it", async () => {
    expect((await readLimitedBody(streamOf(new Uint8Array(300), 64).stream, { maxBytes: 300, tooLargeMessage: "x" })).byteLength).toBe(300);
    await expect(readLimitedBody(streamOf(new Uint8Array(301), 64).stream, { maxBytes: 300, tooLargeMessage: "x" })).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
    });
    expect((await readLimitedBody(null, { maxBytes: 300, tooLargeMessage: "x" })).byteLength).toBe(0);
  });
});
