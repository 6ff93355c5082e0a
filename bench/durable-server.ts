// The durable limit on this machine (#45): the bare node:http server of baseline-server.ts plus
// PostgreSQL, doing only the minimal persist-before-publish path Dispatch promises (every event
// durable before a client sees it), and nothing else: no auth, no history, no conversation state.
//   - one statement accepts a run and writes RUN_STARTED (the run's row and its first events row);
//   - every run's pending events go to ONE shared writer, which inserts them all with one
//     multi-row INSERT per commit (one row per run and batch, as Dispatch's run_event_batches);
//     the next batch starts when the last one committed;
//   - only after that commit are the batch's frames written to their sockets;
//   - a run's last batch marks it finished in the same statement (one statement, one transaction).
// Same wire as the bare limit: RunAgentInput in, AG-UI SSE frames out, the fake model via fetch.
// Its tables live in a schema of their own, created at start.
//   POST /runs          one run, streamed as SSE
// Usage: node --import tsx bench/durable-server.ts --port N --model-url URL --database-url URL
import { randomUUID } from "node:crypto";
import http from "node:http";
import { parseArgs } from "node:util";
import pg from "pg";

const { values } = parseArgs({ options: { port: { type: "string" }, "model-url": { type: "string" }, "database-url": { type: "string" } } });
const modelUrl = `${values["model-url"]}/chat/completions`;

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" };

const SCHEMA = [
  "create schema if not exists durable_limit",
  `create table if not exists durable_limit.runs (
     id text primary key, thread_id text not null, finished_at timestamptz, created_at timestamptz not null default now())`,
  `create table if not exists durable_limit.event_batches (
     run_id text not null references durable_limit.runs (id) on delete cascade, first_seq int not null, last_seq int not null,
     events text not null, created_at timestamptz not null default now(), primary key (run_id, first_seq))`,
];

const ACCEPT = `with r as (insert into durable_limit.runs (id, thread_id) values ($1, $2) returning id)
  insert into durable_limit.event_batches (run_id, first_seq, last_seq, events) select id, 1, 1, $3 from r`;

// One statement: every pending run's frames as one row each, and the runs that ended marked finished.
const COMMIT = `with e as (
    insert into durable_limit.event_batches (run_id, first_seq, last_seq, events)
    select * from unnest($1::text[], $2::int[], $3::int[], $4::text[]))
  update durable_limit.runs set finished_at = now() where id = any($5::text[])`;

function sseFrame(seq: number, event: object): string {
  return `id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A run's frames not yet committed: published (written to its socket) only after their commit. */
type Pending = { runId: string; res: http.ServerResponse; firstSeq: number; frames: string[]; finished: boolean };

// The accepting statements get as many connections as Dispatch's pool on a long-running server
// (server/db.ts: 20); the writer has its own.
const pool = new pg.Pool({ connectionString: values["database-url"], max: 20 });
const writer = new pg.Client({ connectionString: values["database-url"] });

let queue = new Map<string, Pending>();
let committing = false;

/** Commits everything pending in one statement, publishes it, and goes on while more is pending. */
async function flush(): Promise<void> {
  if (committing || queue.size === 0) return;
  committing = true;
  const batch = [...queue.values()];
  queue = new Map();
  try {
    await writer.query(COMMIT, [
      batch.map((p) => p.runId),
      batch.map((p) => p.firstSeq),
      batch.map((p) => p.firstSeq + p.frames.length - 1),
      batch.map((p) => p.frames.join("")),
      batch.filter((p) => p.finished).map((p) => p.runId),
    ]);
    for (const p of batch) {
      if (p.res.destroyed) continue;
      p.res.write(p.frames.join(""));
      if (p.finished) p.res.end();
    }
  } catch {
    for (const p of batch) p.res.destroy();
  } finally {
    committing = false;
  }
  void flush();
}

/** Queues one frame of a run for the shared writer. */
function enqueue(runId: string, res: http.ServerResponse, seq: number, frame: string, finished = false): void {
  let p = queue.get(runId);
  if (!p) {
    p = { runId, res, firstSeq: seq, frames: [], finished: false };
    queue.set(runId, p);
  }
  p.frames.push(frame);
  p.finished ||= finished;
  void flush();
}

type Input = { threadId: string; runId: string; messages: { role: string; content: string }[] };

/** The model's text deltas, as the bare limit reads them. */
async function* modelText(messages: Input["messages"], signal: AbortSignal): AsyncGenerator<string> {
  const upstream = await fetch(modelUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench", stream: true, messages }),
    signal,
  });
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of upstream.body as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const text = (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content;
      if (text) yield text;
    }
  }
}

async function run(res: http.ServerResponse, body: string): Promise<void> {
  const input = JSON.parse(body) as Input;
  if (typeof input.threadId !== "string" || typeof input.runId !== "string" || !Array.isArray(input.messages)) {
    res.writeHead(400).end();
    return;
  }
  const abort = new AbortController();
  res.once("close", () => abort.abort());
  const { threadId, runId } = input;
  const started = sseFrame(1, { type: "RUN_STARTED", threadId, runId });
  await pool.query(ACCEPT, [runId, threadId, started]);
  res.writeHead(200, SSE_HEADERS);
  res.write(started);
  let seq = 1;
  const messageId = `msg_${randomUUID()}`;
  let open = false;
  for await (const text of modelText(input.messages, abort.signal)) {
    if (!open) {
      open = true;
      enqueue(runId, res, ++seq, sseFrame(seq, { type: "TEXT_MESSAGE_START", messageId, role: "assistant" }));
    }
    enqueue(runId, res, ++seq, sseFrame(seq, { type: "TEXT_MESSAGE_CONTENT", messageId, delta: text }));
  }
  if (open) enqueue(runId, res, ++seq, sseFrame(seq, { type: "TEXT_MESSAGE_END", messageId }));
  enqueue(runId, res, ++seq, sseFrame(seq, { type: "RUN_FINISHED", threadId, runId }), true);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    run(res, Buffer.concat(chunks).toString("utf8")).catch(() => res.destroy());
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;

async function main(): Promise<void> {
  await writer.connect();
  for (const statement of SCHEMA) await writer.query(statement);
  server.listen(Number(values.port), "127.0.0.1", () => process.stdout.write("ready\n"));
}

main().catch((err: unknown) => {
  process.stderr.write(`durable-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
process.on("SIGTERM", () => process.exit(0));
