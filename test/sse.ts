export type SseFrame = { id: string | null; data: string };

/** Parses an SSE response body into frames (comments skipped). */
export async function* readSse(res: Response): AsyncGenerator<SseFrame> {
  if (!res.body) throw new Error("response has no body");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let id: string | null = null;
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = line.slice(4);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        if (data.length > 0) yield { id, data: data.join("\n") };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export async function collectSse(res: Response): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const f of readSse(res)) frames.push(f);
  return frames;
}
