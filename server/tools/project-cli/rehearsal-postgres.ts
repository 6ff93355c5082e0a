import net from "node:net";

// Just enough of PostgreSQL's wire protocol for the build's rehearsal of CLI calls
// (write-code-cache.ts), so pg's connection and query code runs and lands in the code cache:
// every startup is let in without a password and every statement finds no rows.

const message = (type: string, body: Buffer = Buffer.alloc(0)) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
const cstring = (s: string) => Buffer.from(`${s}\0`, "latin1");

const READY = message("Z", Buffer.from("I"));
const DONE = message("C", cstring("SELECT 0"));
// One answer per message of the extended query protocol: Parse, Bind, Describe (no columns),
// Execute, Sync; and for a simple Query its completion.
const ANSWERS: Record<string, Buffer> = {
  P: message("1"),
  B: message("2"),
  D: message("T", Buffer.from([0, 0])),
  E: DONE,
  S: READY,
  Q: Buffer.concat([DONE, READY]),
};

function serve(socket: net.Socket) {
  let pending = Buffer.alloc(0);
  let started = false;
  socket.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      // The startup message has no type byte; every later one has.
      const start = started ? 1 : 0;
      if (pending.length < start + 4) return;
      const end = start + pending.readInt32BE(start);
      if (pending.length < end) return;
      const type = started ? String.fromCharCode(pending[0]!) : "startup";
      pending = pending.subarray(end);
      if (type === "startup") {
        started = true;
        socket.write(Buffer.concat([message("R", int32(0)), READY]));
      } else if (type === "X") socket.end();
      else if (ANSWERS[type]) socket.write(ANSWERS[type]);
    }
  });
}

/** Listens on a free loopback port for as long as the process runs; resolves to its URL. */
export async function startRehearsalPostgres(): Promise<string> {
  const server = net.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  // No password: this server never asks for one.
  return `postgresql://rehearsal@127.0.0.1:${port}/rehearsal`;
}
