// The Next.js limit (`npm run bench -- --only vercel`): the least a Next.js App Router route
// handler does to stream a run, i.e. what a Vercel deployment gets at best. It takes a
// RunAgentInput, streams the fake model through fetch and answers the same AG-UI frames as
// bench/baseline-server.ts. No database, no auth, no history, no persistence.
export const dynamic = "force-dynamic";

const MODEL_URL = `${process.env.LLM_BASE_URL}/chat/completions`;
const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" };

type Input = { threadId: string; runId: string; messages: { role: string; content: string }[] };

export async function POST(req: Request): Promise<Response> {
  const input = (await req.json()) as Input;
  if (typeof input.threadId !== "string" || typeof input.runId !== "string" || !Array.isArray(input.messages)) return new Response(null, { status: 400 });
  const encoder = new TextEncoder();
  let seq = 0;
  const frame = (event: object) => encoder.encode(`id: ${++seq}\ndata: ${JSON.stringify(event)}\n\n`);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: object) => controller.enqueue(frame(event));
      try {
        send({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId });
        const upstream = await fetch(MODEL_URL, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "bench", stream: true, messages: input.messages }),
          signal: req.signal,
        });
        const messageId = `msg_${crypto.randomUUID()}`;
        let open = false;
        let buffered = "";
        const decoder = new TextDecoder();
        for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
          buffered += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffered.indexOf("\n\n")) >= 0) {
            const line = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
            const text = (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content;
            if (!text) continue;
            if (!open) {
              open = true;
              send({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
            }
            send({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: text });
          }
        }
        if (open) send({ type: "TEXT_MESSAGE_END", messageId });
        send({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId });
        controller.close();
      } catch (err) {
        controller.error(err);
      }
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}
