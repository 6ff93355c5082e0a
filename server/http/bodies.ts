import "server-only";
import { readCapped } from "../lib/read-capped";
import type { z } from "zod";
import { AppError, invalidInput } from "../kernel/errors";
import { checkJsonText, decodeUtf8, NOT_UTF8, stringProblem, type TextRefusal } from "../input-text";
import type { UploadStream } from "../storage/upload-body";

// How an endpoint reads its body (endpoint.ts), each mapping its refusals to 400/413 here.

export type BodyReader<B> = {
  read: (req: Request) => Promise<B>;
  /** A JSON body's schema, which the OpenAPI document describes it with. */
  schema?: z.ZodType;
};

/** What a protocol's own parser answers for a body it refuses. */
export type ParseRefusal = { ok: false; status: 400 | 413; message: string; field?: string };

const declaredBytes = (req: Request) => Number(req.headers.get("content-length") ?? "0");

/**
 * A text body for a protocol parser (RunAgentInput, AgentRequest): a declared length over
 * `maxBytes` is refused before a byte is read, a body that passes it while being read as soon as
 * it does; the parser's refusals become 400/413 with its message.
 */
export function parsedText<T extends { ok: true }>(opts: {
  maxBytes: number;
  tooLargeMessage: string;
  parse: (text: string) => T | ParseRefusal;
}): BodyReader<T> {
  return {
    read: async (req) => {
      const parsed = opts.parse(await readCheckedText(req, opts.maxBytes, opts.tooLargeMessage));
      if (parsed.ok) return parsed;
      throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", parsed.message, parsed.field ? { field: parsed.field } : undefined);
    },
  };
}

// A small JSON request (a presign): far more than any needs, far less than memory.
const JSON_BODY_MAX_BYTES = 64 * 1024;

/** A JSON body checked against a schema: 400 when it is not JSON, or names the first field that is wrong. */
export function jsonBody<S extends z.ZodType>(schema: S): BodyReader<z.output<S>> {
  return {
    schema,
    read: async (req) => {
      const parsed = schema.safeParse(await readJson(req));
      if (!parsed.success) throw invalidInput(parsed.error.issues);
      return parsed.data;
    },
  };
}

/**
 * An `application/x-www-form-urlencoded` body (an OAuth token request, a consent form), each
 * parameter's first value checked against a schema: 400 names the first wrong field.
 */
export function formBody<S extends z.ZodType>(schema: S): BodyReader<z.output<S>> {
  return {
    read: async (req) => {
      const text = decodeUtf8(await readBodyCapped(req, JSON_BODY_MAX_BYTES, `The request body is larger than ${JSON_BODY_MAX_BYTES} bytes`));
      if (text === null) throw refuse(NOT_UTF8);
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(text)) {
        const problem = stringProblem(name) ?? stringProblem(value);
        if (problem) throw new AppError("BAD_REQUEST", `The form field ${name} ${problem}`, { field: name });
        if (!(name in fields)) fields[name] = value;
      }
      const parsed = schema.safeParse(fields);
      if (!parsed.success) throw invalidInput(parsed.error.issues);
      return parsed.data;
    },
  };
}

/** An upload, read by `read` as a stream under its own limits (the endpoint closes the connection on a refusal). */
export function upload<B>(read: (upload: UploadStream) => Promise<B>): BodyReader<B> {
  return { read: (req) => read({ contentType: req.headers.get("content-type"), declaredBytes: declaredBytes(req), body: req.body }) };
}

/**
 * The body's bytes, refused (413) once they pass `maxBytes`, whether its length was declared,
 * chunked or a lie: an oversize body is never held whole.
 */
async function readBodyCapped(req: Request, maxBytes: number, tooLargeMessage: string): Promise<Uint8Array> {
  if (declaredBytes(req) > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", tooLargeMessage);
  return readCapped(req.body, maxBytes, () => new AppError("PAYLOAD_TOO_LARGE", tooLargeMessage));
}

const refuse = (refusal: TextRefusal) => new AppError("BAD_REQUEST", refusal.message, refusal.field ? { field: refusal.field } : undefined);

/**
 * A JSON body's text: 400 when its bytes are not UTF-8, it nests deeper than any protocol needs,
 * or a string in it holds what PostgreSQL refuses (NUL, a lone surrogate), before it is parsed.
 */
async function readCheckedText(req: Request, maxBytes: number, tooLargeMessage: string): Promise<string> {
  const text = decodeUtf8(await readBodyCapped(req, maxBytes, tooLargeMessage));
  if (text === null) throw refuse(NOT_UTF8);
  const refusal = checkJsonText(text);
  if (refusal) throw refuse(refusal);
  return text;
}

/** Reads a JSON body, answering 400 with a clear message when it is not JSON. */
async function readJson(req: Request): Promise<unknown> {
  const text = await readCheckedText(req, JSON_BODY_MAX_BYTES, `The request body is larger than ${JSON_BODY_MAX_BYTES} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "Request body is not valid JSON");
  }
}
