import { readSync, writeSync } from "node:fs";
import { ToolError } from "./errors";

// The CLI's stdin and stdout, used with plain reads and writes: process.stdin and process.stdout
// are streams over sockets, and setting them up and running their code costs each call several
// milliseconds of compiling Node's own code. A non-blocking descriptor that cannot go on yet
// (EAGAIN) is left to the stream after all.

const MAX_INPUT_BYTES = 1_000_000;

/** The call's JSON input from `fd` (stdin), `{}` when there is none. */
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

/** Writes `line` to `fd` (stdout); `done` runs once all of it is handed to the OS. */
export function writeLine(line: string, done: () => void, fd = 1, stream: () => NodeJS.WritableStream = () => process.stdout): void {
  const data = Buffer.from(line);
  let written = 0;
  try {
    while (written < data.length) written += writeSync(fd, data, written);
  } catch (err) {
    if ((err as { code?: unknown }).code !== "EAGAIN") throw err;
    stream().write(data.subarray(written), () => done());
    return;
  }
  done();
}
