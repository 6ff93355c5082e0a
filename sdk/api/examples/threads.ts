// The threads API from the typed client, as the README shows it:
//   DISPATCH_URL=http://localhost:3000 DISPATCH_API_KEY=dsp_... npx tsx sdk/api/examples/threads.ts "search words"
// It finds your newest message matching the words, renames and tags its thread, lists the thread's
// runs, forks it, lists your threads with the tag, and deletes the fork again.
import { createDispatchClient, dataOf, type DispatchClient } from "../client";

export async function tidyThread(client: DispatchClient, words: string) {
  const hits = dataOf(await client.GET("/api/v1/threads/search", { params: { query: { q: words, limit: 5 } } }));
  const best = hits.items[0];
  if (!best) return null;
  const threadId = best.threadId;
  const highlighted = best.highlights.map(([start, end]) => best.snippet.slice(start, end));

  const thread = dataOf(
    await client.PATCH("/api/v1/threads/{threadId}", {
      params: { path: { threadId } },
      body: { title: `About ${words}`, tags: ["triaged"], metadata: { source: "example" } },
    }),
  );
  const runs = dataOf(await client.GET("/api/v1/threads/{threadId}/runs", { params: { path: { threadId }, query: { limit: 10 } } }));
  const fork = dataOf(await client.POST("/api/v1/threads/{threadId}/fork", { params: { path: { threadId } }, body: { title: `${thread.title} (copy)` } }));

  const tagged = dataOf(await client.GET("/api/v1/threads", { params: { query: { tag: ["triaged"], metadata: JSON.stringify({ source: "example" }) } } }));
  dataOf(await client.DELETE("/api/v1/threads/{threadId}", { params: { path: { threadId: fork.id } } }));
  const afterDelete = dataOf(await client.GET("/api/v1/threads", { params: { query: { tag: ["triaged"] } } }));

  return {
    thread,
    highlighted,
    runIds: runs.items.map((run) => run.runId),
    forkId: fork.id,
    taggedIds: tagged.items.map((t) => t.id),
    taggedAfterDelete: afterDelete.items.map((t) => t.id),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const client = createDispatchClient({ baseUrl: process.env.DISPATCH_URL ?? "http://localhost:3000", apiKey: process.env.DISPATCH_API_KEY });
  console.log(JSON.stringify(await tidyThread(client, process.argv[2] ?? "hello"), null, 2));
}
