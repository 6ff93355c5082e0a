import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonInput, writeLine } from "./stdio";

// A FIFO stands in for stdin and stdout: its ends can be opened non-blocking (as a parent may
// leave them), and the test drives the other end when it wants.

const cleanup: (() => void)[] = [];

afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

function fifoPath() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "project-cli-stdio-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "fifo");
  execFileSync("mkfifo", [file]);
  return file;
}

/** Everything written to `fd` until its writer closes. */
async function drain(fd: number): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of new net.Socket({ fd, readable: true, writable: false })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function fifo() {
  const file = fifoPath();
  const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(file, constants.O_WRONLY);
  let writerOpen = true;
  cleanup.push(() => writerOpen && closeSync(writer));
  return {
    reader,
    /** Writes the chunks and closes the write end: the reader then sees the end of input. */
    send(...chunks: string[]) {
      for (const chunk of chunks) writeSync(writer, chunk);
      closeSync(writer);
      writerOpen = false;
    },
  };
}

const notAStream = () => {
  throw new Error("read as a stream");
};

describe("readJsonInput", () => {
  it("reads input that is there with plain reads", async () => {
    const stdin = fifo();
    cleanup.push(() => closeSync(stdin.reader));
    stdin.send('{"mode":"day",', '"date":"2026-04-21"}');
    expect(await readJsonInput(stdin.reader, notAStream)).toEqual({ mode: "day", date: "2026-04-21" });
  });

  it("waits on a stream when a non-blocking stdin has nothing to read yet", async () => {
    const stdin = fifo();
    // The socket owns the descriptor from here and closes it at the end of input.
    const pending = readJsonInput(stdin.reader, () => new net.Socket({ fd: stdin.reader, readable: true, writable: false }));
    stdin.send('{"facts":[{"key":"team",', '"value":"Platform"}]}');
    expect(await pending).toEqual({ facts: [{ key: "team", value: "Platform" }] });
  });

  it("takes no input as {} and refuses input that is not JSON", async () => {
    const empty = fifo();
    cleanup.push(() => closeSync(empty.reader));
    empty.send();
    expect(await readJsonInput(empty.reader, notAStream)).toEqual({});
    const invalid = fifo();
    cleanup.push(() => closeSync(invalid.reader));
    invalid.send("{not json");
    await expect(readJsonInput(invalid.reader, notAStream)).rejects.toMatchObject({ code: "INVALID_JSON_INPUT" });
  });
});

describe("writeLine", () => {
  it("writes the line with plain writes and calls back at once", async () => {
    const file = fifoPath();
    const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(file, constants.O_WRONLY);
    const received = drain(reader);
    let done = false;
    writeLine('{"ok":true}\n', () => (done = true), writer, notAStream);
    expect(done).toBe(true);
    closeSync(writer);
    expect(await received).toBe('{"ok":true}\n');
  });

  it("hands what a full non-blocking stdout refuses to the stream, and calls back when it is out", async () => {
    const file = fifoPath();
    const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
    const received = drain(reader);
    // More than a pipe holds, so the plain writes stop at EAGAIN.
    const line = `${JSON.stringify({ ok: true, data: "x".repeat(300_000) })}\n`;
    const stream = new net.Socket({ fd: writer, readable: false, writable: true });
    await new Promise<void>((resolve) => writeLine(line, resolve, writer, () => stream));
    stream.end();
    expect(await received).toBe(line);
  });
});
