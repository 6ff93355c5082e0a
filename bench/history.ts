// /history on a long thread: 1,000,000 messages spread over three years (about 900 a day),
// seeded with one generate_series statement, then read page by page over HTTP.
import { randomUUID } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { percentile } from "./load";
import { watchSteal } from "./processes";

/** `after`: what the server did before these reads (runs, or idling). */
export type HistoryFigures = { after: string; messages: number; seedSeconds: number; latest: Timing; randomDay: Timing };
type Timing = { p50: number; p95: number; pageMessages: number; reads: number; stealPct: number };

const SPAN_DAYS = 3 * 365;

export async function seedHistory(databaseUrl: string, userId: string, messages: number): Promise<{ threadId: string; seedSeconds: number }> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const started = performance.now();
  const threadId = randomUUID();
  try {
    await db.query(`insert into threads (id, user_id, title, last_seq, created_at, updated_at) values ($1, $2, 'Three years of chat', $3, now() - make_interval(days => $4), now())`, [
      threadId,
      userId,
      messages,
      SPAN_DAYS,
    ]);
    // Alternating user questions and assistant answers, evenly spaced, oldest first.
    await db.query(
      `insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
       select gen_random_uuid(), $1, g,
         case when g % 2 = 1 then 'user' else 'assistant' end,
         'msg-' || g, null,
         case when g % 2 = 1 then 'What is on my calendar for the week of ' || g || '?'
              else 'You have three meetings that week: the planning review on Monday, a call with Ana on Wednesday and the team lunch on Friday (' || g || ').' end,
         case when g % 2 = 1 then '{"stage":"input"}'::jsonb else '{"stage":"answer","latency_ms":812}'::jsonb end,
         now() - make_interval(days => $3) + (g::double precision / $2) * make_interval(days => $3)
       from generate_series(1, $2) as g`,
      [threadId, messages, SPAN_DAYS],
    );
    // A table this size is vacuumed by autovacuum in steady state; measuring while it runs would time the vacuum.
    await db.query("vacuum analyze messages");
    await db.query("analyze threads");
    // Likewise its pages reach the disk over time, not all at once: without a checkpoint here,
    // writing out the ~0.5 GB just loaded (at hundreds of MB/s) overlapped the timed reads.
    await db.query("checkpoint");
  } finally {
    await db.end();
  }
  return { threadId, seedSeconds: (performance.now() - started) / 1000 };
}

function get(agent: http.Agent, port: number, path: string, apiKey: string): Promise<{ ms: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ms = performance.now() - started;
          const body = Buffer.concat(chunks);
          if (res.statusCode === 200) resolve({ ms, body });
          else reject(new Error(`GET ${path} answered ${res.statusCode}: ${body.toString("utf8", 0, 300)}`));
        });
      })
      .once("error", reject);
  });
}

// Each answer's messages are counted in its bytes (every message has one "seq" key, and a quote
// inside a string is escaped), and the answer is dropped. Keeping every body to parse at the end
// (~40 MB of buffers per 200 reads) had this process collect twice as often during the timed
// reads (58 collections against 24 in a full run, some pausing it 4-10 ms).
const SEQ_KEY = Buffer.from('"seq":');

function countMessages(body: Buffer): number {
  let n = 0;
  for (let at = body.indexOf(SEQ_KEY); at !== -1; at = body.indexOf(SEQ_KEY, at + SEQ_KEY.length)) n++;
  return n;
}

async function time(agent: http.Agent, port: number, apiKey: string, requests: number, path: () => string): Promise<Timing> {
  const ms: number[] = [];
  let pageMessages = 0;
  let stolen: (() => number) | null = null;
  for (let i = 0; i < requests + 5; i++) {
    if (i === 5) stolen = watchSteal(); // after the warm-up
    const r = await get(agent, port, path(), apiKey);
    if (i < 5) continue;
    ms.push(r.ms);
    pageMessages = Math.max(pageMessages, countMessages(r.body));
  }
  const stealPct = stolen?.() ?? NaN;
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), pageMessages, reads: ms.length, stealPct };
}

export async function measureHistory(opts: { port: number; apiKey: string; threadId: string; requests: number }): Promise<{ latest: Timing; randomDay: Timing }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const base = `/api/v1/agent/history?threadId=${opts.threadId}`;
  const latest = await time(agent, opts.port, opts.apiKey, opts.requests, () => base);
  const randomDay = await time(agent, opts.port, opts.apiKey, opts.requests, () => {
    const day = new Date(Date.now() - (1 + Math.floor(Math.random() * (SPAN_DAYS - 2))) * 86_400_000).toISOString().slice(0, 10);
    return `${base}&before=${day}`;
  });
  agent.destroy();
  return { latest, randomDay };
}
