// An OpenAI-compatible chat completions server for the benchmark, in its own process so it
// does not share an event loop with the load generator. Every answer is ANSWER_TOKENS
// tokens. The latest user message picks the pace:
//   [[bench:fast]]   all tokens at once (zero delay)
//   [[bench:slow]]   one token every 20 ms (the first at once, the end 200 × 20 ms = 4.0 s after the request)
//   [[bench:stall]]  one token, then nothing until POST /bench/release (which drops the
//                    connection, so the run ends at once with a model error) or the client leaves
//   [[bench:state]]  first STATE_CALLS update_state calls in one step (each a one-operation
//                    patch: a run with state gets that many STATE_DELTA events), then, once
//                    their results are in the request, the fast answer
// Usage: node --import tsx bench/fake-model.ts --port N
import http from "node:http";
import { parseArgs } from "node:util";
import { ANSWER_TOKENS, SLOW_TOKEN_MS } from "./answer";

const MODES = ["fast", "slow", "stall", "state"] as const;
type Mode = (typeof MODES)[number];

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
const frame = (body: object) => `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: "bench", ...body })}\n\n`;
const delta = (d: object, finish: string | null = null) => frame({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

// Serialized once: the fake model must cost next to nothing next to what it measures.
const HEAD = delta({ role: "assistant", content: "" });
const TOKENS = Array.from({ length: ANSWER_TOKENS }, (_, i) => delta({ content: `${WORDS[i % WORDS.length]} ` }));
const TAIL =
  delta({}, "stop") + frame({ choices: [], usage: { prompt_tokens: 100, completion_tokens: ANSWER_TOKENS, total_tokens: 100 + ANSWER_TOKENS } }) + "data: [DONE]\n\n";
const FAST_BODY = HEAD + TOKENS.join("") + TAIL;

const STATE_CALLS = 10;
const stateCallId = (i: number) => `call_bench_state_${i}`;
const STATE_CALLS_BODY =
  HEAD +
  Array.from({ length: STATE_CALLS }, (_, i) =>
    delta({ tool_calls: [{ index: i, id: stateCallId(i), type: "function", function: { name: "update_state", arguments: JSON.stringify({ operations: [{ op: "add", path: "/progress", value: i + 1 }] }) } }] }),
  ).join("") +
  delta({}, "tool_calls") +
  frame({ choices: [], usage: { prompt_tokens: 100, completion_tokens: 10 * STATE_CALLS, total_tokens: 100 + 10 * STATE_CALLS } }) +
  "data: [DONE]\n\n";

const stalled = new Set<http.ServerResponse>();

function modeOf(body: string): Mode {
  const at = body.lastIndexOf("[[bench:");
  const mode = at < 0 ? "fast" : body.slice(at + 8, body.indexOf("]]", at));
  return (MODES as readonly string[]).includes(mode) ? (mode as Mode) : "fast";
}

function finish(res: http.ServerResponse, from: number): void {
  if (res.destroyed) return;
  res.end(TOKENS.slice(from).join("") + TAIL);
}

function answer(res: http.ServerResponse, mode: Mode, body: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if (mode === "state") {
    res.end(body.includes(stateCallId(0)) ? FAST_BODY : STATE_CALLS_BODY);
    return;
  }
  if (mode === "fast") {
    res.end(FAST_BODY);
    return;
  }
  res.write(HEAD + TOKENS[0]);
  if (mode === "stall") {
    stalled.add(res);
    res.once("close", () => stalled.delete(res));
    return;
  }
  // Tick k (token k, then the end at tick ANSWER_TOKENS) is due k × SLOW_TOKEN_MS after the
  // request, whenever the previous one ran: a late timer under load does not push back the rest.
  const started = performance.now();
  let next = 1;
  const tick = () => {
    if (res.destroyed || next >= ANSWER_TOKENS) {
      finish(res, next);
      return;
    }
    res.write(TOKENS[next++]);
    setTimeout(tick, Math.max(0, started + next * SLOW_TOKEN_MS - performance.now()));
  };
  setTimeout(tick, SLOW_TOKEN_MS);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/bench/release") {
      const n = stalled.size;
      for (const r of stalled) r.destroy();
      stalled.clear();
      res.end(JSON.stringify({ released: n }));
    } else if (req.url === "/bench/stalled") {
      res.end(JSON.stringify({ stalled: stalled.size }));
    } else if (req.method === "POST" && req.url?.endsWith("/chat/completions")) {
      const body = Buffer.concat(chunks).toString("utf8");
      answer(res, modeOf(body), body);
    } else {
      res.writeHead(404).end();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;

const { values } = parseArgs({ options: { port: { type: "string" } } });
server.listen(Number(values.port), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => process.exit(0));
