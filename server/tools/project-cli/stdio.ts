import { readSync } from "node:fs";
import { ToolError } from "./errors";

const MAX_INPUT_BYTES = 1_000_000;

/**
 * The call's JSON input from `fd` (stdin), `{}` when there is none. Read with plain reads: a
 * stream and its async iterator run a good deal of Node's own code, compiled again by every call.
 * A non-blocking descriptor with nothing to read yet (EAGAIN) is read as `stream()` after all.
 */
export async function readJsonInput(fd = 0, stream: () => AsyncIterable<Buffer> = () => process.stdin): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_INPUT_BYTES) throw new ToolError("INPUT_TOO_LARGE", `The JSON input may be at most ${MAX_INPUT_BYTES} bytes`);
    chunks.push(chunk);
  };
  const buffer = Buffer.allocUnsafe(65_536);
  for (let read = -1; read !== 0; ) {
    try {
      read = readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === "EOF") break;
      if (code !== "EAGAIN") throw err;
      for await (const chunk of stream()) add(chunk);
      break;
    }
    if (read > 0) add(Buffer.from(buffer.subarray(0, read)));
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError("INVALID_JSON_INPUT", "The input on stdin is not valid JSON");
  }
}
