import "server-only";
import { AppError } from "../kernel/errors";

// Request bodies for uploads, read as streams with hard limits: a file larger than the
// limit is refused as soon as its limit+1st byte arrives, so no upload can make the server
// hold more than the limit of it in memory. `multipart/form-data` is parsed here rather
// than with Request.formData(), which buffers the whole body before anyone can count it.

/** An upload as it arrives: the declared type and length, and the body not read yet. */
export type UploadStream = { contentType: string | null; declaredBytes: number; body: ReadableStream<Uint8Array> | null };

export type UploadedPart = { field: string; filename: string | null; contentType: string | null; data: Uint8Array };
export type MultipartBody = { fields: Record<string, string>; files: UploadedPart[] };

const MAX_HEADER_BYTES = 8 * 1024;
const MAX_FIELD_BYTES = 4 * 1024;
const MAX_PARTS = 8;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

export function multipartBoundary(contentType: string | null): string | null {
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType ?? "")) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType!);
  return match ? (match[1] ?? match[2])! : null;
}

// Browsers send files with a filename; other clients may send only a Content-Type.
const isFilePart = (p: { filename: string | null; contentType: string | null }) => p.filename !== null || p.contentType !== null;

const malformed = () => new AppError("BAD_REQUEST", "Malformed multipart/form-data body");

function parsePartHeaders(block: string): { field: string; filename: string | null; contentType: string | null } {
  let disposition = "";
  let contentType: string | null = null;
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) throw malformed();
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") disposition = value;
    else if (name === "content-type") contentType = value;
  }
  const field = /(?:^|;)\s*name="([^"]*)"/i.exec(disposition)?.[1];
  if (!/^form-data\b/i.test(disposition) || field === undefined) throw malformed();
  const filename = /(?:^|;)\s*filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
  return { field, filename, contentType };
}

/**
 * Reads a multipart body: small text fields, and file parts of at most `maxFileBytes`
 * each (413 with `tooLargeMessage` beyond it).
 */
// Long: a byte-level state machine reads best with its states side by side.
export async function readMultipart(
  body: ReadableStream<Uint8Array>,
  opts: { boundary: string; maxFileBytes: number; tooLargeMessage: string },
): Promise<MultipartBody> {
  const delimiter = Buffer.from(`\r\n--${opts.boundary}`);
  const result: MultipartBody = { fields: {}, files: [] };
  // A leading CRLF lets the first boundary match the same delimiter as the others.
  let buffer: Buffer = Buffer.from(CRLF);
  // Typed by assertion: `step` changes it, which flow analysis cannot see from the loop.
  let state = "preamble" as "preamble" | "after-delimiter" | "headers" | "body" | "done";
  let part: { field: string; filename: string | null; contentType: string | null; chunks: Buffer[]; size: number } | null = null;
  let parts = 0;

  const append = (bytes: Buffer) => {
    if (!part || bytes.length === 0) return;
    part.size += bytes.length;
    const isFile = isFilePart(part);
    if (isFile && part.size > opts.maxFileBytes) throw new AppError("PAYLOAD_TOO_LARGE", opts.tooLargeMessage);
    if (!isFile && part.size > MAX_FIELD_BYTES) throw new AppError("BAD_REQUEST", `Form field ${part.field} is too long`);
    part.chunks.push(bytes);
  };
  const finishPart = () => {
    if (!part) return;
    const data = Buffer.concat(part.chunks);
    if (isFilePart(part)) result.files.push({ field: part.field, filename: part.filename, contentType: part.contentType, data: new Uint8Array(data) });
    else result.fields[part.field] = data.toString("utf8");
    part = null;
  };

  const step = (): boolean => {
    switch (state) {
      case "preamble": {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          if (buffer.length > MAX_HEADER_BYTES) throw malformed();
          return false;
        }
        buffer = buffer.subarray(at + delimiter.length);
        state = "after-delimiter";
        return true;
      }
      case "after-delimiter": {
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          state = "done";
          return false;
        }
        if (!buffer.subarray(0, 2).equals(CRLF)) throw malformed();
        buffer = buffer.subarray(2);
        state = "headers";
        return true;
      }
      case "headers": {
        const at = buffer.indexOf(HEADER_END);
        if (at < 0) {
          if (buffer.length > MAX_HEADER_BYTES) throw malformed();
          return false;
        }
        if (++parts > MAX_PARTS) throw new AppError("BAD_REQUEST", "Too many parts in the multipart body");
        part = { ...parsePartHeaders(buffer.subarray(0, at).toString("utf8")), chunks: [], size: 0 };
        buffer = buffer.subarray(at + HEADER_END.length);
        state = "body";
        return true;
      }
      case "body": {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          // Everything but a possible partial delimiter at the end belongs to the part.
          const keep = Math.min(buffer.length, delimiter.length - 1);
          append(Buffer.from(buffer.subarray(0, buffer.length - keep)));
          buffer = Buffer.from(buffer.subarray(buffer.length - keep));
          return false;
        }
        append(Buffer.from(buffer.subarray(0, at)));
        finishPart();
        buffer = buffer.subarray(at + delimiter.length);
        state = "after-delimiter";
        return true;
      }
      case "done":
        return false;
    }
  };

  const reader = body.getReader();
  try {
    while (state !== "done") {
      const { value, done } = await reader.read();
      if (done) break;
      buffer = Buffer.concat([buffer, value]);
      while (step());
    }
  } finally {
    // Not cancelled: cancelling a request body mid-upload leaves the HTTP/1.1 connection
    // unusable for the client's next request. Node discards the unread rest instead.
    reader.releaseLock();
  }
  if (state !== "done") throw malformed();
  return result;
}

/** Reads a raw body of at most `maxBytes` (413 with `tooLargeMessage` beyond it). */
export async function readLimitedBody(body: ReadableStream<Uint8Array> | null, opts: { maxBytes: number; tooLargeMessage: string }): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > opts.maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", opts.tooLargeMessage);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return new Uint8Array(Buffer.concat(chunks));
}

// Room for the multipart framing around the file: boundaries, part headers, small fields (a title, a threadId).
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * The `file` part of a multipart upload, and its small text fields. A declared Content-Length
 * over the limit (plus room for the framing) is refused before a byte is read.
 */
export async function readFormFile(
  upload: UploadStream,
  opts: { maxFileBytes: number; tooLargeMessage: string; notMultipartMessage: string },
): Promise<{ file: UploadedPart; fields: Record<string, string> }> {
  if (upload.declaredBytes > opts.maxFileBytes + MULTIPART_OVERHEAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", opts.tooLargeMessage);
  const boundary = multipartBoundary(upload.contentType);
  if (!boundary) throw new AppError("UNSUPPORTED_MEDIA_TYPE", opts.notMultipartMessage);
  const form = upload.body ? await readMultipart(upload.body, { boundary, maxFileBytes: opts.maxFileBytes, tooLargeMessage: opts.tooLargeMessage }) : null;
  const file = form?.files.find((f) => f.field === "file");
  if (!form || !file) throw new AppError("BAD_REQUEST", "The form has no `file` field");
  return { file, fields: form.fields };
}
